// Reads a StringTable payload (layout: runtime/format/string-table.ts): string i by position,
// and byte-wise binary search within a row range of a sorted table, without decoding strings.
import { ArrayPack } from '../format/array-pack.js';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class StringTable {
  private constructor(
    private readonly offsets: Uint32Array,
    private readonly bytes: Uint8Array,
  ) {}

  static from(buffer: ArrayBufferLike, byteOffset = 0, what = 'string table'): StringTable {
    const pack = ArrayPack.from(buffer, byteOffset, what);
    return new StringTable(pack.get(0, Uint32Array, what), pack.get(1, Uint8Array, what));
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
