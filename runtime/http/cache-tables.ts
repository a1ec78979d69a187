// The response cache's bookkeeping in typed arrays (runtime/http/response-cache.ts): a hash table
// from key hashes to entry slots, and queues of (slot, serial, kind) records. Typed arrays hold no
// references for V8 to mark, and are allocated again only when they grow: an object per cached
// answer (and a Map slot, and a JS array of items) was promoted to the old generation on every
// miss, and the Map's and the array's backing stores were reallocated as they churned.

/** Slot index + 1 in the table: 0 is an empty bucket, TOMBSTONE a deleted one. */
const TOMBSTONE = -1;

/**
 * Open addressing (linear probing) from a 30-bit hash to slots; several slots may share a hash
 * (the caller tells them apart by their keys). Each bucket keeps its slot's hash beside it, so a
 * probe compares keys only for slots of the same hash. Grows when more than half full, tombstones
 * included; rebuilt at the same size when tombstones are most of that.
 */
export class HashSlots {
  private slots = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private mask = 1023;
  private live = 0;
  private tombstones = 0;

  /** Slots stored. */
  get size(): number {
    return this.live;
  }

  /** The slot stored under `hash` for which `matches(slot, key)` is true, or -1. */
  find(hash: number, key: string, matches: (slot: number, key: string) => boolean): number {
    const slots = this.slots;
    const hashes = this.hashes;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const value = slots[i]!;
      if (value === 0) return -1;
      if (value > 0 && hashes[i] === hash && matches(value - 1, key)) return value - 1;
    }
  }

  /** Stores `slot` under `hash`. */
  add(hash: number, slot: number): void {
    if ((this.live + this.tombstones + 1) * 2 > this.slots.length) this.rebuild(this.live * 4 > this.slots.length ? this.slots.length * 2 : this.slots.length);
    const slots = this.slots;
    let i = hash & this.mask;
    while (slots[i]! > 0) i = (i + 1) & this.mask;
    if (slots[i] === TOMBSTONE) this.tombstones--;
    slots[i] = slot + 1;
    this.hashes[i] = hash;
    this.live++;
  }

  /** Removes `slot`, stored under `hash`. */
  remove(hash: number, slot: number): void {
    const slots = this.slots;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const value = slots[i]!;
      if (value === 0) throw new Error(`response cache: slot ${slot} is not in the table under hash ${hash}`);
      if (value === slot + 1) {
        slots[i] = TOMBSTONE;
        this.live--;
        this.tombstones++;
        return;
      }
    }
  }

  clear(): void {
    this.slots.fill(0);
    this.live = 0;
    this.tombstones = 0;
  }

  private rebuild(size: number): void {
    const oldSlots = this.slots;
    const oldHashes = this.hashes;
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    this.mask = size - 1;
    this.tombstones = 0;
    for (let i = 0; i < oldSlots.length; i++) {
      const value = oldSlots[i]!;
      if (value <= 0) continue;
      const hash = oldHashes[i]!;
      let j = hash & this.mask;
      while (this.slots[j] !== 0) j = (j + 1) & this.mask;
      this.slots[j] = value;
      this.hashes[j] = hash;
    }
  }
}

/** A first-in first-out queue of (slot, serial, kind) records, circular, doubling when full. */
export class RecordQueue {
  private slots = new Int32Array(1024);
  private serials = new Int32Array(1024);
  private kinds = new Uint8Array(1024);
  private front = 0;
  length = 0;

  push(slot: number, serial: number, kind: number): void {
    if (this.length === this.slots.length) this.grow();
    const at = (this.front + this.length) & (this.slots.length - 1);
    this.slots[at] = slot;
    this.serials[at] = serial;
    this.kinds[at] = kind;
    this.length++;
  }

  /** The front record's fields (the queue is not empty). */
  get frontSlot(): number {
    return this.slots[this.front]!;
  }

  get frontSerial(): number {
    return this.serials[this.front]!;
  }

  get frontKind(): number {
    return this.kinds[this.front]!;
  }

  /** Drops the front record. */
  shift(): void {
    this.front = (this.front + 1) & (this.slots.length - 1);
    this.length--;
  }

  /** Keeps only the records `keep` accepts, in order. */
  filter(keep: (slot: number, serial: number, kind: number) => boolean): void {
    const mask = this.slots.length - 1;
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const from = (this.front + i) & mask;
      const slot = this.slots[from]!;
      const serial = this.serials[from]!;
      const kind = this.kinds[from]!;
      if (!keep(slot, serial, kind)) continue;
      const to = (this.front + kept++) & mask;
      this.slots[to] = slot;
      this.serials[to] = serial;
      this.kinds[to] = kind;
    }
    this.length = kept;
  }

  clear(): void {
    this.front = 0;
    this.length = 0;
  }

  private grow(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size);
    const serials = new Int32Array(size);
    const kinds = new Uint8Array(size);
    const mask = this.slots.length - 1;
    for (let i = 0; i < this.length; i++) {
      const from = (this.front + i) & mask;
      slots[i] = this.slots[from]!;
      serials[i] = this.serials[from]!;
      kinds[i] = this.kinds[from]!;
    }
    this.slots = slots;
    this.serials = serials;
    this.kinds = kinds;
    this.front = 0;
  }
}
