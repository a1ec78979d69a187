import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadSource, writeLoadedSnapshot, type LoadedSource } from '../../build-index/build.js';
import { formatSummary } from '../../build-index/summary.js';
import { ENTITY_NAMES, type EntityName } from '../../runtime/format/model.js';
import { StringTable } from '../../runtime/indexes/string-table.js';
import { loadStore } from '../../runtime/store/index.js';
import type { EntityTable, Store } from '../../runtime/store/types.js';
import { matchKey, postcodeKey } from '../../runtime/text/normalise.js';
import { fixtureDir, fullDatasetDir, fullDatasetSkip, requireFullDataset, tempDir } from '../build-index/support.js';

function buildAndLoad(source: string): { loaded: LoadedSource; store: Store; summary: string; cleanup: () => void } {
  const { dir, cleanup } = tempDir();
  const loaded = loadSource(source);
  const result = writeLoadedSnapshot(loaded, { out: join(dir, 'snap') });
  return { loaded, store: loadStore(join(dir, 'snap')), summary: formatSummary(result), cleanup };
}

/** Field-by-field comparison (fast enough for 900k records); reports the first difference. */
function assertRecordsEqual(entity: EntityName, table: EntityTable<object>, expected: readonly object[]): void {
  assert.equal(table.count, expected.length, `${entity} count`);
  for (let row = 0; row < expected.length; row++) {
    const want = expected[row] as Record<string, unknown>;
    const got = table.record(row) as Record<string, unknown>;
    const keys = Object.keys(want);
    if (Object.keys(got).length !== keys.length || keys.some((k) => got[k] !== want[k])) {
      assert.deepEqual(got, want, `${entity} row ${row}`);
    }
    if (table.idAt(row) !== want.id) assert.fail(`${entity} idAt(${row}): expected ${want.id}, found ${table.idAt(row)}`);
    if (table.rowById(want.id as number) !== row) assert.fail(`${entity} rowById(${want.id}): expected ${row}, found ${table.rowById(want.id as number)}`);
    const name = (want.name ?? want.code) as string;
    if (table.nameAt(row) !== name) assert.fail(`${entity} nameAt(${row}): expected ${name}, found ${table.nameAt(row)}`);
  }
}

/** Brute-force oracle for the relations section: recompute everything from the records. */
function assertRelations(store: Store, loaded: LoadedSource): void {
  const ds = loaded.dataset;
  const rel = store.relations;
  const rowOf = (list: readonly { id: number }[]) => new Map(list.map((r, row) => [r.id, row]));
  const countryRow = rowOf(ds.countries);
  const stateRow = rowOf(ds.states);
  const cityRow = rowOf(ds.cities);
  const regionRow = rowOf(ds.regions);
  const subregionRow = rowOf(ds.subregions);
  const parent = (map: Map<number, number>, id: number | null) => (id === null ? -1 : map.get(id) ?? -1);

  ds.states.forEach((s, row) => assert.equal(rel.stateCountryRow[row], parent(countryRow, s.country_id), `state row ${row}`));
  ds.cities.forEach((c, row) => {
    assert.equal(rel.cityCountryRow[row], parent(countryRow, c.country_id));
    const state = parent(stateRow, c.state_id);
    assert.equal(rel.cityStateRow[row], state >= 0 && ds.states[state]!.country_id === c.country_id ? state : -1);
    assert.equal(rel.cityPopulation[row], c.population ?? -1);
  });
  ds.countries.forEach((c, row) => {
    assert.equal(rel.countrySubregionRow[row], parent(subregionRow, c.subregion_id));
    assert.equal(rel.countryPopulation[row], c.population ?? -1);
  });
  ds.subregions.forEach((s, row) => assert.equal(rel.subregionRegionRow[row], parent(regionRow, s.region_id)));

  // Every child lies in its parent's range, and the ranges hold nothing else (linear check).
  const assertRanges = (what: string, ranges: { start: Int32Array; end: Int32Array }, parentOfChild: (row: number) => number, children: number) => {
    let linked = 0;
    for (let row = 0; row < children; row++) {
      const p = parentOfChild(row);
      if (p < 0) continue;
      linked++;
      if (!(ranges.start[p]! <= row && row < ranges.end[p]!)) assert.fail(`${what}: row ${row} outside its parent ${p}'s range [${ranges.start[p]}, ${ranges.end[p]})`);
    }
    let covered = 0;
    for (let p = 0; p < ranges.start.length; p++) covered += ranges.end[p]! - ranges.start[p]!;
    assert.equal(covered, linked, `${what}: ranges cover exactly the linked children`);
  };
  assertRanges('countryStates', rel.countryStates, (r) => parent(countryRow, ds.states[r]!.country_id), ds.states.length);
  assertRanges('countryCities', rel.countryCities, (r) => parent(countryRow, ds.cities[r]!.country_id), ds.cities.length);
  assertRanges('stateCities', rel.stateCities, (r) => rel.cityStateRow[r]!, ds.cities.length);
  assertRanges('countryPostcodes', rel.countryPostcodes, (r) => parent(countryRow, ds.postcodes[r]!.country_id), ds.postcodes.length);
}

function assertOrder(store: Store): void {
  const byName = (table: EntityTable<{ id: number }>, group: (row: number) => number[]) => {
    for (let row = 1; row < table.count; row++) {
      const a = [...group(row - 1), 0];
      const b = [...group(row), 0];
      const cmp = a.findIndex((v, i) => v !== b[i]);
      if (cmp >= 0 && cmp < a.length - 1) {
        assert.ok(a[cmp]! < b[cmp]!, `${row}: groups out of order`);
        continue;
      }
      const ka = matchKey(table.nameAt(row - 1));
      const kb = matchKey(table.nameAt(row));
      assert.ok(ka < kb || (ka === kb && (table.nameAt(row - 1) < table.nameAt(row) || (table.nameAt(row - 1) === table.nameAt(row) && table.idAt(row - 1) < table.idAt(row)))), `row ${row}: ${table.nameAt(row - 1)} before ${table.nameAt(row)}`);
    }
  };
  const rel = store.relations;
  const last = (v: number) => (v < 0 ? 0x7fffffff : v);
  byName(store.countries, () => []);
  byName(store.states, (r) => [last(rel.stateCountryRow[r]!)]);
  byName(store.cities, (r) => [last(rel.cityCountryRow[r]!), last(rel.cityStateRow[r]!)]);
}

function assertPostcodeKeys(store: Store): void {
  const keys = StringTable.from(store.section('keys.postcodes'), 0, 'keys.postcodes');
  assert.equal(keys.count, store.postcodes.count);
  const rel = store.relations;
  for (let c = 0; c < store.countries.count; c++) {
    const start = rel.countryPostcodes.start[c]!;
    const end = rel.countryPostcodes.end[c]!;
    for (let row = start; row < end; row++) {
      assert.equal(keys.get(row), postcodeKey(store.postcodes.nameAt(row)));
      if (row > start) assert.ok(keys.get(row - 1) <= keys.get(row), `postcode keys sorted at row ${row}`);
    }
  }
}

describe('snapshot round trip (fixture)', () => {
  const { loaded, store, cleanup } = buildAndLoad(fixtureDir);
  after(cleanup);

  test('every record reads back equal to its normalised source', () => {
    for (const entity of ENTITY_NAMES) assertRecordsEqual(entity, store[entity] as EntityTable<object>, loaded.dataset[entity]);
  });

  test('relations and ranges match a brute-force recomputation', () => assertRelations(store, loaded));

  test('rows are in the documented order', () => {
    assertOrder(store);
    assert.deepEqual(Array.from({ length: store.countries.count }, (_, r) => store.countries.nameAt(r)), ['Brazil', 'Fiji Islands', 'Norway', 'The Bahamas', 'United Kingdom', 'United States']);
  });

  test('postcode keys follow the rows and are sorted within each country', () => {
    assertPostcodeKeys(store);
    const keys = StringTable.from(store.section('keys.postcodes'));
    const no = store.countries.rowById(165);
    const [first, last] = keys.equalRange('9170', store.relations.countryPostcodes.start[no], store.relations.countryPostcodes.end[no]);
    assert.deepEqual([first, last].map((r) => store.postcodes.idAt(r)).slice(0, 1), [345446]);
    assert.equal(last - first, 2);
    const gb = store.countries.rowById(232);
    const [sw] = keys.equalRange('SW1A1AA', store.relations.countryPostcodes.start[gb], store.relations.countryPostcodes.end[gb]);
    assert.equal(store.postcodes.nameAt(sw), 'SW1A 1AA');
  });

  test('unknown ids and out-of-range rows are answered, not crashed on', () => {
    assert.equal(store.cities.rowById(-5), -1);
    assert.equal(store.cities.rowById(99_999_999), -1);
    assert.equal(store.cities.rowById(1.5), -1);
    assert.throws(() => store.cities.record(store.cities.count), RangeError);
    assert.equal(store.hasSection('relations'), true);
    assert.equal(store.hasSection('nope'), false);
  });
});

describe('snapshot round trip (full dataset)', { skip: fullDatasetSkip() }, () => {
  test('builds the documented counts and reads every record back', () => {
    requireFullDataset();
    const { loaded, store, summary, cleanup } = buildAndLoad(fullDatasetDir);
    try {
      assert.match(summary, /records +regions 6 · subregions 22 · countries 250 · states 5,308 · cities 152,970 · postcodes 751,764/);
      assert.match(summary, /city rows without id \(skipped\): 7\n +cities\/CU\.json: 5 city row\(s\) without id skipped: "Playa", "Plaza de la Revolución", "Marianao", "La Lisa", "Cotorro"\n +cities\/GB\.json: 2 city row\(s\) without id skipped: "Uxbridge", "Twickenham"/);
      assert.deepEqual(store.manifest.recordCounts, { regions: 6, subregions: 22, countries: 250, states: 5308, cities: 152970, postcodes: 751764 });
      const skipped = loaded.diagnostics.warnings.find((g) => g.kind === 'city rows without id (skipped)');
      assert.equal(skipped?.count, 7);
      for (const entity of ENTITY_NAMES) assertRecordsEqual(entity, store[entity] as EntityTable<object>, loaded.dataset[entity]);
      assertRelations(store, loaded);
      assertOrder(store);
      assertPostcodeKeys(store);
    } finally {
      cleanup();
    }
  });
});
