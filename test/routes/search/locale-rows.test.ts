// Autocomplete and nearby with `locale` write their results from the row bytes (localized_name,
// matched_locale and the label from the row's name, native and translations): the same bytes as
// the records' path (each result decoded and serialised), which a store without row bytes takes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SearchEntity } from '../../../runtime/engine/search/context.js';
import { bodyOf } from '../../../runtime/routes/types.js';
import type { Store } from '../../../runtime/store/types.js';
import { contextFor } from '../reference/support/context.js';
import { fixtureStore, operation, prng } from './support.js';

const ENTITIES: readonly SearchEntity[] = ['cities', 'states', 'countries'];
const TYPES = ['city', 'state', 'country'] as const;
// A translation's own key, a base language or a variant, no translation (native, else the name), English.
const LOCALES = ['fr', 'de', 'pt-BR', 'pt', 'zh', 'ja', 'xx', 'en', 'FR-ca'];

/** The same store whose search tables have no row bytes: every result is decoded and serialised. */
function recordsOnly(store: Store): Store {
  const tables: PropertyDescriptorMap = {};
  for (const entity of ENTITIES) tables[entity] = { value: Object.create(store[entity], { rowBytes: { value: null } }) };
  return Object.create(store, tables) as Store;
}

function body(store: Store, name: 'autocomplete' | 'nearbySearch', query: Record<string, string>): string {
  const op = operation(name);
  return String(bodyOf(op.handle(contextFor(store, op, { plan: 'business', query }))));
}

describe('search results with a locale', () => {
  const store = fixtureStore();
  const decoded = recordsOnly(store);

  test('autocomplete: the same bytes from the row bytes as from the decoded records, for every type and locale', () => {
    assert.equal(decoded.cities.rowBytes, null);
    assert.notEqual(store.cities.rowBytes, null);
    const random = prng(41);
    let results = 0;
    for (let i = 0; i < 150; i++) {
      const entity = ENTITIES[i % 3]!;
      const name = store[entity].nameAt(Math.floor(random() * store[entity].count));
      const q = [...name].slice(0, 2 + Math.floor(random() * 4)).join('');
      if ([...q.trim()].length < 2) continue;
      const query = { q, type: TYPES[i % 3]!, locale: LOCALES[i % LOCALES.length]!, limit: String(1 + Math.floor(random() * 50)) };
      const fromRows = body(store, 'autocomplete', query);
      assert.equal(fromRows, body(decoded, 'autocomplete', query), JSON.stringify(query));
      results += (JSON.parse(fromRows) as unknown[]).length;
    }
    assert.ok(results > 150, `the queries should find results, found ${results}`);
  });

  test('nearby: the same bytes from the row bytes as from the decoded records, for every type and locale', () => {
    const random = prng(42);
    let results = 0;
    for (let i = 0; i < 90; i++) {
      const row = Math.floor(random() * store.cities.count);
      const record = store.cities.record(row);
      const query = { lat: String(record.latitude), lng: String(record.longitude), type: TYPES[i % 3]!, locale: LOCALES[i % LOCALES.length]!, radius: '500', limit: '50' };
      const fromRows = body(store, 'nearbySearch', query);
      assert.equal(fromRows, body(decoded, 'nearbySearch', query), JSON.stringify(query));
      results += (JSON.parse(fromRows) as unknown[]).length;
    }
    assert.ok(results > 120, `the points should have places nearby, found ${results}`);
  });
});
