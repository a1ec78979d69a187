// Starts-with and exact lookups for autocomplete: entries (key, row, field) sorted by the key's
// UTF-8 bytes (= code point order), then row, then field, so every key starting with a prefix is
// one contiguous range found by two binary searches, and exact matches open that range.
// Keys are matchKey() forms (runtime/text/normalise.ts); the builder stores them as given.
//
// Payload (`prefix.<entity>`, `prefix-tr.<entity>`): ArrayPack of
//   0 keyStarts  Uint32Array(entries + 1)  byte offset of each key in keyBytes
//   1 keyBytes   Uint8Array                 UTF-8 keys, concatenated in entry order
//   2 rows       Int32Array(entries)
//   3 fields     Uint8Array(entries)        PREFIX_FIELD_*
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';
import { bytesContain } from './byte-search.js';

export const PREFIX_FIELD_NAME = 0;
export const PREFIX_FIELD_NATIVE = 1;
export const PREFIX_FIELD_TRANSLATION = 2;
export type PrefixField = typeof PREFIX_FIELD_NAME | typeof PREFIX_FIELD_NATIVE | typeof PREFIX_FIELD_TRANSLATION;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const SURROGATE_OR_ABOVE_RE = /[\ud800-\uffff]/;

/**
 * JS compares strings by UTF-16 code units, which puts astral characters (surrogates, D800–DFFF)
 * before U+E000–U+FFFF; UTF-8 puts them after. Shifting those two blocks past each other makes
 * the default (native) string sort agree with byte order, without a comparator callback.
 */
function byteOrderKey(key: string): string {
  if (!SURROGATE_OR_ABOVE_RE.test(key)) return key;
  let out = '';
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    out += String.fromCharCode(c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);
  }
  return out;
}

export class PrefixIndexBuilder {
  /** Entries grouped by byteOrderKey(key): [row, field] pairs flattened. */
  private readonly groups = new Map<string, number[]>();
  private readonly keyOfOrder = new Map<string, string>();

  /** Adds one key (already in matchKey form) of a row; empty keys are ignored. */
  add(key: string, row: number, field: PrefixField): this {
    if (key === '') return this;
    if (!Number.isInteger(row) || row < 0 || row > 0x7fffffff) throw new RangeError(`prefix index: row must be a non-negative 32-bit integer, found ${row}`);
    if (field !== PREFIX_FIELD_NAME && field !== PREFIX_FIELD_NATIVE && field !== PREFIX_FIELD_TRANSLATION) {
      throw new RangeError(`prefix index: field must be 0 (name), 1 (native) or 2 (translation), found ${String(field)}`);
    }
    const order = byteOrderKey(key);
    let group = this.groups.get(order);
    if (!group) {
      group = [];
      this.groups.set(order, group);
      if (order !== key) this.keyOfOrder.set(order, key);
    }
    group.push(row, field);
    return this;
  }

  finish(): Uint8Array {
    // The default sort compares strings natively (no comparator callback): fast for ~1M keys.
    const orders = [...this.groups.keys()].sort();
    const rows: number[] = [];
    const fields: number[] = [];
    const keys: Uint8Array[] = [];
    let bytes = 0;
    const keyStarts: number[] = [];
    for (const order of orders) {
      const group = this.groups.get(order)!;
      const pairs: [number, number][] = [];
      for (let i = 0; i < group.length; i += 2) pairs.push([group[i]!, group[i + 1]!]);
      pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const key = encoder.encode(this.keyOfOrder.get(order) ?? order);
      for (let i = 0; i < pairs.length; i++) {
        const [row, field] = pairs[i]!;
        if (i > 0 && row === pairs[i - 1]![0] && field === pairs[i - 1]![1]) continue;
        keyStarts.push(bytes);
        keys.push(key);
        bytes += key.byteLength;
        rows.push(row);
        fields.push(field);
      }
    }
    keyStarts.push(bytes);
    const keyBytes = new Uint8Array(bytes);
    keys.forEach((key, i) => keyBytes.set(key, keyStarts[i]!));
    return new ArrayPackBuilder().add(Uint32Array.from(keyStarts)).add(keyBytes).add(Int32Array.from(rows)).add(Uint8Array.from(fields)).finish();
  }
}

export class PrefixIndex {
  // The last probed key as UTF-8 (probes repeat the same key: range, then isExact per entry):
  // probeBytes[0, probeLength), encoded into a reused array, not into a new one (and its backing
  // store, or a view) per key.
  private probeKey = '';
  private probeBytes = new Uint8Array(64);
  private probeLength = 0;

  private constructor(
    private readonly keyStarts: Uint32Array,
    private readonly keyBytes: Uint8Array,
    private readonly rows: Int32Array,
    private readonly fields: Uint8Array,
  ) {}

  static from(buffer: ArrayBufferLike, byteOffset = 0, what = 'prefix index'): PrefixIndex {
    const pack = ArrayPack.from(buffer, byteOffset, what);
    const keyStarts = pack.get(0, Uint32Array, what);
    const keyBytes = pack.get(1, Uint8Array, what);
    const rows = pack.get(2, Int32Array, what);
    const fields = pack.get(3, Uint8Array, what);
    if (keyStarts.length !== rows.length + 1 || fields.length !== rows.length) {
      throw new SnapshotFormatError(`${what}: expected ${rows.length + 1} key offsets and ${rows.length} fields, found ${keyStarts.length} and ${fields.length}`);
    }
    if (keyStarts[rows.length] !== keyBytes.length) {
      throw new SnapshotFormatError(`${what}: expected ${keyStarts[rows.length]} key bytes, found ${keyBytes.length}`);
    }
    return new PrefixIndex(keyStarts, keyBytes, rows, fields);
  }

  get count(): number {
    return this.rows.length;
  }

  row(i: number): number {
    return this.rows[i]!;
  }

  field(i: number): PrefixField {
    return this.fields[i]! as PrefixField;
  }

  /** The key of entry i in UTF-8 bytes. */
  keyLength(i: number): number {
    return this.keyStarts[i + 1]! - this.keyStarts[i]!;
  }

  key(i: number): string {
    return decoder.decode(this.keyBytes.subarray(this.keyStarts[i]!, this.keyStarts[i + 1]!));
  }

  /** The UTF-8 byte length of `key` (its encoding is kept for a following range(key)). */
  keyByteLength(key: string): number {
    return this.encode(key);
  }

  /** Entries whose key starts with `prefixKey` (matchKey form): [start, end). */
  range(prefixKey: string): [number, number] {
    const probeLength = this.encode(prefixKey);
    // One search down to the first entry inside the range, then its two ends each within what is
    // left: the levels both ends share are read once (the deep ones miss the cache).
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = this.comparePrefix(mid, probeLength);
      if (order < 0) lo = mid + 1;
      else if (order > 0) hi = mid;
      else return [this.bound(probeLength, 0, lo, mid), this.bound(probeLength, 1, mid + 1, hi)];
    }
    return [lo, lo];
  }

  /** Entries whose key equals `key`: [start, end), the head of range(key). */
  exactRange(key: string): [number, number] {
    const [start, end] = this.range(key);
    const length = this.probeLength;
    let i = start;
    while (i < end && this.keyLength(i) === length) i++;
    return [start, i];
  }

  /** True when entry i's key equals `key` (for an entry inside range(key): its length matches). */
  isExact(i: number, key: string): boolean {
    const probeLength = this.encode(key);
    return this.keyLength(i) === probeLength && this.comparePrefix(i, probeLength) === 0;
  }

  /**
   * Whether entry i's key contains `key` (matchKey form): String.prototype.includes on the UTF-8
   * bytes, the same answer for well-formed text (UTF-8 is self-synchronizing). No string is made.
   */
  keyContains(i: number, key: string): boolean {
    const probeLength = this.encode(key);
    return bytesContain(this.keyBytes, this.keyStarts[i]!, this.keyStarts[i + 1]!, this.probeBytes, probeLength);
  }

  /**
   * Each row's name and native entries in the names index (`prefix.<entity>`, which holds at most
   * one of each per row), in one pass over the entries: [2 × row] its name entry, [2 × row + 1] its
   * native entry, -1 for none.
   */
  entriesByRow(rowCount: number): Int32Array {
    const entries = new Int32Array(2 * rowCount).fill(-1);
    const rows = this.rows;
    const fields = this.fields;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const field = fields[i]!;
      if (row >= rowCount || field > PREFIX_FIELD_NATIVE) {
        throw new SnapshotFormatError(`prefix index: expected name or native entries of rows below ${rowCount}, found field ${field} of row ${row}`);
      }
      const at = 2 * row + field;
      if (entries[at] !== -1) throw new SnapshotFormatError(`prefix index: expected at most one entry of field ${field} for row ${row}, found a second`);
      entries[at] = i;
    }
    return entries;
  }

  /** Encodes `key` into probeBytes (unless it is the last key encoded); returns its byte length. */
  private encode(key: string): number {
    if (key !== this.probeKey) {
      // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair 4 for its 2).
      if (this.probeBytes.length < key.length * 3) this.probeBytes = new Uint8Array(key.length * 3);
      this.probeLength = encoder.encodeInto(key, this.probeBytes).written;
      this.probeKey = key;
    }
    return this.probeLength;
  }

  /**
   * Compares entry i's key cut to the probe's length (probeBytes[0, probeLength)) with the probe:
   * <0, 0 (key starts with the probe), >0.
   */
  private comparePrefix(i: number, probeLength: number): number {
    const start = this.keyStarts[i]!;
    const length = this.keyStarts[i + 1]! - start;
    const n = Math.min(length, probeLength);
    const bytes = this.keyBytes;
    const probe = this.probeBytes;
    for (let k = 0; k < n; k++) {
      const d = bytes[start + k]! - probe[k]!;
      if (d !== 0) return d;
    }
    return length < probeLength ? -1 : 0;
  }

  /** First entry of [lo, hi) whose comparePrefix is ≥ 0 (side 0: range start) or > 0 (side 1: range end), else hi. */
  private bound(probeLength: number, side: 0 | 1, lo: number, hi: number): number {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.comparePrefix(mid, probeLength) < side) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
