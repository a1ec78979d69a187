// Operation handlers called directly: q filters against a brute-force oracle, rendered replies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { referenceOperations } from '../../../runtime/routes/reference/index.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import type { Store } from '../../../runtime/store/types.js';
import { call, contextFor } from './support/context.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../../support/snapshots.js';

const op = Object.fromEntries(referenceOperations.map((o) => [o.name, o]));

function qOracle(store: Store, iso2: string, q: string): number[] {
  const ids: number[] = [];
  const key = matchKey(q);
  for (let row = 0; row < store.cities.count; row++) {
    const city = store.cities.record(row);
    if (city.country_code !== iso2) continue;
    if (matchKey(city.name).includes(key) || (city.native !== null && matchKey(city.native).includes(key))) ids.push(city.id);
  }
  return ids;
}

describe('q filter', () => {
  it('returns what a brute-force scan returns, in the snapshot order (fixture)', () => {
    const { store } = fixtureSnapshot();
    for (const [iso2, q] of [['US', 'an'], ['BR', 'sao'], ['NO', 'sø'], ['US', 'ángel'], ['FJ', 'la']] as const) {
      const res = call(store, op.countryCities!, { params: { ciso: iso2 }, query: { q } });
      assert.deepEqual((res.body as { id: number }[]).map((c) => c.id), qOracle(store, iso2, q), `${iso2} ${q}`);
    }
  });

  it('returns what a brute-force scan returns (full dataset, several countries)', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    for (const [iso2, q] of [['US', 'spring'], ['DE', 'münch'], ['FR', 'saint-e'], ['IN', 'pur'], ['JP', 'shi']] as const) {
      const res = call(store, op.countryCities!, { params: { ciso: iso2 }, query: { q, fields: 'name' } });
      assert.deepEqual((res.body as { id: number }[]).map((c) => c.id), qOracle(store, iso2, q), `${iso2} ${q}`);
    }
  });
});

describe('rendered replies', () => {
  it('render default lists and details on demand, the same text every time (the HTTP layer caches them)', () => {
    const { store } = fixtureSnapshot();
    for (const [name, params] of [['statesAll', {}], ['countriesList', {}], ['countryDetail', { ciso: 'US' }], ['stateDetail', { ciso: 'US', siso: 'CA' }]] as const) {
      const reply = op[name]!.handle(contextFor(store, op[name]!, { plan: 'business', params }));
      assert.equal(reply.status, 200);
      assert.ok('render' in reply, `${name} renders on demand`);
      // Text or UTF-8 bytes (lists written from the rows' bytes): the same every time.
      assert.deepEqual(Buffer.from(reply.render()), Buffer.from(reply.render()), name);
    }
  });
});
