// GET /v1/states, /v1/countries/{ciso}/states, /v1/countries/{ciso}/states/{siso}.
import { STATE_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { listParams } from '../params.js';
import type { Operation } from '../types.js';
import { CACHE_DAY, cacheControlHeaders, jsonReply, listReply, notFound, projectionOf } from './common.js';
import { memoizedReply } from './body-memo.js';

export const statesAll: Operation = {
  name: 'statesAll',
  path: '/v1/states',
  errorShape: 'A',
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, STATE_FIELDS, tier, { q: true, sort: true });
    const states = ctx.store.states;
    return listReply(ctx, {
      memoKey: 'statesAll',
      set: STATE_FIELDS,
      tier,
      params,
      count: states.count,
      rowAt: (i) => i,
      record: (row) => states.record(row),
      rowBytes: states.rowBytes,
      entity: 'states',
      cacheControl: CACHE_DAY,
    });
  },
};

export const countryStates: Operation = {
  name: 'countryStates',
  path: '/v1/countries/:ciso/states',
  errorShape: 'A',
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, STATE_FIELDS, tier, { q: true, sort: true });
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    const ranges = ctx.store.relations.countryStates;
    const start = countryRow < 0 ? 0 : ranges.start[countryRow]!;
    const end = countryRow < 0 ? 0 : ranges.end[countryRow]!;
    if (end <= start) throw notFound('No States/Regions found.');
    const states = ctx.store.states;
    return listReply(ctx, {
      memoKey: `countryStates|${countryRow}`,
      set: STATE_FIELDS,
      tier,
      params,
      count: end - start,
      rowAt: (i) => start + i,
      record: (row) => states.record(row),
      rowBytes: states.rowBytes,
      entity: 'states',
      cacheControl: CACHE_DAY,
    });
  },
};

export const stateDetail: Operation = {
  name: 'stateDetail',
  path: '/v1/countries/:ciso/states/:siso',
  errorShape: 'A',
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, STATE_FIELDS, tier);
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    const row = ctx.engine.stateRow(countryRow, ctx.params.siso ?? '');
    if (row < 0) throw notFound('No State/Region found.');
    const projection = projectionOf(STATE_FIELDS, tier, params);
    const serialise = () => serializeObject(projection, ctx.store.states.record(row));
    if (params.plain) return memoizedReply(ctx, `stateDetail|${row}|${projection.id}`, serialise, cacheControlHeaders(CACHE_DAY));
    return jsonReply(serialise(), CACHE_DAY);
  },
};
