// GET /v1/countries/{ciso}/states/{siso}/cities and /v1/countries/{ciso}/cities.
import { CITY_FIELDS } from '../../render/fields.js';
import type { RangesByParent } from '../../store/types.js';
import { listParams } from '../params.js';
import type { Operation, Reply, RequestContext } from '../types.js';
import { CACHE_DAY, listReply, notFound } from './common.js';

function citiesReply(ctx: RequestContext, memoKey: string, ranges: RangesByParent, parentRow: number): Reply {
  const tier = ctx.caller.tier;
  const params = listParams(ctx, CITY_FIELDS, tier, { q: true, sort: true });
  const start = parentRow < 0 ? 0 : ranges.start[parentRow]!;
  const end = parentRow < 0 ? 0 : ranges.end[parentRow]!;
  if (end <= start) throw notFound('No Cities found.');
  const cities = ctx.store.cities;
  return listReply(ctx, {
    memoKey: `${memoKey}|${parentRow}`,
    set: CITY_FIELDS,
    tier,
    params,
    count: end - start,
    rowAt: (i) => start + i,
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
  handle(ctx) {
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    const stateRow = ctx.engine.stateRow(countryRow, ctx.params.siso ?? '');
    return citiesReply(ctx, 'stateCities', ctx.store.relations.stateCities, stateRow);
  },
};

export const countryCities: Operation = {
  name: 'countryCities',
  path: '/v1/countries/:ciso/cities',
  errorShape: 'A',
  handle(ctx) {
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    return citiesReply(ctx, 'countryCities', ctx.store.relations.countryCities, countryRow);
  },
};
