// PostcodeFilterIndex: the columns the builder writes come back per row, and the locality
// "contains" match agrees with brute force (matchKey(locality).includes(needle)) for every country.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArrayPack, ArrayPackBuilder } from '../../runtime/format/array-pack.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { localityKeyAt, matchLocalities, matchLocalitiesAmong, PostcodeFilterIndex, PostcodeFilterIndexBuilder, type PostcodeFilterFields } from '../../runtime/indexes/postcode-filter-index.js';
import { matchKey, postcodeTypeKey, stateCodeKey } from '../../runtime/text/normalise.js';
import { ownBuffer, pick, prng } from './helpers.js';

const LOCALITIES = ['São Paulo', 'Zürich', 'Łódź', 'Köln Süd', 'Paulo Afonso', 'North  Paulo', 'Ålesund', '東京', '😀 town', '   ', ''];
const STATE_CODES = ['ny', 'NY', 'Ca', 'BE', ''];
const TYPES = ['Full', 'full', 'Outward', 'PO Box', ''];

interface Row {
  record: PostcodeFilterFields;
  countryRow: number;
}

/** Rows grouped by country row as the snapshot orders them (dangling country -1 last). */
function randomRows(seed: number, count: number): Row[] {
  const random = prng(seed);
  const countries = [0, 3, 4, 7, -1];
  const rows: Row[] = [];
  let id = 1;
  for (const countryRow of countries) {
    const n = Math.floor((random() * 2 * count) / countries.length);
    for (let i = 0; i < n; i++) {
      const maybe = <T>(value: T): T | null => (random() < 0.25 ? null : value);
      rows.push({
        countryRow,
        record: {
          id: id++,
          country_id: countryRow + 100,
          locality_name: maybe(pick(random, LOCALITIES)),
          state_code: maybe(pick(random, STATE_CODES)),
          city_id: maybe(Math.floor(random() * 50)),
          type: maybe(pick(random, TYPES)),
        },
      });
    }
  }
  return rows;
}

function build(rows: readonly Row[]): PostcodeFilterIndex {
  const builder = new PostcodeFilterIndexBuilder();
  for (const { record, countryRow } of rows) builder.add(record, countryRow);
  return PostcodeFilterIndex.from(ownBuffer(builder.finish(), true), rows.length);
}

/** First row of each country group. */
function groupStarts(rows: readonly Row[]): number[] {
  return rows.flatMap((row, i) => (i === 0 || rows[i - 1]!.countryRow !== row.countryRow ? [i] : []));
}

describe('PostcodeFilterIndex', () => {
  const rows = randomRows(11, 600);
  const index = build(rows);

  it('gives back every row’s filter columns, case-folded as the request parser folds them', () => {
    rows.forEach(({ record: r }, row) => {
      assert.equal(index.cityIdByRow[row], r.city_id ?? -1);
      const state = r.state_code === null || r.state_code === '' ? -1 : index.stateCodeValue(stateCodeKey(r.state_code));
      assert.equal(index.stateCodeByRow[row], state);
      if (r.state_code) assert.ok(state >= 0);
      const type = r.type === null || r.type === '' ? 0 : index.typeValue(postcodeTypeKey(r.type));
      assert.equal(index.typeByRow[row], type);
      if (r.type) assert.ok(type > 0);
    });
    assert.equal(index.stateCodeValue('ny'), -1, 'values are looked up by their folded key');
    assert.equal(index.stateCodeValue('ZZ'), -1);
    assert.equal(index.typeValue('nope'), -1);
  });

  it('keeps one locality per distinct matchKey within a country, and each row points at its own', () => {
    for (const start of groupStarts(rows)) {
      const localities = index.localitiesOfRange(start);
      let row = start;
      const seen = new Set<number>();
      for (; row < rows.length && rows[row]!.countryRow === rows[start]!.countryRow; row++) {
        const name = rows[row]!.record.locality_name;
        const locality = index.localityByRow[row]!;
        if (name === null || matchKey(name) === '') {
          assert.equal(locality, -1);
          continue;
        }
        assert.ok(locality >= localities.localityStart && locality < localities.localityEnd);
        assert.equal(localityKeyAt(localities, locality - localities.localityStart), matchKey(name));
        seen.add(locality);
      }
      assert.equal(seen.size, localities.localityEnd - localities.localityStart, 'no locality without a row');
    }
  });

  it('byte and UTF-16 offsets of each locality point at its key in the UTF-8 and the decoded text', () => {
    for (const start of groupStarts(rows)) {
      const localities = index.localitiesOfRange(start);
      const text = new TextDecoder().decode(localities.bytes);
      for (let i = 0; i < localities.byteStart.length; i++) {
        const key = localityKeyAt(localities, i);
        assert.equal(text.slice(localities.charStart[i], text.indexOf('\n', localities.charStart[i])), key);
        assert.equal(localities.bytes.subarray(localities.byteStart[i]).toString('utf8').split('\n')[0], key);
      }
    }
  });

  it('adopts locality byte offsets built elsewhere (shared round trip) and refuses those of another index', () => {
    const shared = index.sharedLocalityByteStarts();
    assert.ok(shared instanceof SharedArrayBuffer);
    const fresh = build(rows);
    fresh.useLocalityByteStarts(shared);
    assert.deepEqual([...fresh.localityByteStarts()], [...index.localityByteStarts()]);
    assert.equal(fresh.localityByteStarts().buffer, shared, 'views of the shared bytes, not a copy');
    const other = build(randomRows(12, 300));
    assert.throws(() => other.useLocalityByteStarts(shared), { name: SnapshotFormatError.name, message: /^locality byte starts: expected header \[layout, localities, text bytes\] \[1,\d+,\d+\] and \d+ starts, found \[1,\d+,\d+\] and \d+$/ });
  });

  it('matchLocalities lists exactly the localities whose key contains the needle, ascending (brute force)', () => {
    // Lone surrogates: UTF-16 matching finds half of an emoji's pair, which UTF-8 cannot express.
    const needles = ['paulo', 'a', 'o', 'sao paulo', 'zurich', 'lodz', '東', '😀', 'koln sud', 'x', 'u', 'n p', '\uD83D', '\uDE00 t', 'ö', '\uFFFD', ''];
    for (const start of groupStarts(rows)) {
      const localities = index.localitiesOfRange(start);
      const keys: string[] = [];
      for (let i = 0; i < localities.charStart.length; i++) keys.push(localityKeyAt(localities, i));
      for (const needle of needles) {
        const matched = matchLocalities(localities, needle);
        const expected = keys.flatMap((key, i) => (key.includes(needle) ? [i] : []));
        if (expected.length === 0) assert.equal(matched, null, `"${needle}": no match`);
        else assert.deepEqual([...matched!], expected, `"${needle}" in country group at row ${start}`);
      }
    }
  });

  it('matchLocalitiesAmong finds, among the matches of a shorter needle, exactly those of the longer one (brute force)', () => {
    const needles = ['paulo', 'sao paulo', 'zurich', 'koln sud', 'n p', '東京', '😀 t', 'lodz', 'x', '\uD83D'];
    for (const start of groupStarts(rows)) {
      const localities = index.localitiesOfRange(start);
      const keys: string[] = [];
      for (let i = 0; i < localities.charStart.length; i++) keys.push(localityKeyAt(localities, i));
      for (const needle of needles) {
        const expected = keys.flatMap((key, i) => (key.includes(needle) ? [i] : []));
        // Among the matches of each shorter prefix, and among every locality.
        for (let cut = 1; cut <= [...needle].length; cut++) {
          const among = matchLocalities(localities, [...needle].slice(0, cut).join('')) ?? new Int32Array(0);
          const matched = matchLocalitiesAmong(localities, needle, among);
          assert.deepEqual(matched === null ? [] : [...matched], expected, `"${needle}" among the matches of its first ${cut} characters`);
        }
      }
    }
  });

  it('refuses rows that are not grouped by country', () => {
    const builder = new PostcodeFilterIndexBuilder();
    const record = (id: number, country_id: number): PostcodeFilterFields => ({ id, country_id, locality_name: null, state_code: null, city_id: null, type: null });
    builder.add(record(1, 10), 0).add(record(2, 11), 1);
    assert.throws(() => builder.add(record(3, 10), 0), {
      message: 'postcodes.filters: expected postcode rows grouped by country row, found country_id 10 again at row 2 (id 3)',
    });
  });

  it('refuses a payload of another layout version or row count, stating expected vs found', () => {
    const builder = new PostcodeFilterIndexBuilder();
    for (const { record, countryRow } of rows.slice(0, 20)) builder.add(record, countryRow);
    const payload = builder.finish();
    assert.throws(() => PostcodeFilterIndex.from(ownBuffer(payload), 21), {
      name: SnapshotFormatError.name,
      message: 'postcodes.filters: expected 21 rows per column, found 20',
    });
    // Same arrays, header says layout 99.
    const pack = ArrayPack.from(ownBuffer(payload));
    const rebuilt = new ArrayPackBuilder().add(Int32Array.of(99));
    for (let i = 1; i < pack.length; i++) rebuilt.add(i === 4 ? pack.get(i, Uint16Array) : i >= 9 ? pack.get(i, Uint8Array) : pack.get(i, Int32Array));
    assert.throws(() => PostcodeFilterIndex.from(ownBuffer(rebuilt.finish()), 20), {
      name: SnapshotFormatError.name,
      message: 'postcodes.filters: expected layout version 1, found 99 (rebuild the snapshot)',
    });
  });
});
