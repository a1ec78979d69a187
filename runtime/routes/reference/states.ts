// GET /v1/states, /v1/countries/{ciso}/states, /v1/countries/{ciso}/states/{siso}.
import { STATE_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { listParams, listParamSpecs, type ListParamOptions } from '../params.js';
import type { Operation } from '../types.js';
import { CACHE_DAY, CISO_PATH, SISO_PATH, listReply, notFound, projectionOf, renderedJson } from './common.js';

const LIST: ListParamOptions = { q: true, sort: true };
const STATE_RESPONSE = { tierOf: 'tier', schemas: { basic: 'state.basic', coordinates: 'state.coordinates', full: 'state.full' } } as const;

export const statesAll: Operation = {
  name: 'statesAll',
  path: '/v1/states',
  errorShape: 'A',
  params: listParamSpecs(STATE_FIELDS, LIST),
  doc: { tag: 'States', summary: 'List every state of every country', response: { ...STATE_RESPONSE, list: true }, statuses: [400] },
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, STATE_FIELDS, tier, LIST);
    const states = ctx.store.states;
    return listReply(ctx, {
      set: STATE_FIELDS,
      tier,
      params,
      count: states.count,
      rowAt: (i) => i,
      rowStart: 0,
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
  params: [CISO_PATH, ...listParamSpecs(STATE_FIELDS, LIST)],
  doc: { tag: 'States', summary: 'States of a country', response: { ...STATE_RESPONSE, list: true }, statuses: [400, 404] },
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, STATE_FIELDS, tier, LIST);
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    const ranges = ctx.store.relations.countryStates;
    const start = countryRow < 0 ? 0 : ranges.start[countryRow]!;
    const end = countryRow < 0 ? 0 : ranges.end[countryRow]!;
    if (end <= start) throw notFound('No States/Regions found.');
    const states = ctx.store.states;
    return listReply(ctx, {
      set: STATE_FIELDS,
      tier,
      params,
      count: end - start,
      rowAt: (i) => start + i,
      rowStart: start,
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
  params: [CISO_PATH, SISO_PATH, ...listParamSpecs(STATE_FIELDS)],
  doc: { tag: 'States', summary: 'One state of a country', response: STATE_RESPONSE, statuses: [400, 404] },
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, STATE_FIELDS, tier);
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    const row = ctx.engine.stateRow(countryRow, ctx.params.siso ?? '');
    if (row < 0) throw notFound('No State/Region found.');
    const projection = projectionOf(STATE_FIELDS, tier, params);
    return renderedJson(() => serializeObject(projection, ctx.store.states.record(row)), CACHE_DAY);
  },
};
