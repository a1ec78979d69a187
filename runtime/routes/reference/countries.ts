// GET /v1/countries, /v1/countries/{ciso}: the country list and detail (two field tiers).
import { COUNTRY_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { listParams } from '../params.js';
import type { Operation } from '../types.js';
import { memoizedReply } from './body-memo.js';
import { CACHE_DAY, cacheControlHeaders, jsonReply, listReply, notFound, projectionOf, withLocale } from './common.js';

export const countriesList: Operation = {
  name: 'countriesList',
  path: '/v1/countries',
  errorShape: 'A',
  handle(ctx) {
    const tier = ctx.caller.countryTier;
    const params = listParams(ctx, COUNTRY_FIELDS, tier, { q: true, sort: true, localized: true });
    const countries = ctx.store.countries;
    return listReply(ctx, {
      memoKey: 'countriesList',
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
    const serialise = () => serializeObject(projection, withLocale(ctx.store.countries.record(row), projection, params.locale));
    // Plain requests (the common case) are answered from bytes prepared once per (row, projection).
    if (params.plain) return memoizedReply(ctx, `countryDetail|${row}|${projection.id}`, serialise, cacheControlHeaders(CACHE_DAY));
    return jsonReply(serialise(), CACHE_DAY);
  },
};
