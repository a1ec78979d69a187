// GET /v1/countries, /v1/countries/{ciso}: the country list and detail (two field tiers).
import { COUNTRY_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { listParams, listParamSpecs, type ListParamOptions } from '../params.js';
import type { Operation } from '../types.js';
import { CACHE_DAY, CISO_PATH, listReply, notFound, projectionOf, renderedJson, withLocale } from './common.js';

const LIST: ListParamOptions = { q: true, sort: true, localized: true };
const DETAIL: ListParamOptions = { localized: true };
const COUNTRY_RESPONSE = { tierOf: 'countryTier', schemas: { basic: 'country.basic', full: 'country.full' } } as const;

export const countriesList: Operation = {
  name: 'countriesList',
  path: '/v1/countries',
  errorShape: 'A',
  params: listParamSpecs(COUNTRY_FIELDS, LIST),
  doc: { tag: 'Countries', summary: 'List countries', response: { ...COUNTRY_RESPONSE, list: true }, statuses: [400] },
  handle(ctx) {
    const tier = ctx.caller.countryTier;
    const params = listParams(ctx, COUNTRY_FIELDS, tier, LIST);
    const countries = ctx.store.countries;
    return listReply(ctx, {
      set: COUNTRY_FIELDS,
      tier,
      params,
      count: countries.count,
      rowAt: (i) => i,
      rowStart: 0,
      record: (row) => countries.record(row),
      rowBytes: countries.rowBytes,
      entity: 'countries',
      cacheControl: CACHE_DAY,
    });
  },
};

export const countryDetail: Operation = {
  name: 'countryDetail',
  path: '/v1/countries/:ciso',
  errorShape: 'A',
  params: [CISO_PATH, ...listParamSpecs(COUNTRY_FIELDS, DETAIL)],
  doc: { tag: 'Countries', summary: 'One country', response: COUNTRY_RESPONSE, statuses: [400, 404] },
  handle(ctx) {
    const tier = ctx.caller.countryTier;
    const params = listParams(ctx, COUNTRY_FIELDS, tier, DETAIL);
    const row = ctx.engine.countryRow(ctx.params.ciso ?? '');
    if (row < 0) throw notFound('Country not found.');
    const projection = projectionOf(COUNTRY_FIELDS, tier, params);
    return renderedJson(() => serializeObject(projection, withLocale(ctx.store.countries.record(row), projection, params.locale)), CACHE_DAY);
  },
};
