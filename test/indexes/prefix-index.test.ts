import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { PREFIX_FIELD_NAME, PREFIX_FIELD_NATIVE, PREFIX_FIELD_TRANSLATION, PrefixIndex, PrefixIndexBuilder, type PrefixField } from '../../runtime/indexes/prefix-index.js';
import { matchKey } from '../../runtime/text/normalise.js';
import { fullDatasetCities, ownBuffer, pick, prng } from './helpers.js';

interface Entry {
  key: string;
  row: number;
  field: PrefixField;
}

function build(entries: Entry[]): PrefixIndex {
  const builder = new PrefixIndexBuilder();
  for (const e of entries) builder.add(e.key, e.row, e.field);
  return PrefixIndex.from(ownBuffer(builder.finish()));
}

const entryId = (e: Entry) => `${e.row}/${e.field}/${e.key}`;

/** The entries of range(prefix), as brute force finds them with startsWith. */
function assertRange(index: PrefixIndex, entries: Entry[], prefix: string): void {
  const [start, end] = index.range(prefix);
  const found = new Set<string>();
  for (let i = start; i < end; i++) {
    const e = { key: index.key(i), row: index.row(i), field: index.field(i) };
    assert.ok(e.key.startsWith(prefix), `range(${JSON.stringify(prefix)}) holds ${JSON.stringify(e.key)}`);
    assert.equal(index.isExact(i, prefix), e.key === prefix);
    found.add(entryId(e));
  }
  const expected = new Set(entries.filter((e) => e.key !== '' && e.key.startsWith(prefix)).map(entryId));
  assert.equal(end - start, expected.size, `range(${JSON.stringify(prefix)}): entry count (duplicates removed)`);
  assert.deepEqual(found, expected);
  const [exactStart, exactEnd] = index.exactRange(prefix);
  assert.equal(exactStart, start);
  const exact = entries.filter((e) => e.key === prefix && e.key !== '');
  assert.equal(exactEnd - exactStart, new Set(exact.map(entryId)).size, `exactRange(${JSON.stringify(prefix)})`);
}

const SAMPLE_WORDS = ['san', 'sant', 'santa', 'santa ana', 'santo', 'são', 'sao paulo', 'saint', 'zurich', 'zürich', 'москва', 'мос', '東京', '東', 'a', 'ab', 'abc', '🏙 x', '\u{10000}z', '\uffffy'];

describe('PrefixIndex', () => {
  it('round-trips: every entry reads back with its key, row and field, sorted by key bytes then row then field', () => {
    const entries: Entry[] = [
      { key: 'zurich', row: 3, field: PREFIX_FIELD_NAME },
      { key: 'zurich', row: 1, field: PREFIX_FIELD_NATIVE },
      { key: 'zurich', row: 1, field: PREFIX_FIELD_NAME },
      { key: 'москва', row: 0, field: PREFIX_FIELD_TRANSLATION },
      { key: 'a', row: 9, field: PREFIX_FIELD_NAME },
    ];
    const index = build(entries);
    assert.equal(index.count, 5);
    const read = Array.from({ length: index.count }, (_, i) => [index.key(i), index.row(i), index.field(i), index.keyLength(i)]);
    assert.deepEqual(read, [
      ['a', 9, 0, 1],
      ['zurich', 1, 0, 6],
      ['zurich', 1, 1, 6],
      ['zurich', 3, 0, 6],
      ['москва', 0, 2, 12],
    ]);
    const again = PrefixIndex.from(ownBuffer(new PrefixIndexBuilder().add('a', 9, 0).add('zurich', 1, 0).add('zurich', 1, 1).add('zurich', 3, 0).add('москва', 0, 2).finish(), true));
    assert.deepEqual(again.range('zu'), index.range('zu'));
  });

  it('keeps one entry per identical (key, row, field) and ignores empty keys', () => {
    const index = build([
      { key: 'lima', row: 1, field: 0 },
      { key: 'lima', row: 1, field: 0 },
      { key: 'lima', row: 1, field: 2 },
      { key: '', row: 2, field: 0 },
    ]);
    assert.equal(index.count, 2);
  });

  it('orders keys by UTF-8 bytes (code points), so astral keys sort after U+FFFF', () => {
    const index = build([
      { key: '\u{10000}', row: 0, field: 0 },
      { key: '\uffff', row: 1, field: 0 },
    ]);
    assert.deepEqual([index.key(0), index.key(1)], ['\uffff', '\u{10000}']);
  });

  it('finds exact matches at the head of their prefix range', () => {
    const index = build([
      { key: 'santa ana', row: 1, field: 0 },
      { key: 'santa', row: 7, field: 1 },
      { key: 'santa', row: 2, field: 0 },
      { key: 'sant', row: 5, field: 0 },
    ]);
    assert.deepEqual(index.exactRange('santa'), [1, 3]);
    assert.deepEqual(index.range('santa'), [1, 4]);
    assert.deepEqual(index.range('x'), [4, 4]);
    assert.deepEqual(index.range(''), [0, 4]);
    assert.equal(index.isExact(1, 'santa'), true);
    assert.equal(index.isExact(3, 'santa'), false);
  });

  it('finds the same entries as startsWith over random keys and prefixes', () => {
    const random = prng(11);
    const entries: Entry[] = [];
    for (let i = 0; i < 3000; i++) {
      const base = pick(random, SAMPLE_WORDS);
      const key = random() < 0.5 ? base : base + pick(random, ['', ' ', 'a', 'o', 'ñ', '-x', '東']);
      entries.push({ key, row: Math.floor(random() * 500), field: pick(random, [0, 1, 2] as const) });
    }
    const index = build(entries);
    const prefixes = new Set(['', 's', 'sa', 'san', 'sant', 'santa ', 'sã', 'x', 'zz', '\uffff', '\u{10000}', 'мо', '東', 'a', 'ab']);
    for (const e of entries.slice(0, 200)) for (let n = 1; n <= [...e.key].length; n++) prefixes.add([...e.key].slice(0, n).join(''));
    for (const prefix of prefixes) assertRange(index, entries, prefix);
  });

  it('finds the keys that contain a probe as String.includes does, over random keys and probes', () => {
    const random = prng(13);
    const entries: Entry[] = [];
    for (let row = 0; row < 800; row++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, SAMPLE_WORDS));
      entries.push({ key: words.join(pick(random, [' ', '-', ''])), row, field: PREFIX_FIELD_NAME });
    }
    const index = build(entries);
    const probes = new Set(['s', 'an', 'sa', 'ant', 'a s', 'ão', 'ü', 'ос', '東', '🏙', '\u{10000}', '\uffff', 'zurichzurich', 'x']);
    for (const e of entries.slice(0, 60)) {
      const chars = [...e.key];
      const from = Math.floor(random() * chars.length);
      probes.add(chars.slice(from, from + 1 + Math.floor(random() * 4)).join(''));
    }
    for (const probe of probes) {
      for (let i = 0; i < index.count; i++) assert.equal(index.keyContains(i, probe), index.key(i).includes(probe), `${JSON.stringify(index.key(i))} contains ${JSON.stringify(probe)}`);
    }
  });

  it("finds each row's name and native entry, and refuses a translation or a second entry of a field", () => {
    const entries: Entry[] = [
      { key: 'oslo', row: 2, field: PREFIX_FIELD_NAME },
      { key: 'москва', row: 0, field: PREFIX_FIELD_NATIVE },
      { key: 'moscow', row: 0, field: PREFIX_FIELD_NAME },
      { key: 'wien', row: 4, field: PREFIX_FIELD_NATIVE },
    ];
    const index = build(entries);
    const byRow = index.entriesByRow(5);
    for (let row = 0; row < 5; row++) {
      for (const field of [PREFIX_FIELD_NAME, PREFIX_FIELD_NATIVE]) {
        const at = byRow[2 * row + field]!;
        const entry = entries.find((e) => e.row === row && e.field === field);
        if (entry === undefined) assert.equal(at, -1, `row ${row} field ${field}: none`);
        else assert.deepEqual([index.key(at), index.row(at), index.field(at)], [entry.key, row, field]);
      }
    }
    assert.throws(() => index.entriesByRow(3), SnapshotFormatError, 'a row beyond the count');
    assert.throws(() => build([...entries, { key: 'moskau', row: 0, field: PREFIX_FIELD_TRANSLATION }]).entriesByRow(5), SnapshotFormatError);
    assert.throws(() => build([...entries, { key: 'oslo by', row: 2, field: PREFIX_FIELD_NAME }]).entriesByRow(5), SnapshotFormatError);
  });

  it('refuses a payload that is not a prefix index', () => {
    assert.throws(() => PrefixIndex.from(new ArrayBuffer(8)), SnapshotFormatError);
    assert.throws(() => new PrefixIndexBuilder().add('a', -1, 0), RangeError);
    assert.throws(() => new PrefixIndexBuilder().add('a', 1, 3 as PrefixField), RangeError);
  });

  it('answers as startsWith over the full dataset’s city names and natives', (t) => {
    const cities = fullDatasetCities();
    if (!cities) return t.skip('full dataset absent');
    const entries: Entry[] = [];
    cities.forEach((c, row) => {
      entries.push({ key: matchKey(c.name), row, field: 0 });
      if (c.native) entries.push({ key: matchKey(c.native), row, field: 1 });
    });
    const index = build(entries);
    const random = prng(12);
    for (let i = 0; i < 25; i++) {
      const key = pick(random, entries).key;
      const chars = [...key];
      assertRange(index, entries, chars.slice(0, 1 + Math.floor(random() * Math.min(chars.length, 6))).join(''));
    }
    assertRange(index, entries, 'sa');
    assertRange(index, entries, 'new york');
  });
});
