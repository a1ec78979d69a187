// A bounded memo of the localities a postcode q matches, by key (country row and q), so that the
// pages of one search, and the same search from other clients, scan the country's localities once.
//
// Recency is a second-chance bit per slot (CLOCK), not Map order: a hit only sets that bit and
// allocates nothing. The LRU it replaces moved the entry to the Map's end on every hit (a delete
// and a set: a hole in the Map's table each time, and a new table when they fill it).

/** What a slot's bytes count: its list and its key's UTF-16 units. */
const bytesOf = (key: string, matched: Int32Array | Uint8Array): number => matched.byteLength + key.length * 2;

export class LocalityMatchMemo {
  private readonly slotByKey = new Map<string, number>();
  private readonly keys: string[] = [];
  /** Lists of matched localities, or bitsets of them (the engine's LocalityMatches). */
  private readonly lists: (Int32Array | Uint8Array)[] = [];
  /** 1: used since the hand last passed the slot. */
  private used = new Uint8Array(64);
  private readonly freeSlots: number[] = [];
  private hand = 0;
  private heldBytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.slotByKey.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** The list held for `key` (its slot marked used), or undefined. */
  get(key: string): Int32Array | Uint8Array | undefined {
    const slot = this.slotByKey.get(key);
    if (slot === undefined) return undefined;
    this.used[slot] = 1;
    return this.lists[slot]!;
  }

  /** The list held for `key`, or undefined, without marking it used: a lookup that serves no request of that key. */
  peek(key: string): Int32Array | Uint8Array | undefined {
    const slot = this.slotByKey.get(key);
    return slot === undefined ? undefined : this.lists[slot]!;
  }

  /** Holds `matched` for `key` (not held yet), then evicts other slots, least recently used first by second chance, until within the budget. */
  set(key: string, matched: Int32Array | Uint8Array): void {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.keys.length;
      this.keys.push(key);
      this.lists.push(matched);
      if (slot === this.used.length) {
        const grown = new Uint8Array(this.used.length * 2);
        grown.set(this.used);
        this.used = grown;
      }
    } else {
      this.keys[slot] = key;
      this.lists[slot] = matched;
    }
    this.used[slot] = 0;
    this.slotByKey.set(key, slot);
    this.heldBytes += bytesOf(key, matched);
    while (this.heldBytes > this.maxBytes && this.slotByKey.size > 1) this.evictOneBesides(slot);
  }

  /** Holds nothing again. */
  clear(): void {
    this.slotByKey.clear();
    this.keys.length = 0;
    this.lists.length = 0;
    this.freeSlots.length = 0;
    this.used.fill(0);
    this.hand = 0;
    this.heldBytes = 0;
  }

  private evictOneBesides(kept: number): void {
    for (;;) {
      const slot = this.hand;
      this.hand = slot + 1 === this.keys.length ? 0 : slot + 1;
      const key = this.keys[slot]!;
      if (slot === kept || key === '') continue; // '': a free slot (no key is empty)
      if (this.used[slot] === 1) {
        this.used[slot] = 0;
        continue;
      }
      this.slotByKey.delete(key);
      this.heldBytes -= bytesOf(key, this.lists[slot]!);
      this.keys[slot] = '';
      this.lists[slot] = EMPTY;
      this.freeSlots.push(slot);
      return;
    }
  }
}

const EMPTY = new Int32Array(0);
