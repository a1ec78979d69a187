// GET /v1/countries, /v1/countries/{ciso}: the country list and detail (two field tiers).
import { COUNTRY_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { listParams } from '../params.js';
import type { Operation } from '../types.js';
import { CACHE_DAY, listReply, notFound, projectionOf, renderedJson, withLocale } from './common.js';

export const countriesList: Operation = {
  name: 'countriesList',
  path: '/v1/countries',
  errorShape: 'A',
  handle(ctx) {
    const tier = ctx.caller.countryTier;
    const params = listParams(ctx, COUNTRY_FIELDS, tier, { q: true, sort: true, localized: true });
    const countries = ctx.store.countries;
    return listReply(ctx, {
      set: COUNTRY_FIELDS,
      tier,
      params,
      count: countries.count,
      rowAt: (i) => i,
      record: (row) => countries.record(row),
      entity: 'countries',
      cacheControl: CACHE_DAY,
    });
  },
};

export const countryDetail: Operation = {
  name: 'countryDetail',
  path: '/v1/countries/:ciso',
  errorShape: 'A',
  handle(ctx) {
    const tier = ctx.caller.countryTier;
    const params = listParams(ctx, COUNTRY_FIELDS, tier, { localized: true });
    const row = ctx.engine.countryRow(ctx.params.ciso ?? '');
    if (row < 0) throw notFound('Country not found.');
    const projection = projectionOf(COUNTRY_FIELDS, tier, params);
    return renderedJson(() => serializeObject(projection, withLocale(ctx.store.countries.record(row), projection, params.locale)), CACHE_DAY);
  },
};
