import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as flatbuffers from 'flatbuffers';
import { decodeUtf8, RecordByteBuffer } from '../../runtime/store/record-byte-buffer.js';
import { prng } from '../support/random.js';

const reference = new TextDecoder();


/** decodeUtf8 of `bytes` placed at an offset inside a larger (shared) buffer, as record tables hold them. */
function decodeAt(bytes: Uint8Array): string {
  const buffer = new Uint8Array(new SharedArrayBuffer(bytes.length + 7));
  buffer.set(bytes, 3);
  return decodeUtf8(buffer, 3, bytes.length);
}

function assertSameAsTextDecoder(bytes: Uint8Array): void {
  assert.equal(decodeAt(bytes), reference.decode(bytes), `bytes ${Buffer.from(bytes).toString('hex')}`);
}

describe('record string decoding', () => {
  test('decodes well-formed text of every length around the short-string limit as TextDecoder does', () => {
    const random = prng(41);
    const samples = ['a', 'é', 'ß', 'Ж', '東', 'ق', '€', '😀', '𝄞', ' ', '-', '0', '\u0000', '\u007f', '\u0080', '\u07ff', '\u0800', '\uffff', '\u{10000}', '\u{10ffff}'];
    for (let i = 0; i < 3000; i++) {
      const length = Math.floor(random() * 90);
      let text = '';
      while ([...text].length < length) text += samples[Math.floor(random() * samples.length)]!;
      assertSameAsTextDecoder(new TextEncoder().encode(text));
    }
    for (const text of ['', 'London', 'São Paulo', 'Москва', '東京都', "Côte d'Ivoire", '{"ko":"런던","ja":"ロンドン"}', '49.50000000', 'Europe/Zurich']) {
      assertSameAsTextDecoder(new TextEncoder().encode(text));
    }
  });

  test('leaves malformed bytes to TextDecoder: same replacement characters', () => {
    const cases = [
      [0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xc2], [0xc2, 0x41], [0xe0, 0x80, 0x80], [0xe0, 0x9f, 0xbf], [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf], [0xe2, 0x82], [0xf0, 0x80, 0x80, 0x80], [0xf0, 0x8f, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80],
      [0xf0, 0x9f, 0x98], [0xff], [0xfe], [0x41, 0xc3], [0x41, 0xe6, 0x9d, 0x41], [0xf0, 0x9f, 0x98, 0x80, 0x80],
    ];
    for (const bytes of cases) assertSameAsTextDecoder(Uint8Array.from(bytes));
    const random = prng(42);
    for (let i = 0; i < 5000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 70) }, () => (random() < 0.6 ? 0x20 + Math.floor(random() * 0x5f) : Math.floor(random() * 256)));
      assertSameAsTextDecoder(bytes);
    }
  });

  test('drops a leading byte-order mark and keeps one inside the text, as TextDecoder does', () => {
    assertSameAsTextDecoder(Uint8Array.from([0xef, 0xbb, 0xbf, 0x41]));
    assertSameAsTextDecoder(Uint8Array.from([0xef, 0xbb, 0xbf]));
    assertSameAsTextDecoder(Uint8Array.from([0x41, 0xef, 0xbb, 0xbf, 0x42]));
    assert.equal(decodeAt(Uint8Array.from([0xef, 0xbb, 0xbf, 0x41])), 'A');
  });

  test('RecordByteBuffer reads the strings of a FlatBuffers table like flatbuffers’ own ByteBuffer', () => {
    const texts = ['', 'Zürich', 'x'.repeat(64), 'y'.repeat(65), '東京'.repeat(40), '\ufeffBOM first', 'emoji 😀 inside'];
    const builder = new flatbuffers.Builder(256);
    const offsets = texts.map((text) => builder.createString(text));
    builder.startVector(4, offsets.length, 4);
    for (let i = offsets.length - 1; i >= 0; i--) builder.addOffset(offsets[i]!);
    builder.finish(builder.endVector());
    const bytes = builder.asUint8Array();
    const ours = new RecordByteBuffer(bytes);
    const theirs = new flatbuffers.ByteBuffer(bytes);
    const vector = ours.__vector(0); // the root is the vector of strings
    texts.forEach((_, i) => {
      const at = vector + i * 4;
      assert.equal(ours.__string(at), theirs.__string(at), `string ${i}`);
      assert.deepEqual(ours.__string(at, flatbuffers.Encoding.UTF8_BYTES), theirs.__string(at, flatbuffers.Encoding.UTF8_BYTES), `bytes of string ${i}`);
    });
  });
});
