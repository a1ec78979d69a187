// GET /v1/countries/{ciso}/states/{siso}/cities and /v1/countries/{ciso}/cities.
import { CITY_FIELDS } from '../../render/fields.js';
import type { RangesByParent } from '../../store/types.js';
import { listParams, listParamSpecs, type ListParamOptions } from '../params.js';
import type { Operation, Reply, RequestContext } from '../types.js';
import { CACHE_DAY, CISO_PATH, SISO_PATH, listReply, notFound } from './common.js';

const LIST: ListParamOptions = { q: true, sort: true };
const CITIES_RESPONSE = { tierOf: 'tier', schemas: { basic: 'city.basic', coordinates: 'city.coordinates', full: 'city.full' }, list: true } as const;

function citiesReply(ctx: RequestContext, ranges: RangesByParent, parentRow: number): Reply {
  const tier = ctx.caller.tier;
  const params = listParams(ctx, CITY_FIELDS, tier, LIST);
  const start = parentRow < 0 ? 0 : ranges.start[parentRow]!;
  const end = parentRow < 0 ? 0 : ranges.end[parentRow]!;
  if (end <= start) throw notFound('No Cities found.');
  const cities = ctx.store.cities;
  return listReply(ctx, {
    set: CITY_FIELDS,
    tier,
    params,
    count: end - start,
    rowAt: (i) => start + i,
    rowStart: start,
    record: (row) => cities.record(row),
    rowBytes: cities.rowBytes,
    entity: 'cities',
    cacheControl: CACHE_DAY,
  });
}

export const stateCities: Operation = {
  name: 'stateCities',
  path: '/v1/countries/:ciso/states/:siso/cities',
  errorShape: 'A',
  params: [CISO_PATH, SISO_PATH, ...listParamSpecs(CITY_FIELDS, LIST)],
  doc: { tag: 'Cities', summary: 'Cities of a state', response: CITIES_RESPONSE, statuses: [400, 404] },
  handle(ctx) {
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    const stateRow = ctx.engine.stateRow(countryRow, ctx.params.siso ?? '');
    return citiesReply(ctx, ctx.store.relations.stateCities, stateRow);
  },
};

export const countryCities: Operation = {
  name: 'countryCities',
  path: '/v1/countries/:ciso/cities',
  errorShape: 'A',
  params: [CISO_PATH, ...listParamSpecs(CITY_FIELDS, LIST)],
  doc: { tag: 'Cities', summary: 'Cities of a country', response: CITIES_RESPONSE, statuses: [400, 404] },
  handle(ctx) {
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    return citiesReply(ctx, ctx.store.relations.countryCities, countryRow);
  },
};
