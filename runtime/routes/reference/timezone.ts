// GET /v1/timezone/{ciso}[/{siso}[/{city_id}]]: timezone info at request time (all plans).
import { TIMEZONE_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { timezoneInfo } from '../../engine/timezone.js';
import { listParams, listParamSpecs, pathSpec, type ListParams } from '../params.js';
import type { Operation, Reply, RequestContext } from '../types.js';
import { CACHE_DAY, CISO_PATH, SISO_PATH, jsonReply, notFound, pathId, projectionOf } from './common.js';

const TIMEZONE_DOC = { tag: 'Timezones', response: { schema: 'timezone' }, statuses: [400, 404] } as const;
const CITY_ID = pathSpec('city_id', 'City id (an integer) of a city of that state.', '120784', { pattern: '^[0-9]{1,10}$' });

function timezoneReply(ctx: RequestContext, params: ListParams, zone: string | null, noDataMessage: string): Reply {
  const info = zone ? timezoneInfo(zone, ctx.now) : null;
  if (!info) throw notFound(noDataMessage);
  return jsonReply(serializeObject(projectionOf(TIMEZONE_FIELDS, 'basic', params), info), CACHE_DAY);
}

export const timezoneCountry: Operation = {
  name: 'timezoneCountry',
  path: '/v1/timezone/:ciso',
  errorShape: 'A',
  params: [CISO_PATH, ...listParamSpecs(TIMEZONE_FIELDS)],
  doc: { ...TIMEZONE_DOC, summary: "A country's timezone now" },
  handle(ctx) {
    const params = listParams(ctx, TIMEZONE_FIELDS, 'basic');
    const row = ctx.engine.countryRow(ctx.params.ciso ?? '');
    if (row < 0) throw notFound('Country not found.');
    return timezoneReply(ctx, params, ctx.engine.countryZone(row), 'No timezone data available for this country.');
  },
};

export const timezoneState: Operation = {
  name: 'timezoneState',
  path: '/v1/timezone/:ciso/:siso',
  errorShape: 'A',
  params: [CISO_PATH, SISO_PATH, ...listParamSpecs(TIMEZONE_FIELDS)],
  doc: { ...TIMEZONE_DOC, summary: "A state's timezone now" },
  handle(ctx) {
    const params = listParams(ctx, TIMEZONE_FIELDS, 'basic');
    const countryRow = ctx.engine.countryRow(ctx.params.ciso ?? '');
    const row = ctx.engine.stateRow(countryRow, ctx.params.siso ?? '');
    if (row < 0) throw notFound('State not found.');
    return timezoneReply(ctx, params, ctx.store.states.record(row).timezone, 'No timezone data available for this state.');
  },
};

export const timezoneCity: Operation = {
  name: 'timezoneCity',
  path: '/v1/timezone/:ciso/:siso/:city_id',
  errorShape: 'A',
  params: [CISO_PATH, SISO_PATH, CITY_ID, ...listParamSpecs(TIMEZONE_FIELDS)],
  doc: { ...TIMEZONE_DOC, summary: "A city's timezone now" },
  handle(ctx) {
    const { store, engine } = ctx;
    const params = listParams(ctx, TIMEZONE_FIELDS, 'basic');
    const countryRow = engine.countryRow(ctx.params.ciso ?? '');
    const stateRow = engine.stateRow(countryRow, ctx.params.siso ?? '');
    const id = pathId(ctx.params.city_id);
    const row = id === null ? -1 : store.cities.rowById(id);
    // Ownership: the city must belong to that state of that country.
    if (stateRow < 0 || row < 0 || store.relations.cityStateRow[row] !== stateRow || store.relations.cityCountryRow[row] !== countryRow) {
      throw notFound('City not found.');
    }
    return timezoneReply(ctx, params, store.cities.record(row).timezone, 'No timezone data available for this city.');
  },
};
