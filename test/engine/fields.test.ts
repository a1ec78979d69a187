import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CITY_FIELDS, COUNTRY_FIELDS, REGION_FIELDS, STATE_FIELDS } from '../../runtime/render/fields.js';
import { makeProjection, projectObject, projectionFor, serializeList, serializeObject, sortableNames } from '../../runtime/render/projection.js';
import { fixtureSnapshot } from '../support/snapshots.js';

describe('field tiers', () => {
  it('gives Basic cities only id and name', () => {
    assert.deepEqual(projectionFor(CITY_FIELDS, 'basic').names, ['id', 'name']);
  });

  it('gives Coordinates states the decisions.md additions but not translations or wikiDataId', () => {
    const names = projectionFor(STATE_FIELDS, 'coordinates').names;
    for (const name of ['fips_code', 'iso3166_2', 'type', 'level', 'parent_id', 'native', 'population']) assert.ok(names.includes(name), name);
    assert.ok(!names.includes('translations'));
    assert.ok(!names.includes('wikiDataId'));
    assert.ok(projectionFor(STATE_FIELDS, 'full').names.includes('wikiDataId'));
  });

  it('returns country translations only on request, and never on the Basic tier', () => {
    assert.ok(!projectionFor(COUNTRY_FIELDS, 'full').names.includes('translations'));
    assert.ok(projectionFor(COUNTRY_FIELDS, 'full', { includeTranslations: true }).names.includes('translations'));
    assert.ok(projectionFor(COUNTRY_FIELDS, 'full', { fields: ['id', 'translations'] }).names.includes('translations'));
    assert.ok(!projectionFor(COUNTRY_FIELDS, 'basic', { includeTranslations: true }).names.includes('translations'));
  });

  it('adds localized_name and matched_locale only when localized and allowed by the tier', () => {
    assert.ok(projectionFor(REGION_FIELDS, 'coordinates', { localized: true }).names.includes('localized_name'));
    assert.ok(!projectionFor(REGION_FIELDS, 'basic', { localized: true }).names.includes('localized_name'));
    assert.ok(!projectionFor(REGION_FIELDS, 'full').names.includes('matched_locale'));
  });

  it('always includes id and drops requested fields above the tier', () => {
    assert.deepEqual(projectionFor(CITY_FIELDS, 'basic', { fields: ['name', 'latitude'] }).names, ['id', 'name']);
    assert.deepEqual(projectionFor(CITY_FIELDS, 'coordinates', { fields: ['latitude', 'name'] }).names, ['id', 'name', 'latitude']);
  });

  it('lists only returned, scalar fields as sortable', () => {
    assert.deepEqual(sortableNames(CITY_FIELDS, 'basic'), ['id', 'name']);
    assert.ok(!sortableNames(COUNTRY_FIELDS, 'full').includes('localized_name'));
  });
});

describe('serialiser', () => {
  it('writes what JSON.stringify writes for projected records (oracle over the fixture)', () => {
    const { store } = fixtureSnapshot();
    const tables = [
      [store.countries, COUNTRY_FIELDS],
      [store.states, STATE_FIELDS],
      [store.cities, CITY_FIELDS],
      [store.regions, REGION_FIELDS],
    ] as const;
    for (const [table, set] of tables) {
      for (const tier of ['basic', 'coordinates', 'full'] as const) {
        const projection = projectionFor(set, tier, { includeTranslations: true });
        const rows = Array.from({ length: table.count }, (_, row) => table.record(row) as object);
        const text = serializeList(projection, rows.length, (i) => rows[i]!);
        assert.equal(text, JSON.stringify(rows.map((r) => projectObject(projection, r))), `${set.entity} ${tier}`);
        assert.deepEqual(JSON.parse(text), rows.map((r) => projectObject(projection, r)));
      }
    }
  });

  it('leaves undefined values out and writes non-finite numbers as null', () => {
    const projection = makeProjection(['id', 'a', 'b', 'c']);
    assert.equal(serializeObject(projection, { id: 1, a: undefined, b: Number.NaN, c: 'x"y' }), '{"id":1,"b":null,"c":"x\\"y"}');
    assert.equal(serializeObject(projection, { a: 2 }), '{"a":2}');
    assert.equal(serializeObject(makeProjection(['a"b', 'c\\d']), { 'a"b': 1, 'c\\d': 2 }), '{"a\\"b":1,"c\\\\d":2}');
    assert.equal(serializeList(projection, 0, () => ({})), '[]');
    assert.equal(serializeObject(makeProjection(['currency']), { currency: { code: 'EUR' } }), '{"currency":{"code":"EUR"}}');
  });
});
