// Many strings in one payload, read back by position without building JS strings for the whole
// table, and byte-wise binary search within a row range of a sorted table.
//
// Payload (`keys.postcodes`): ArrayPack of
//   0 offsets Uint32Array (count + 1): string i is bytes[offsets[i], offsets[i+1])
//   1 bytes   Uint8Array: the UTF-8 bytes of all strings, concatenated
// Built with `new StringTableBuilder().add(s)….finish()`, read with `StringTable.from(buffer)`.
// Sorted tables are sorted by compareUtf8(), which is the byte order the binary search uses.
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';

/**
 * Compares two strings in UTF-8 byte order (= code point order). Plain `<` compares UTF-16 code
 * units, which differs only when surrogate pairs meet characters U+E000–U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (D800–DFFF) encode code points above FFFF: move them above E000–FFFF.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

export class StringTableBuilder {
  private readonly encoded: Buffer[] = [];
  private byteCount = 0;

  /** Appends a string; its position is the number of strings added before it. */
  add(text: string): this {
    const bytes = Buffer.from(text, 'utf8');
    this.encoded.push(bytes);
    this.byteCount += bytes.byteLength;
    return this;
  }

  finish(): Uint8Array {
    const count = this.encoded.length;
    const offsets = new Uint32Array(count + 1);
    const bytes = new Uint8Array(this.byteCount);
    let total = 0;
    this.encoded.forEach((chunk, i) => {
      offsets[i] = total;
      bytes.set(chunk, total);
      total += chunk.byteLength;
    });
    offsets[count] = total;
    return new ArrayPackBuilder().add(offsets).add(bytes).finish();
  }
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class StringTable {
  private constructor(
    private readonly offsets: Uint32Array,
    private readonly bytes: Uint8Array,
  ) {}

  static from(buffer: ArrayBufferLike, byteOffset = 0, what = 'string table'): StringTable {
    const pack = ArrayPack.from(buffer, byteOffset, what);
    const offsets = pack.get(0, Uint32Array, what);
    const bytes = pack.get(1, Uint8Array, what);
    if (offsets.length === 0) throw new SnapshotFormatError(`${what}: expected at least one offset (count + 1), found none`);
    const last = offsets[offsets.length - 1]!;
    if (last !== bytes.length) throw new SnapshotFormatError(`${what}: expected the last offset to be the byte count ${bytes.length}, found ${last}`);
    return new StringTable(offsets, bytes);
  }

  get count(): number {
    return this.offsets.length - 1;
  }

  get(i: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[i]!, this.offsets[i + 1]!));
  }

  /** Compares string i with `key` (UTF-8 bytes) in byte order: <0, 0, >0. */
  compareAt(i: number, key: Uint8Array): number {
    const start = this.offsets[i]!;
    const length = this.offsets[i + 1]! - start;
    const n = Math.min(length, key.length);
    const bytes = this.bytes;
    for (let k = 0; k < n; k++) {
      const d = bytes[start + k]! - key[k]!;
      if (d !== 0) return d;
    }
    return length - key.length;
  }

  /** True when string i starts with `prefix` (UTF-8 bytes). */
  startsWithAt(i: number, prefix: Uint8Array): boolean {
    const start = this.offsets[i]!;
    if (this.offsets[i + 1]! - start < prefix.length) return false;
    for (let k = 0; k < prefix.length; k++) if (this.bytes[start + k] !== prefix[k]) return false;
    return true;
  }

  /** First position in [start, end) whose string is ≥ key; the range must be sorted by bytes. */
  lowerBound(key: string | Uint8Array, start = 0, end = this.count): number {
    const k = typeof key === 'string' ? encoder.encode(key) : key;
    let lo = start;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, k) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position in [start, end) whose string is > key. */
  upperBound(key: string | Uint8Array, start = 0, end = this.count): number {
    const k = typeof key === 'string' ? encoder.encode(key) : key;
    let lo = start;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, k) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** [first, last) positions in [start, end) holding exactly `key`. */
  equalRange(key: string, start = 0, end = this.count): [number, number] {
    const k = encoder.encode(key);
    return [this.lowerBound(k, start, end), this.upperBound(k, start, end)];
  }
}
