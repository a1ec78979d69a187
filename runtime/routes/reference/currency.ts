// GET /v1/currency/{ciso} and /v1/currency?code= (feature currencyApi).
import { ApiError } from '../../contract/index.js';
import { currencyOf } from '../../engine/currency.js';
import { CURRENCY_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { sortObjects } from '../../engine/sort.js';
import { listParams, listParamSpecs, type ListParamOptions } from '../params.js';
import type { Operation } from '../types.js';
import { CACHE_DAY, CISO_PATH, notFound, pagedListReply, projectionOf, renderedJson } from './common.js';

const LIST: ListParamOptions = { sort: true };

export const currencyByCountry: Operation = {
  name: 'currencyByCountry',
  path: '/v1/currency/:ciso',
  errorShape: 'A',
  params: [CISO_PATH, ...listParamSpecs(CURRENCY_FIELDS)],
  doc: { tag: 'Currency', summary: "A country's currency", response: { schema: 'currency' }, statuses: [400, 404] },
  handle(ctx) {
    const params = listParams(ctx, CURRENCY_FIELDS, 'basic');
    const row = ctx.engine.countryRow(ctx.params.ciso ?? '');
    if (row < 0) throw notFound('Country not found.');
    const info = currencyOf(ctx.store.countries.record(row));
    if (!info) throw notFound('No currency data available for this country.');
    return renderedJson(() => serializeObject(projectionOf(CURRENCY_FIELDS, 'basic', params), info), CACHE_DAY);
  },
};

const CURRENCY_CODE_RE = /^[A-Za-z]{3}$/;

export const currencyList: Operation = {
  name: 'currencyList',
  path: '/v1/currency',
  errorShape: 'A',
  params: [
    ...listParamSpecs(CURRENCY_FIELDS, LIST),
    { name: 'code', in: 'query', type: 'string', pattern: CURRENCY_CODE_RE.source, description: 'ISO 4217 currency code (any case): only the countries using it.', example: 'USD' },
  ],
  doc: { tag: 'Currency', summary: 'Currencies of every country', response: { schema: 'currency', list: true }, statuses: [400] },
  handle(ctx) {
    const params = listParams(ctx, CURRENCY_FIELDS, 'basic', LIST);
    const raw = ctx.query.get('code');
    let code: string | null = null;
    if (raw !== undefined) {
      if (!CURRENCY_CODE_RE.test(raw.trim())) throw new ApiError(400, 'Invalid currency code. Must be a 3-letter ISO 4217 code (e.g., USD, EUR).');
      code = raw.trim().toUpperCase();
    }
    let list = ctx.engine.currencies(code);
    if (params.sort) list = sortObjects([...list], params.sort, CURRENCY_FIELDS);
    return pagedListReply(list, projectionOf(CURRENCY_FIELDS, 'basic', params), CACHE_DAY, params.page);
  },
};
