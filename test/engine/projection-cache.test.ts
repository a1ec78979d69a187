// projectionFor hands out one shared projection per (field list, tier, options).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CITY_FIELDS, COUNTRY_FIELDS, STATE_FIELDS } from '../../runtime/render/fields.js';
import { projectionFor } from '../../runtime/render/projection.js';

describe('projection cache', () => {
  it('returns the same frozen projection for the same tier and options', () => {
    const a = projectionFor(STATE_FIELDS, 'coordinates');
    assert.equal(projectionFor(STATE_FIELDS, 'coordinates', {}), a);
    assert.equal(projectionFor(STATE_FIELDS, 'coordinates', { fields: null, extra: [] }), a);
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.names));
    assert.equal(a.key, a.names.join(','));
    const withFields = projectionFor(STATE_FIELDS, 'full', { fields: ['id', 'name'] });
    assert.equal(projectionFor(STATE_FIELDS, 'full', { fields: ['id', 'name'] }), withFields);
    assert.deepEqual(withFields.names, ['id', 'name']);
  });

  it('keeps tiers, flags, field lists and entities apart', () => {
    const seen = [
      projectionFor(COUNTRY_FIELDS, 'basic'),
      projectionFor(COUNTRY_FIELDS, 'full'),
      projectionFor(COUNTRY_FIELDS, 'full', { includeTranslations: true }),
      projectionFor(COUNTRY_FIELDS, 'full', { localized: true }),
      projectionFor(COUNTRY_FIELDS, 'full', { includeTranslations: true, localized: true }),
      projectionFor(COUNTRY_FIELDS, 'full', { fields: ['id'] }),
      projectionFor(COUNTRY_FIELDS, 'full', { extra: ['match_score'] }),
      projectionFor(CITY_FIELDS, 'basic'),
      projectionFor(STATE_FIELDS, 'basic'),
    ];
    assert.equal(new Set(seen.map((p) => p.id)).size, seen.length);
    assert.equal(new Set(seen.map((p) => p.key)).size, seen.length);
    assert.ok(projectionFor(COUNTRY_FIELDS, 'full', { includeTranslations: true }).names.includes('translations'));
    assert.ok(!projectionFor(COUNTRY_FIELDS, 'full').names.includes('translations'));
  });

  it('treats an empty fields list as a selection (id only), not as the default', () => {
    assert.deepEqual(projectionFor(STATE_FIELDS, 'full', { fields: [] }).names, ['id']);
    assert.ok(projectionFor(STATE_FIELDS, 'full').names.length > 1);
  });
});
