// The ByteBuffer the record tables are read through: flatbuffers' own decodes every string field
// with TextDecoder, whose per-call overhead costs more than decoding the short strings (names,
// codes, coordinates) that make up most fields.
import * as flatbuffers from 'flatbuffers';

/** Longer strings go to TextDecoder, whose per-call overhead (~50–90 ns) only pays off on long input. */
const SHORT_STRING_BYTES = 64;
const utf8Decoder = new TextDecoder();

/**
 * The UTF-8 bytes [start, start + length) as a string, exactly as `new TextDecoder().decode()`
 * (what flatbuffers uses) returns them: short well-formed strings are decoded here, character by
 * character; anything else — long strings, malformed bytes (replaced by U+FFFD), a leading
 * byte-order mark (dropped) — is left to TextDecoder.
 */
export function decodeUtf8(bytes: Uint8Array, start: number, length: number): string {
  const end = start + length;
  if (length > SHORT_STRING_BYTES || (length >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf)) {
    return utf8Decoder.decode(bytes.subarray(start, end));
  }
  let text = '';
  let i = start;
  while (i < end) {
    const b0 = bytes[i]!;
    if (b0 < 0x80) {
      text += String.fromCharCode(b0);
      i++;
      continue;
    }
    // Well-formed sequences only (WHATWG's ranges: no overlongs, surrogates or code points > U+10FFFF).
    if (b0 >= 0xc2 && b0 <= 0xdf && i + 1 < end) {
      const b1 = bytes[i + 1]!;
      if ((b1 & 0xc0) === 0x80) {
        text += String.fromCharCode(((b0 & 0x1f) << 6) | (b1 & 0x3f));
        i += 2;
        continue;
      }
    } else if (b0 >= 0xe0 && b0 <= 0xef && i + 2 < end) {
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      if (b1 >= (b0 === 0xe0 ? 0xa0 : 0x80) && b1 <= (b0 === 0xed ? 0x9f : 0xbf) && (b2 & 0xc0) === 0x80) {
        text += String.fromCharCode(((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f));
        i += 3;
        continue;
      }
    } else if (b0 >= 0xf0 && b0 <= 0xf4 && i + 3 < end) {
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      const b3 = bytes[i + 3]!;
      if (b1 >= (b0 === 0xf0 ? 0x90 : 0x80) && b1 <= (b0 === 0xf4 ? 0x8f : 0xbf) && (b2 & 0xc0) === 0x80 && (b3 & 0xc0) === 0x80) {
        const codePoint = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
        text += String.fromCharCode(0xd800 + ((codePoint - 0x10000) >> 10), 0xdc00 + ((codePoint - 0x10000) & 0x3ff));
        i += 4;
        continue;
      }
    }
    return utf8Decoder.decode(bytes.subarray(start, end));
  }
  return text;
}

/**
 * The ByteBuffer record tables are read through: the generated accessors call `__string` for
 * every string field, and flatbuffers' own goes through TextDecoder each time, which costs more
 * than decoding the short strings that make up most fields (names, codes, coordinates).
 */
export class RecordByteBuffer extends flatbuffers.ByteBuffer {
  override __string(offset: number, encoding?: flatbuffers.Encoding): string | Uint8Array {
    offset += this.readInt32(offset);
    const length = this.readInt32(offset);
    const start = offset + 4;
    if (encoding === flatbuffers.Encoding.UTF8_BYTES) return this.bytes().subarray(start, start + length);
    return decodeUtf8(this.bytes(), start, length);
  }
}
