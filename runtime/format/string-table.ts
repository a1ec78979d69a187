// StringTable payload: many strings in one ArrayPack, read back by position without building
// JS strings for the whole table. Layout (ArrayPack):
//   0 offsets Uint32Array (count + 1): string i is bytes[offsets[i], offsets[i+1])
//   1 bytes   Uint8Array: the UTF-8 bytes of all strings, concatenated
// Reader: runtime/indexes/string-table.ts. Sorted tables are sorted by compareUtf8(), which is
// the byte order the reader's binary search uses.
import { ArrayPackBuilder } from './array-pack.js';

export function encodeStringTable(strings: readonly string[]): Uint8Array {
  const encoded = strings.map((s) => Buffer.from(s, 'utf8'));
  const offsets = new Uint32Array(strings.length + 1);
  let total = 0;
  encoded.forEach((bytes, i) => {
    offsets[i] = total;
    total += bytes.byteLength;
  });
  offsets[strings.length] = total;
  const bytes = new Uint8Array(total);
  encoded.forEach((chunk, i) => bytes.set(chunk, offsets[i]!));
  return new ArrayPackBuilder().add(offsets).add(bytes).finish();
}

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
