// StringTable: what the builder writes the reader gives back, and the byte-order searches agree
// with brute force over the same strings (Buffer.compare is the oracle for UTF-8 byte order).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArrayPackBuilder } from '../../runtime/format/array-pack.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { compareUtf8, StringTable, StringTableBuilder } from '../../runtime/indexes/string-table.js';
import { ownBuffer, pick, prng } from './helpers.js';

// ASCII, Latin-1, BMP above the surrogates (U+E000–U+FFFF) and astral characters (surrogate
// pairs): the cases where UTF-16 order and UTF-8 byte order part.
const ALPHABET = ['A', 'B', 'Z', '0', '9', ' ', '-', 'é', 'ß', 'Ω', '中', '\uE000', '\uFFFD', '😀', '𝔸'];

function randomStrings(seed: number, count: number): string[] {
  const random = prng(seed);
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = Math.floor(random() * 6);
    let text = '';
    for (let k = 0; k < length; k++) text += pick(random, ALPHABET);
    strings.push(text);
  }
  return strings;
}

function build(strings: readonly string[], shared = false): StringTable {
  const builder = new StringTableBuilder();
  for (const text of strings) builder.add(text);
  return StringTable.from(ownBuffer(builder.finish(), shared), 0, 'test table');
}

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('StringTable', () => {
  it('gives back every string by position, in a plain and in a shared buffer', () => {
    const strings = ['', ...randomStrings(1, 500), ''];
    for (const shared of [false, true]) {
      const table = build(strings, shared);
      assert.equal(table.count, strings.length);
      strings.forEach((text, i) => assert.equal(table.get(i), text));
    }
    assert.equal(build([]).count, 0);
  });

  it('compareUtf8 orders strings as their UTF-8 bytes do', () => {
    const strings = randomStrings(2, 400);
    for (let i = 0; i + 1 < strings.length; i++) {
      const [a, b] = [strings[i]!, strings[i + 1]!];
      assert.equal(Math.sign(compareUtf8(a, b)), Math.sign(byteOrder(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
    assert.ok(compareUtf8('\uE000', '😀') < 0, 'U+E000 sorts before an astral character in UTF-8');
    assert.ok('\uE000' > '😀', 'though not in UTF-16 code units');
  });

  it('lowerBound, upperBound, equalRange and startsWithAt agree with a brute-force scan of any sorted range', () => {
    const random = prng(3);
    const strings = randomStrings(4, 1500).sort(compareUtf8);
    const table = build(strings);
    const probes = [...randomStrings(5, 300), ...strings.slice(0, 100), ''];
    for (const probe of probes) {
      const start = Math.floor(random() * strings.length);
      const end = start + Math.floor(random() * (strings.length - start + 1));
      let lower = start;
      while (lower < end && byteOrder(strings[lower]!, probe) < 0) lower++;
      let upper = lower;
      while (upper < end && byteOrder(strings[upper]!, probe) === 0) upper++;
      assert.equal(table.lowerBound(probe, start, end), lower, `lowerBound(${JSON.stringify(probe)}, ${start}, ${end})`);
      assert.equal(table.upperBound(probe, start, end), upper, `upperBound(${JSON.stringify(probe)}, ${start}, ${end})`);
      assert.deepEqual(table.equalRange(probe, start, end), [lower, upper]);
      const prefix = Buffer.from(probe, 'utf8');
      for (let i = start; i < Math.min(end, start + 20); i++) {
        assert.equal(table.startsWithAt(i, prefix), Buffer.from(strings[i]!, 'utf8').subarray(0, prefix.length).equals(prefix));
        assert.equal(Math.sign(table.compareAt(i, prefix)), Math.sign(byteOrder(strings[i]!, probe)));
      }
    }
  });

  it('refuses a payload whose offsets do not cover its bytes, stating expected vs found', () => {
    const bad = new ArrayPackBuilder().add(Uint32Array.of(0, 3)).add(new Uint8Array(5)).finish();
    assert.throws(() => StringTable.from(ownBuffer(bad), 0, 'keys.postcodes'), {
      name: SnapshotFormatError.name,
      message: 'keys.postcodes: expected the last offset to be the byte count 5, found 3',
    });
    const wrongType = new ArrayPackBuilder().add(Int32Array.of(0)).add(new Uint8Array(0)).finish();
    assert.throws(() => StringTable.from(ownBuffer(wrongType), 0, 'keys.postcodes'), /keys\.postcodes: array 0: expected Uint32Array, found Int32Array/);
  });
});
