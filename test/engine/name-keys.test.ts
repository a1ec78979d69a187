import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowMatchesQ, type NamedEntity } from '../../runtime/engine/name-keys.js';
import type { Store } from '../../runtime/store/types.js';
import { matchKey } from '../../runtime/text/normalise.js';
import { prng } from '../indexes/helpers.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

const ENTITIES: readonly NamedEntity[] = ['regions', 'subregions', 'countries', 'states', 'cities'];

/** The filter as it was first written: each row's record decoded, its name and native folded, then String.includes. */
function bruteMatches(store: Store, entity: NamedEntity, row: number, key: string): boolean {
  const record = store[entity].record(row) as { name: string; native?: string | null };
  const native = record.native ? matchKey(record.native) : '';
  return matchKey(record.name).includes(key) || (native !== '' && native.includes(key));
}

/** Keys to filter by: pieces of the entity's own names and natives (every row then matches some), and a few that match none. */
function sampleKeys(store: Store, entity: NamedEntity, seed: number, perRow: number, rows: number): Set<string> {
  const random = prng(seed);
  const keys = new Set(['', 'a', 'an', 'zzzq', 'ü', '東', 'ос', ' ']);
  const table = store[entity];
  for (let n = 0; n < Math.min(rows, table.count); n++) {
    const record = table.record(Math.floor(random() * table.count)) as { name: string; native?: string | null };
    for (let i = 0; i < perRow; i++) {
      const chars = [...matchKey(random() < 0.7 || !record.native ? record.name : record.native)];
      const from = Math.floor(random() * chars.length);
      keys.add(chars.slice(from, from + 1 + Math.floor(random() * 5)).join(''));
    }
  }
  return keys;
}

describe('rowMatchesQ (the lists\' q filter)', () => {
  it('matches the same rows as folding each record\'s name and native, for every entity of the fixture', () => {
    const { store } = fixtureSnapshot();
    for (const entity of ENTITIES) {
      for (const key of sampleKeys(store, entity, 21, 3, 200)) {
        for (let row = 0; row < store[entity].count; row++) {
          assert.equal(rowMatchesQ(store, entity, row, key), bruteMatches(store, entity, row, key), `${entity} row ${row}, key ${JSON.stringify(key)}`);
        }
      }
    }
  });

  it('matches the same rows as folding each record, over the full dataset\'s states and a sample of its cities', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    const random = prng(22);
    for (const entity of ['countries', 'states', 'cities'] as const) {
      const keys = [...sampleKeys(store, entity, 23, 2, 40)];
      const count = store[entity].count;
      // Every row for the small tables; for the cities, 4,000 random rows per key.
      const rows = count <= 10_000 ? Array.from({ length: count }, (_, row) => row) : Array.from({ length: 4000 }, () => Math.floor(random() * count));
      for (const key of keys) {
        for (const row of rows) assert.equal(rowMatchesQ(store, entity, row, key), bruteMatches(store, entity, row, key), `${entity} row ${row}, key ${JSON.stringify(key)}`);
      }
      assert.ok(keys.length > 20, `${entity}: ${keys.length} keys`);
    }
  });
});
