// GET /v1/reverse (feature reverseLookup, plans as nearby; error shape B): the nearest city to a
// point within `radius` km (default 50, max 500) with its state and country, and the nearest
// postcode within the same radius (null when none) — runtime/engine/search/reverse.ts. 404 when
// no city lies within the radius.
import { ApiError } from '../../contract/index.js';
import { roundKm } from '../../engine/search/nearby.js';
import { reverseLookup } from '../../engine/search/reverse.js';
import { POSTCODE_FIELDS, toApiPostcode } from '../../render/postcodes.js';
import { projectionFor, serializeObject } from '../../render/projection.js';
import { searchProjection } from '../../render/search.js';
import type { Operation, Reply, RequestContext } from '../types.js';
import { coordinateParam, radiusParam } from './params.js';
import { cacheKey, searchCache, searchReply } from './shared.js';

export const REVERSE_RADIUS_DEFAULT_KM = 50;

function handle(ctx: RequestContext): Reply {
  const lat = coordinateParam(ctx, 'lat', 90);
  const lng = coordinateParam(ctx, 'lng', 180);
  const radiusKm = radiusParam(ctx, REVERSE_RADIUS_DEFAULT_KM);
  const tier = ctx.caller.tier;

  const cache = searchCache(ctx.store, 'reverseLookup');
  const key = cacheKey([lat, lng, radiusKm, tier]);
  const cached = cache.get(key);
  if (cached !== undefined) return searchReply(cached, true);

  const store = ctx.store;
  const hit = reverseLookup(store, ctx.engine.search, lat, lng, radiusKm);
  if (hit === null) throw new ApiError(404, `No city within ${radiusKm} km of the point.`, { reason: 'nothing_within_radius', radius_km: radiusKm });

  const city = store.cities.record(hit.city.row) as unknown as Record<string, unknown>;
  city.distance_km = roundKm(hit.city.distanceKm);
  const parent = (row: number, table: typeof store.states | typeof store.countries): string => {
    if (row < 0) return 'null';
    const record = table.record(row);
    return JSON.stringify({ id: record.id, name: record.name, iso2: record.iso2 });
  };
  let postcode = 'null';
  if (hit.postcode !== null) {
    const item = toApiPostcode(store.postcodes.record(hit.postcode.row)) as unknown as Record<string, unknown>;
    item.distance_km = roundKm(hit.postcode.distanceKm);
    postcode = serializeObject(projectionFor(POSTCODE_FIELDS, tier, { extra: ['distance_km'] }), item);
  }
  const body =
    `{"city":${serializeObject(searchProjection('cities', tier, false, ['distance_km']), city)},` +
    `"state":${parent(hit.stateRow, store.states)},"country":${parent(hit.countryRow, store.countries)},"postcode":${postcode}}`;
  cache.set(key, body);
  return searchReply(body, false);
}

export const reverseLookupOperation: Operation = {
  name: 'reverseLookup',
  path: '/v1/reverse',
  errorShape: 'B',
  handle,
};
