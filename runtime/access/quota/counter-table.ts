// Daily and monthly request counters for every quota bucket, in one SharedArrayBuffer that all
// worker threads of a process (and the main thread, which persists it) open at once.
//
// Layout: a fixed-size open-addressing hash table (linear probing) of Int32 slots.
//   header (16 ints): magic, capacity, slots in use, generation, refused insertions
//   slot (24 ints):   state, lock, key length, key hash, dayId, day count, monthId, month count,
//                     then the bucket key as up to 64 UTF-8 bytes
// A slot is claimed once (state 0 → 1 → 2) and never moves or empties, so a worker may cache
// key → slot. Check-and-increment of the two counters happens under a per-slot futex lock
// (Atomics.compareExchange + Atomics.wait/notify), which makes "under both limits → count"
// one atomic step across threads: the lock is held for a handful of loads and stores.
import { createHash } from 'node:crypto';

const MAGIC = 0x51544231; // 'QTB1'
const HEADER_INTS = 16;
const H_MAGIC = 0;
const H_CAPACITY = 1;
const H_USED = 2;
const H_GENERATION = 3;
const H_REFUSED = 4;

const S_STATE = 0;
const S_LOCK = 1;
const S_KEYLEN = 2;
const S_HASH = 3;
const S_DAY = 4;
const S_DAY_COUNT = 5;
const S_MONTH = 6;
const S_MONTH_COUNT = 7;
const SLOT_FIELDS = 8;
const KEY_BYTES = 64;
const SLOT_INTS = SLOT_FIELDS + KEY_BYTES / 4;

const EMPTY = 0;
const CLAIMING = 1;
const READY = 2;

/** Outcome codes of `consume`. */
export const ALLOWED = 0;
export const DAILY_EXCEEDED = 1;
export const MONTHLY_EXCEEDED = 2;
/** The table has no room for a new bucket (see `capacity`); the caller decides without it. */
export const TABLE_FULL = -1;

export interface CounterEntry {
  key: string;
  dayId: number;
  dayCount: number;
  monthId: number;
  monthCount: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The bytes a bucket key is stored as: its UTF-8 when it fits 64 bytes, else `#` + base64url
 * SHA-256 (44 bytes). Stored keys re-encode to themselves, so persisted entries restore exactly.
 */
export function storedKey(key: string): Uint8Array {
  const bytes = encoder.encode(key);
  if (bytes.length <= KEY_BYTES) return bytes;
  return encoder.encode(`#${createHash('sha256').update(bytes).digest('base64url')}`);
}

function hashBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  // murmur3 finaliser: FNV's low bits are weak and linear probing indexes by them
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

export class CounterTable {
  readonly capacity: number;
  /** Insertions stop at 7/8 load so probe sequences stay short. */
  readonly maxBuckets: number;
  private readonly ints: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly slotByKey = new Map<string, number>();

  private constructor(readonly buffer: SharedArrayBuffer) {
    this.ints = new Int32Array(buffer);
    this.bytes = new Uint8Array(buffer);
    if (this.ints.length < HEADER_INTS || this.ints[H_MAGIC] !== MAGIC) {
      throw new Error(`quota counter table: expected magic 0x${MAGIC.toString(16)}, found 0x${(this.ints[H_MAGIC] ?? 0).toString(16)}`);
    }
    this.capacity = this.ints[H_CAPACITY]!;
    const expected = (HEADER_INTS + this.capacity * SLOT_INTS) * 4;
    if (buffer.byteLength !== expected) {
      throw new Error(`quota counter table: expected ${expected} bytes for ${this.capacity} slots, found ${buffer.byteLength}`);
    }
    this.maxBuckets = this.capacity - (this.capacity >>> 3);
  }

  /** A new, empty table; `capacity` is rounded up to a power of two (96 bytes per slot). */
  static create(capacity: number): CounterTable {
    if (!Number.isInteger(capacity) || capacity < 8 || capacity > 1 << 24) {
      throw new Error(`quota counter table: expected a capacity between 8 and 16777216 slots, found ${capacity}`);
    }
    let slots = 8;
    while (slots < capacity) slots *= 2;
    const buffer = new SharedArrayBuffer((HEADER_INTS + slots * SLOT_INTS) * 4);
    const ints = new Int32Array(buffer);
    ints[H_MAGIC] = MAGIC;
    ints[H_CAPACITY] = slots;
    return new CounterTable(buffer);
  }

  /** Opens a table created by another thread. */
  static from(buffer: SharedArrayBuffer): CounterTable {
    return new CounterTable(buffer);
  }

  /** Buckets in the table. */
  get size(): number {
    return Atomics.load(this.ints, H_USED);
  }

  /** Bumped on every change: the persister skips a write when it has not moved. */
  get generation(): number {
    return Atomics.load(this.ints, H_GENERATION);
  }

  /** New buckets refused because the table was full (each was answered without counting here). */
  get refused(): number {
    return Atomics.load(this.ints, H_REFUSED);
  }

  /** Slot index of `key`, claiming a free slot the first time; TABLE_FULL when there is no room. */
  slotOf(key: string): number {
    const cached = this.slotByKey.get(key);
    if (cached !== undefined) return cached;
    const slot = this.findOrClaim(storedKey(key));
    if (slot !== TABLE_FULL) this.slotByKey.set(key, slot);
    return slot;
  }

  /**
   * Counts one request in the bucket's current day and month when both are under their limits.
   * Windows older than (dayId, monthId) restart at zero; a newer stored window (another thread's
   * clock already past midnight) is kept. `out[0]`/`out[1]` receive the day/month counts after
   * the decision (including this request when allowed).
   */
  consume(slot: number, dayId: number, monthId: number, dailyLimit: number, monthlyLimit: number, out: Int32Array): number {
    const base = HEADER_INTS + slot * SLOT_INTS;
    const ints = this.ints;
    this.lock(base + S_LOCK);
    let day = ints[base + S_DAY]!;
    let dayCount = ints[base + S_DAY_COUNT]!;
    if (dayId > day) {
      day = dayId;
      dayCount = 0;
    }
    let month = ints[base + S_MONTH]!;
    let monthCount = ints[base + S_MONTH_COUNT]!;
    if (monthId > month) {
      month = monthId;
      monthCount = 0;
    }
    let outcome: number;
    if (monthCount >= monthlyLimit) outcome = MONTHLY_EXCEEDED;
    else if (dayCount >= dailyLimit) outcome = DAILY_EXCEEDED;
    else {
      outcome = ALLOWED;
      dayCount++;
      monthCount++;
    }
    ints[base + S_DAY] = day;
    ints[base + S_DAY_COUNT] = dayCount;
    ints[base + S_MONTH] = month;
    ints[base + S_MONTH_COUNT] = monthCount;
    this.unlock(base + S_LOCK);
    if (outcome === ALLOWED) Atomics.add(ints, H_GENERATION, 1);
    out[0] = dayCount;
    out[1] = monthCount;
    return outcome;
  }

  /** Current counts of the slot for the given windows, without counting (0 for past windows). */
  peek(slot: number, dayId: number, monthId: number, out: Int32Array): void {
    const base = HEADER_INTS + slot * SLOT_INTS;
    this.lock(base + S_LOCK);
    out[0] = this.ints[base + S_DAY]! >= dayId ? this.ints[base + S_DAY_COUNT]! : 0;
    out[1] = this.ints[base + S_MONTH]! >= monthId ? this.ints[base + S_MONTH_COUNT]! : 0;
    this.unlock(base + S_LOCK);
  }

  /** Sets a bucket's counters (restoring persisted state; Redis fallback seeding). */
  set(entry: CounterEntry): boolean {
    const slot = this.slotOf(entry.key);
    if (slot === TABLE_FULL) return false;
    const base = HEADER_INTS + slot * SLOT_INTS;
    this.lock(base + S_LOCK);
    this.ints[base + S_DAY] = entry.dayId;
    this.ints[base + S_DAY_COUNT] = entry.dayCount;
    this.ints[base + S_MONTH] = entry.monthId;
    this.ints[base + S_MONTH_COUNT] = entry.monthCount;
    this.unlock(base + S_LOCK);
    Atomics.add(this.ints, H_GENERATION, 1);
    return true;
  }

  /** A consistent copy of every bucket (each slot read under its lock). */
  entries(): CounterEntry[] {
    const result: CounterEntry[] = [];
    const ints = this.ints;
    for (let slot = 0; slot < this.capacity; slot++) {
      const base = HEADER_INTS + slot * SLOT_INTS;
      // A plain read first skips the empty slots (nearly all) cheaply; a slot claimed meanwhile is
      // saved next time, as one claimed just after the scan passed it. The atomic load then orders
      // the key's bytes before this read of them.
      if (ints[base + S_STATE] === EMPTY || Atomics.load(ints, base + S_STATE) !== READY) continue;
      const keyStart = (base + SLOT_FIELDS) * 4;
      const key = decoder.decode(this.bytes.slice(keyStart, keyStart + ints[base + S_KEYLEN]!));
      // Nothing is allocated under the lock: an allocation may start a collection, which would
      // pause this thread (the main one, which saves the counters) with the lock held, and every
      // worker counting a request of this bucket would wait for it.
      this.lock(base + S_LOCK);
      const dayId = ints[base + S_DAY]!;
      const dayCount = ints[base + S_DAY_COUNT]!;
      const monthId = ints[base + S_MONTH]!;
      const monthCount = ints[base + S_MONTH_COUNT]!;
      this.unlock(base + S_LOCK);
      result.push({ key, dayId, dayCount, monthId, monthCount });
    }
    return result;
  }

  private findOrClaim(key: Uint8Array): number {
    const ints = this.ints;
    const hash = hashBytes(key);
    const mask = this.capacity - 1;
    let slot = hash & mask;
    for (let probes = 0; probes < this.capacity; probes++, slot = (slot + 1) & mask) {
      const base = HEADER_INTS + slot * SLOT_INTS;
      let state = Atomics.load(ints, base + S_STATE);
      if (state === EMPTY) {
        if (Atomics.load(ints, H_USED) >= this.maxBuckets) {
          Atomics.add(ints, H_REFUSED, 1);
          return TABLE_FULL;
        }
        state = Atomics.compareExchange(ints, base + S_STATE, EMPTY, CLAIMING);
        if (state === EMPTY) {
          ints[base + S_KEYLEN] = key.length;
          ints[base + S_HASH] = hash;
          this.bytes.set(key, (base + SLOT_FIELDS) * 4);
          Atomics.add(ints, H_USED, 1);
          Atomics.store(ints, base + S_STATE, READY);
          Atomics.notify(ints, base + S_STATE);
          return slot;
        }
      }
      // Another thread is writing this slot's key: wait until it is readable.
      while (state === CLAIMING) {
        Atomics.wait(ints, base + S_STATE, CLAIMING, 10);
        state = Atomics.load(ints, base + S_STATE);
      }
      if (ints[base + S_HASH] === hash && ints[base + S_KEYLEN] === key.length && this.keyEquals(base, key)) return slot;
    }
    Atomics.add(ints, H_REFUSED, 1);
    return TABLE_FULL;
  }

  private keyEquals(base: number, key: Uint8Array): boolean {
    const start = (base + SLOT_FIELDS) * 4;
    for (let i = 0; i < key.length; i++) if (this.bytes[start + i] !== key[i]) return false;
    return true;
  }

  // Futex mutex (Drepper, "Futexes are tricky", mutex #2): 0 free, 1 locked, 2 locked with waiters.
  private lock(index: number): void {
    const ints = this.ints;
    let c = Atomics.compareExchange(ints, index, 0, 1);
    if (c === 0) return;
    for (let spin = 0; spin < 64; spin++) {
      c = Atomics.compareExchange(ints, index, 0, 1);
      if (c === 0) return;
    }
    if (c !== 2) c = Atomics.exchange(ints, index, 2);
    while (c !== 0) {
      Atomics.wait(ints, index, 2);
      c = Atomics.exchange(ints, index, 2);
    }
  }

  private unlock(index: number): void {
    if (Atomics.sub(this.ints, index, 1) !== 1) {
      Atomics.store(this.ints, index, 0);
      Atomics.notify(this.ints, index, 1);
    }
  }
}
