// PrefixTop (runtime/engine/search/prefix-top.ts) hands out the distinct rows of any prefix-index
// range in rank order (prominence desc, id asc): checked against sorting the whole range, for
// every one- and two-character prefix of the fixture's city keys and for arbitrary sub-ranges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchContext } from '../../runtime/engine/search/context.js';
import { PrefixTop } from '../../runtime/engine/search/prefix-top.js';
import { RowRanges } from '../../runtime/engine/search/row-filter.js';
import { PREFIX_FIELD_NAME, PREFIX_FIELD_NATIVE, PrefixIndex, PrefixIndexBuilder, type PrefixField } from '../../runtime/indexes/prefix-index.js';
import { fixtureSnapshot } from '../support/snapshots.js';
import { prng } from '../support/random.js';

/**
 * A prefix index over random words (1 to maxLength of `letters`), each row's entries given by
 * `entriesOf`, and a PrefixTop ranking its rows by a prominence with many ties (-1 for 30 %), then id.
 */
function randomRanking(random: () => number, rowCount: number, letters: string, maxLength: number, prominences: number, entriesOf: (word: () => string) => [string, PrefixField][]) {
  const word = () => Array.from({ length: 1 + Math.floor(random() * maxLength) }, () => letters[Math.floor(random() * letters.length)]).join('');
  const builder = new PrefixIndexBuilder();
  for (let row = 0; row < rowCount; row++) for (const [key, field] of entriesOf(word)) builder.add(key, row, field);
  const prefix = PrefixIndex.from(builder.finish().buffer);
  const prominence = Float64Array.from({ length: rowCount }, () => (random() < 0.3 ? -1 : Math.floor(random() * prominences)));
  const ids = Int32Array.from({ length: rowCount }, (_, row) => (row * 7919) % 100003);
  const built = PrefixTop.build(prefix, rowCount, prominence, (row) => ids[row]!)!;
  const rank = (a: number, b: number) => prominence[b]! - prominence[a]! || ids[a]! - ids[b]!;
  return { prefix, built, rank };
}

describe('PrefixTop', () => {
  it('returns the best-ranked distinct rows of a range, as sorting the range would', () => {
    const { store } = fixtureSnapshot();
    const indexes = searchContext(store).indexes('cities');
    const top = PrefixTop.build(indexes.prefix, indexes.rowCount, indexes.prominence, indexes.idAt);
    assert.ok(top);
    const rank = (a: number, b: number) => indexes.prominence[b]! - indexes.prominence[a]! || indexes.idAt(a) - indexes.idAt(b);
    const expected = (from: number, to: number, skip: Set<number>) => {
      const rows = new Set<number>();
      for (let i = from; i < to; i++) if (!skip.has(indexes.prefix.row(i))) rows.add(indexes.prefix.row(i));
      return [...rows].sort(rank);
    };
    const check = (from: number, to: number, wanted: number, skip: Set<number>) => {
      const got: number[] = [];
      const n = top.eachBest(from, to, wanted, (row) => skip.has(row) || got.includes(row), (row) => got.push(row));
      assert.equal(n, got.length);
      assert.deepEqual(got, expected(from, to, skip).slice(0, wanted), `range [${from}, ${to}) wanted ${wanted}`);
    };
    const prefixes = new Set<string>();
    for (let i = 0; i < indexes.prefix.count; i++) {
      const key = indexes.prefix.key(i);
      prefixes.add([...key].slice(0, 1).join('')).add([...key].slice(0, 2).join(''));
    }
    for (const prefix of prefixes) {
      const [from, to] = indexes.prefix.range(prefix);
      for (const wanted of [1, 3, 10, 1000]) check(from, to, wanted, new Set());
    }
    const random = prng(5);
    const count = indexes.prefix.count;
    for (let t = 0; t < 300; t++) {
      const from = Math.floor(random() * count);
      const to = from + Math.floor(random() * (count - from + 1));
      const skip = new Set<number>(Array.from({ length: 5 }, () => indexes.prefix.row(Math.floor(random() * count))));
      check(from, to, 1 + Math.floor(random() * 20), skip);
    }
    for (let row = 0; row < indexes.rowCount; row++) {
      for (const i of top.entriesOf(row)) assert.equal(indexes.prefix.row(i), row);
      // The request path's form, without a view: the same entries.
      const entries: number[] = [];
      for (let j = top.entriesStart(row); j < top.entriesStart(row + 1); j++) entries.push(top.entryAt(j));
      assert.deepEqual(entries, [...top.entriesOf(row)]);
    }
  });

  it('answers ranges spanning many blocks, with tied prominence, as sorting the range would', () => {
    const random = prng(9);
    const rowCount = 6000;
    const { prefix, built, rank } = randomRanking(random, rowCount, 'abc', 6, 50, (word) => {
      if (random() < 0.5) return [[word(), PREFIX_FIELD_NAME], [word(), PREFIX_FIELD_NATIVE]];
      return [[word(), PREFIX_FIELD_NAME]];
    });
    // What the workers read: the main thread's PrefixTop through its shared bytes (round trip).
    const top = PrefixTop.from(prefix, rowCount, built.shared());
    for (let t = 0; t < 400; t++) {
      const from = Math.floor(random() * prefix.count);
      const to = from + Math.floor(random() * (prefix.count - from + 1));
      const wanted = 1 + Math.floor(random() * 30);
      const rows = new Set<number>();
      for (let i = from; i < to; i++) rows.add(prefix.row(i));
      const got: number[] = [];
      top.eachBest(from, to, wanted, (row) => got.includes(row), (row) => got.push(row));
      assert.deepEqual(got, [...rows].sort(rank).slice(0, wanted), `range [${from}, ${to}) of ${prefix.count}`);
    }
    for (let row = 0; row < rowCount; row++) assert.deepEqual([...top.entriesOf(row)], [...built.entriesOf(row)]);
  });

  it('returns the best-ranked distinct rows of a range among the rows a filter allows, as sorting them would', () => {
    const random = prng(13);
    const rowCount = 5000;
    const { prefix, built: top, rank } = randomRanking(random, rowCount, 'ab', 7, 40, (word) => {
      const entries: [string, PrefixField][] = [[word(), PREFIX_FIELD_NAME]];
      // Some rows twice in a range: a native with the same key as the name, or another one.
      if (random() < 0.5) entries.push([random() < 0.5 ? word() : 'ab', PREFIX_FIELD_NATIVE]);
      if (random() < 0.1) entries.push(['ab', PREFIX_FIELD_NAME]);
      return entries;
    });
    /** `count` disjoint row ranges (RowRanges' contract), small or large. */
    const rangesOfRows = (count: number): [number, number][] => {
      const width = random() < 0.5 ? 40 : 2000;
      const cuts = Array.from({ length: 2 * count }, () => Math.floor(random() * width)).sort((a, b) => a - b);
      const base = Math.floor(random() * (rowCount - width));
      return Array.from({ length: count }, (_, i) => [base + cuts[2 * i]!, base + cuts[2 * i + 1]! + 1] as [number, number]).filter(([start], i, all) => i === 0 || start >= all[i - 1]![1]);
    };
    for (let t = 0; t < 500; t++) {
      const from = Math.floor(random() * prefix.count);
      const to = from + Math.floor(random() * (prefix.count - from + 1));
      const wanted = 1 + Math.floor(random() * 50);
      // A country (one range), or a state code naming several states (a few ranges).
      const allowed = new RowRanges(rangesOfRows(random() < 0.7 ? 1 : 2 + Math.floor(random() * 3)));
      const skip = new Set<number>(Array.from({ length: 8 }, () => prefix.row(from + Math.floor(random() * Math.max(1, to - from)))));
      const rows = new Set<number>();
      for (let i = from; i < to; i++) if (allowed.has(prefix.row(i)) && !skip.has(prefix.row(i))) rows.add(prefix.row(i));
      const got: number[] = [];
      const n = top.eachBestAllowed(from, to, wanted, allowed, (row) => skip.has(row), (row) => got.push(row));
      assert.equal(n, got.length);
      assert.deepEqual(got, [...rows].sort(rank).slice(0, wanted), `range [${from}, ${to}) of ${prefix.count}, wanted ${wanted}`);
    }
  });

  it('refuses shared bytes built for another prefix index or row count, stating expected vs found', () => {
    const builder = new PrefixIndexBuilder();
    for (let row = 0; row < 100; row++) builder.add(`name${row}`, row, PREFIX_FIELD_NAME);
    const prefix = PrefixIndex.from(builder.finish().buffer);
    const prominence = new Float64Array(100).fill(1);
    const shared = PrefixTop.build(prefix, 100, prominence, (row) => row)!.shared();
    assert.throws(() => PrefixTop.from(prefix, 101, shared), { name: 'SnapshotFormatError', message: 'prefix top: expected header [layout, rows, entries, block] [1,101,100,32], found [1,100,100,32]' });
    const smaller = new PrefixIndexBuilder();
    for (let row = 0; row < 99; row++) smaller.add(`name${row}`, row, PREFIX_FIELD_NAME);
    assert.throws(() => PrefixTop.from(PrefixIndex.from(smaller.finish().buffer), 100, shared), { message: 'prefix top: expected header [layout, rows, entries, block] [1,100,99,32], found [1,100,100,32]' });
  });
});
