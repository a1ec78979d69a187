// The shared query parameters, called directly (no HTTP), with gates from the real policy file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CITY_FIELDS, COUNTRY_FIELDS } from '../../../runtime/render/fields.js';
import { fieldsParam, includeTranslationsParam, intParam, listParams, localeParam, numberParam, qParam, sortParam } from '../../../runtime/routes/params.js';
import { ApiError, type PlanName } from '../../../runtime/contract/index.js';
import { type Operation } from '../../../runtime/routes/types.js';
import { contextFor } from './support/context.js';
import { fixtureSnapshot } from '../../support/snapshots.js';

const countriesList = { name: 'countriesList', path: '/v1/countries', errorShape: 'A', handle: () => ({ status: 200, body: '' }) } satisfies Operation;
const stateCities = { ...countriesList, name: 'stateCities' } satisfies Operation;

function ctx(query: Record<string, string>, plan: PlanName = 'business', operation: Operation = countriesList) {
  return contextFor(fixtureSnapshot().store, operation, { plan, query });
}

function throws(fn: () => unknown, status: number, message?: string | RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, status);
    if (typeof message === 'string') assert.equal(err.message, message);
    else if (message) assert.match(err.message, message);
    return true;
  });
}

describe('fields', () => {
  it('adds id, trims spaces, accepts any known field', () => {
    assert.deepEqual(fieldsParam(ctx({ fields: ' name , latitude' }), CITY_FIELDS), ['id', 'name', 'latitude']);
    assert.equal(fieldsParam(ctx({}), CITY_FIELDS), null);
  });

  it('refuses unknown names, listing the valid ones; empty names are skipped and an empty list is as if absent', () => {
    assert.deepEqual(fieldsParam(ctx({ fields: 'name,,id' }), CITY_FIELDS), ['name', 'id']);
    assert.equal(fieldsParam(ctx({ fields: '' }), CITY_FIELDS), null);
    assert.equal(fieldsParam(ctx({ fields: ' , ' }), CITY_FIELDS), null);
    throws(() => fieldsParam(ctx({ fields: 'nme,name,pop' }), CITY_FIELDS), 400, `Unknown field(s): nme, pop. Valid fields: ${CITY_FIELDS.fields.map((f) => f.name).join(', ')}`);
  });

  it('is refused below Starter, and below Supporter where the operation says so', () => {
    throws(() => fieldsParam(ctx({ fields: 'name' }, 'community'), CITY_FIELDS), 403);
    assert.ok(fieldsParam(ctx({ fields: 'name' }, 'starter'), CITY_FIELDS));
    throws(() => fieldsParam(ctx({ fields: 'name' }, 'starter', stateCities), CITY_FIELDS), 403);
  });
});

describe('sort', () => {
  it('parses fields and directions', () => {
    assert.deepEqual(sortParam(ctx({ sort: 'name,population:DESC,id:asc' }), CITY_FIELDS, 'full'), [
      { field: 'name', descending: false },
      { field: 'population', descending: true },
      { field: 'id', descending: false },
    ]);
  });

  it('tolerates whitespace, repeated fields (the first wins) and empty input', () => {
    assert.deepEqual(sortParam(ctx({ sort: ' name :  DESC , name:asc' }), CITY_FIELDS, 'full'), [{ field: 'name', descending: true }]);
    assert.equal(sortParam(ctx({ sort: '' }), CITY_FIELDS, 'full'), null);
  });

  it('refuses bad tokens, fields not sortable and sortable fields above the tier, with the listed messages', () => {
    throws(() => sortParam(ctx({ sort: 'name:sideways' }), CITY_FIELDS, 'full'), 400, 'Invalid sort token "name:sideways". Expected "field" or "field:asc|desc".');
    throws(() => sortParam(ctx({ sort: 'name:asc:extra' }), CITY_FIELDS, 'full'), 400, 'Invalid sort token "name:asc:extra". Expected "field" or "field:asc|desc".');
    throws(() => sortParam(ctx({ sort: 'timezones' }), COUNTRY_FIELDS, 'full'), 400, 'Field "timezones" is not sortable. Sortable fields for countries: id, name, iso2, iso3, population, gdp, area_sq_km, latitude, longitude');
    throws(() => sortParam(ctx({ sort: 'latitude' }), CITY_FIELDS, 'basic'), 400, 'Field "latitude" is not available on your current plan.');
  });
});

describe('locale and include_translations', () => {
  it('validates on every plan and answers null/false where not honoured', () => {
    assert.equal(localeParam(ctx({ locale: 'de-AT' }, 'starter')), null);
    assert.equal(localeParam(ctx({ locale: 'de-AT' }, 'supporter')), 'de-AT');
    throws(() => localeParam(ctx({ locale: 'deutsch' }, 'starter')), 400);
    assert.equal(includeTranslationsParam(ctx({ include_translations: 'TRUE' }, 'starter')), false);
    assert.equal(includeTranslationsParam(ctx({ include_translations: '1' }, 'supporter')), true);
    assert.equal(includeTranslationsParam(ctx({ include_translations: '0' }, 'supporter')), false);
    throws(() => includeTranslationsParam(ctx({ include_translations: 'yes' }, 'starter')), 400);
  });
});

describe('q', () => {
  it('counts characters, not bytes, and folds the key', () => {
    assert.deepEqual(qParam(ctx({ q: ' São ' })), { raw: 'São', key: 'sao' });
    assert.ok(qParam(ctx({ q: 'ñu' })));
    throws(() => qParam(ctx({ q: ' a ' })), 400, 'Invalid query parameters: q: Search query must be at least 2 characters');
    throws(() => qParam(ctx({ q: '\u0301\u0301' })), 400, 'Invalid query parameters: q: Search query must contain letters or digits');
  });

  it('is refused below its plan', () => {
    throws(() => qParam(ctx({ q: 'ab' }, 'community')), 403);
  });
});

describe('numbers', () => {
  it('checks integer and number syntax and bounds', () => {
    assert.equal(intParam(ctx({ limit: '10' }), 'limit', { min: 1, max: 50, fallback: 10 }), 10);
    assert.equal(intParam(ctx({}), 'limit', { min: 1, max: 50, fallback: 7 }), 7);
    throws(() => intParam(ctx({ limit: '1.5' }), 'limit', { min: 1, max: 50 }), 400);
    throws(() => intParam(ctx({ limit: '51' }), 'limit', { min: 1, max: 50 }), 400, 'Invalid query parameters: limit: must be an integer between 1 and 50, found 51');
    assert.equal(numberParam(ctx({ radius: '2.5' }), 'radius', { min: 1, max: 500 }), 2.5);
    throws(() => numberParam(ctx({ radius: 'NaN' }), 'radius', { min: 1, max: 500 }), 400);
    throws(() => numberParam(ctx({ radius: '1e9' }), 'radius', { min: 1, max: 500 }), 400);
  });
});

describe('listParams', () => {
  it('reports a default request as plain (memoizable) and a parameterised one not', () => {
    assert.equal(listParams(ctx({}), COUNTRY_FIELDS, 'full', { q: true, sort: true, localized: true }).plain, true);
    assert.equal(listParams(ctx({ include_translations: 'true' }), COUNTRY_FIELDS, 'full', { localized: true }).plain, true);
    assert.equal(listParams(ctx({ locale: 'de' }), COUNTRY_FIELDS, 'full', { localized: true }).plain, false);
    // An ignored locale (below the plan) keeps the default body.
    assert.equal(listParams(ctx({ locale: 'de' }, 'starter'), COUNTRY_FIELDS, 'basic', { localized: true }).plain, true);
  });

  it('checks plan gates before values', () => {
    throws(() => listParams(ctx({ fields: 'bogus', sort: 'name' }, 'community'), COUNTRY_FIELDS, 'basic', { sort: true }), 403);
  });
});
