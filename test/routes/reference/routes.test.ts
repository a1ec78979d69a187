// Operation handlers called directly: q filters against a brute-force oracle, the body memo.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { referenceOperations } from '../../../runtime/routes/reference/index.js';
import { BodyMemo, bodyMemo } from '../../../runtime/routes/reference/body-memo.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import type { Store } from '../../../runtime/store/types.js';
import { call } from './support/context.js';
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

describe('body memo', () => {
  it('serialises a default list once and serves the same bytes again', () => {
    const { store } = fixtureSnapshot();
    const first = call(store, op.statesAll!, { plan: 'business' });
    const second = call(store, op.statesAll!, { plan: 'business' });
    assert.ok(first.reply!.body instanceof Uint8Array);
    assert.equal(first.reply!.body, second.reply!.body);
    assert.ok(bodyMemo(store).size >= 1);
  });

  it('prepares only the compressed variants the client accepts', () => {
    const { store } = fixtureSnapshot();
    const plain = call(store, op.countriesList!, { plan: 'business' });
    assert.equal(plain.reply!.gzip, undefined);
    const br = call(store, op.countriesList!, { plan: 'business', headers: { 'accept-encoding': 'br' } });
    assert.ok(br.reply!.br);
    assert.equal(br.reply!.gzip, undefined);
  });

  it('evicts the least recently used entries beyond its byte budget', () => {
    const memo = new BodyMemo(3000);
    memo.entry('a', () => 'a'.repeat(1000));
    memo.entry('b', () => 'b'.repeat(1000));
    memo.entry('a', () => 'unused');
    memo.entry('c', () => 'c'.repeat(1500));
    assert.equal(memo.size, 2);
    assert.ok(memo.bytes <= 3000);
    let rebuilt = false;
    memo.entry('b', () => {
      rebuilt = true;
      return 'b';
    });
    assert.equal(rebuilt, true);
  });

  it('keeps one entry larger than the budget rather than failing', () => {
    const memo = new BodyMemo(10);
    assert.equal(memo.entry('big', () => 'x'.repeat(100)).body.byteLength, 100);
  });
});
