// Structures the main thread builds once for every worker thread (runtime/engine/shared.ts):
// a store opened over the shared bytes answers exactly as one whose thread builds its own, with
// autocomplete and fuzzy searches interleaved (they share one row scratch per thread), and a
// snapshot whose structures cannot be built still opens, each thread building its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { engineFor } from '../../runtime/engine/index.js';
import { POSTCODE_GROUPED_COLUMNS } from '../../runtime/engine/postcodes/engine.js';
import { autocompleteSearch } from '../../runtime/engine/search/autocomplete.js';
import { fuzzySearch } from '../../runtime/engine/search/fuzzy.js';
import { RowRanges, filterRows } from '../../runtime/engine/search/row-filter.js';
import { sharedStructures, withSharedStructures } from '../../runtime/engine/shared.js';
import { SHARED } from '../../runtime/engine/shared-names.js';
import { NAMED_ENTITIES, trigramPlainQuerySection, trigramSection } from '../../runtime/format/sections.js';
import { prepareNameKeys, rowMatchesQ } from '../../runtime/engine/name-keys.js';
import { loadSnapshotBytes } from '../../runtime/store/load.js';
import { openStore } from '../../runtime/store/open.js';
import type { Store } from '../../runtime/store/types.js';
import { matchKey } from '../../runtime/text/normalise.js';
import { prng } from '../support/random.js';
import { typo } from '../support/search-queries.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

type Answer = unknown;

/** Autocomplete and fuzzy answers of `queries`, in the order given (kind, q, country filter). */
function answers(store: Store, queries: readonly [kind: 'a' | 'f', q: string, country: string | null][]): Answer[] {
  const search = engineFor(store).search;
  return queries.map(([kind, q, country]) => {
    const indexes = search.indexes('cities');
    const rows = country === null ? RowRanges.all(store.cities.count) : filterRows(store, 'cities', country, null);
    return kind === 'a' ? autocompleteSearch(indexes, { q, key: matchKey(q), rows, limit: 10 }) : fuzzySearch(indexes, { q, threshold: 0.2, rows, limit: 10 });
  });
}

/** Random autocomplete prefixes and fuzzy typos of city names, some filtered to a country. */
function randomQueries(store: Store, seed: number, count: number): [kind: 'a' | 'f', q: string, country: string | null][] {
  const random = prng(seed);
  const queries: [kind: 'a' | 'f', q: string, country: string | null][] = [];
  while (queries.length < count) {
    const name = store.cities.nameAt(Math.floor(random() * store.cities.count));
    const q = random() < 0.5 ? name.slice(0, 1 + Math.floor(random() * 5)) : typo(random, name);
    if (q.trim().length < 1) continue;
    queries.push([random() < 0.5 ? 'a' : 'f', q, random() < 0.2 ? 'US' : null]);
  }
  return queries;
}

/** The queries answered by `own` grouped by kind (autocomplete first), by `shared` interleaved: the same answers. */
function assertSameAnswers(own: Store, shared: Store, queries: [kind: 'a' | 'f', q: string, country: string | null][]): void {
  const order = queries.map((_, i) => i).sort((a, b) => queries[a]![0].localeCompare(queries[b]![0]) || a - b);
  const expected: Answer[] = [];
  answers(own, order.map((i) => queries[i]!)).forEach((answer, j) => (expected[order[j]!] = answer));
  const got = answers(shared, queries);
  for (let i = 0; i < queries.length; i++) assert.deepEqual(got[i], expected[i], `${queries[i]![0]} ${JSON.stringify(queries[i]![1])}`);
}

describe('shared structures (built once by the main thread)', () => {
  const { dir } = fixtureSnapshot();
  const bytes = loadSnapshotBytes(dir);

  it('travel with the snapshot bytes as SharedArrayBuffers, one per structure', () => {
    const shared = withSharedStructures(bytes, (message) => assert.fail(message));
    assert.equal(shared.sections, bytes.sections, 'the sections themselves are not copied');
    const names = Object.keys(shared.derived ?? {});
    for (const name of [SHARED.trigramLongLists(trigramSection('cities')), SHARED.trigramLongLists(trigramPlainQuerySection('cities')), SHARED.trigramChanged('cities'), SHARED.unchangedCodes('cities'), SHARED.prefixTop('cities'), SHARED.cityKinds, SHARED.nodeKindMasks, SHARED.nodePopulationMaxima('cities'), SHARED.localityByteStarts, ...NAMED_ENTITIES.map(SHARED.nameEntries), ...POSTCODE_GROUPED_COLUMNS.map(SHARED.postcodeRows)]) assert.ok(names.includes(name), name);
    for (const buffer of Object.values(shared.derived!)) assert.ok(buffer instanceof SharedArrayBuffer);
    assert.equal(openStore(bytes).derived(SHARED.cityKinds), null, 'a store over plain bytes has none');
  });

  it('answer searches, city kinds and postcode filters exactly as structures built by the thread itself, searches interleaved', () => {
    const own = openStore(bytes);
    const shared = openStore(withSharedStructures(bytes, (message) => assert.fail(message)));
    assertSameAnswers(own, shared, randomQueries(own, 17, 300));
    const random = prng(18);
    assert.deepEqual(engineFor(shared).search.cityKinds(), engineFor(own).search.cityKinds());
    assert.ok(engineFor(shared).search.cityKinds().buffer instanceof SharedArrayBuffer);
    // Nearby's per-node bounds: the main thread's, equal to the thread's own.
    assert.deepEqual(engineFor(shared).search.nodeCityKindMasks(), engineFor(own).search.nodeCityKindMasks());
    assert.ok(engineFor(shared).search.nodeCityKindMasks().buffer instanceof SharedArrayBuffer);
    for (const entity of ['cities', 'states', 'countries'] as const) {
      assert.deepEqual(engineFor(shared).search.nodePopulationMaxima(entity), engineFor(own).search.nodePopulationMaxima(entity), entity);
      assert.ok(engineFor(shared).search.nodePopulationMaxima(entity).buffer instanceof SharedArrayBuffer, entity);
    }
    // The changed docs' trigram index and the unchanged docs' codes: the main thread's bytes, the same as the thread's own.
    const [ownCities, sharedCities] = [engineFor(own).search.indexes('cities'), engineFor(shared).search.indexes('cities')];
    assert.ok(sharedCities.unchangedCodes.buffer instanceof SharedArrayBuffer);
    assert.deepEqual(sharedCities.unchangedCodes, ownCities.unchangedCodes);
    assert.equal(sharedCities.trigramChanged.docCount, ownCities.trigramChanged.docCount);

    const postcodes = [engineFor(own).postcodes, engineFor(shared).postcodes];
    for (let row = 0; row < own.countries.count; row++) {
      const [start, end] = postcodes[0]!.countryRange(row);
      if (start >= end) continue;
      for (let i = 0; i < 5; i++) {
        const record = own.postcodes.record(start + Math.floor(random() * (end - start)));
        const name = record.locality_name ?? record.code;
        const q = matchKey(name.slice(Math.floor(random() * 2), 2 + Math.floor(random() * 6)));
        if (q === '') continue;
        // Every other one also filtered by the record's state code (the walk of its row group).
        const stateCode = i % 2 === 1 && record.state_code ? record.state_code.toUpperCase() : null;
        const request = { countryRow: row, filters: { q, stateCode, cityId: null, type: null }, afterRow: null, limit: 20 };
        assert.deepEqual(postcodes[1]!.search(request), postcodes[0]!.search(request), `country row ${row}, q ${JSON.stringify(q)}`);
      }
    }
  });

  it('give the lists\' q filter each row\'s name keys from the main thread\'s table: the same matches, a wrong-sized table refused', () => {
    const own = openStore(bytes);
    const derived = sharedStructures(bytes, (message) => assert.fail(message))!;
    const shared = openStore({ ...bytes, derived });
    for (const entity of NAMED_ENTITIES) {
      const count = own[entity].count;
      assert.equal(derived[SHARED.nameEntries(entity)]!.byteLength, 8 * count, entity);
      for (const key of ['', 'a', 'an', 'san', 'ü', 'zzzq']) {
        for (let row = 0; row < count; row++) assert.equal(rowMatchesQ(shared, entity, row, key), rowMatchesQ(own, entity, row, key), `${entity} row ${row} ${JSON.stringify(key)}`);
      }
      const wrong = openStore({ ...bytes, derived: { ...derived, [SHARED.nameEntries(entity)]: new SharedArrayBuffer(8 * count + 8) } });
      assert.throws(() => prepareNameKeys(wrong, entity), { message: `${SHARED.nameEntries(entity)}: expected ${8 * count} bytes (2 entries of ${count} rows), found ${8 * count + 8}` });
    }
  });

  it('are taken by a store opened without them (a server\'s start), which keeps what its thread built meanwhile', () => {
    const derived = sharedStructures(bytes, (message) => assert.fail(message))!;
    const store = openStore(bytes);
    // Built by this thread before the main thread's arrive: stays its own.
    const ownKinds = engineFor(store).search.cityKinds();
    assert.ok(!(ownKinds.buffer instanceof SharedArrayBuffer));
    store.adoptDerived(derived);
    assert.equal(engineFor(store).search.cityKinds(), ownKinds);
    for (const [name, buffer] of Object.entries(derived)) assert.equal(store.derived(name), buffer, name);
    // The rest is read on first use: the shared ones, with the same answers.
    assertSameAnswers(openStore(bytes), store, randomQueries(store, 19, 100));
    assert.equal(openStore(bytes).derived(SHARED.cityKinds), null, 'the bytes themselves are not changed');
  });

  it('are left out, with the reason logged, when they cannot be built: each thread then builds its own', () => {
    const broken = { ...bytes, sections: { ...bytes.sections, [trigramSection('cities')]: new SharedArrayBuffer(8) } };
    const logged: string[] = [];
    const result = withSharedStructures(broken, (message) => logged.push(message));
    assert.equal(result.derived, undefined);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^shared structures: trigram\.cities: .*; each thread builds its own$/);
  });

  it('answer the full dataset’s searches exactly as structures built by the thread itself (bitmaps and PrefixTop in use)', { skip: fullDatasetSkip() }, () => {
    const full = loadSnapshotBytes(fullSnapshot().dir);
    const own = openStore(full);
    const shared = openStore(withSharedStructures(full, (message) => assert.fail(message)));
    assertSameAnswers(own, shared, randomQueries(own, 19, 400));
  });
});
