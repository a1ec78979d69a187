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
import { numberSpec } from '../params.js';
import { rendered, type Operation, type Reply, type RequestContext } from '../types.js';
import { coordinateParam, LAT_SPEC, LNG_SPEC, RADIUS_KM, radiusParam } from './params.js';

export const REVERSE_RADIUS_DEFAULT_KM = 50;
const REVERSE_RADIUS_KM = { ...RADIUS_KM, fallback: REVERSE_RADIUS_DEFAULT_KM };
/** The city's addition (one array: searchProjection keys its cache by it). */
const CITY_EXTRA: readonly string[] = ['distance_km'];

function handle(ctx: RequestContext): Reply {
  const lat = coordinateParam(ctx, 'lat', 90);
  const lng = coordinateParam(ctx, 'lng', 180);
  const radiusKm = radiusParam(ctx, REVERSE_RADIUS_KM);
  const tier = ctx.caller.tier;
  const store = ctx.store;
  // The lookup itself is two KD-tree walks; rendering is what the response cache saves.
  const hit = reverseLookup(store, ctx.engine.search, lat, lng, radiusKm);
  if (hit === null) throw new ApiError(404, `No city within ${radiusKm} km of the point.`, { reason: 'nothing_within_radius', radius_km: radiusKm });
  return rendered(() => render(ctx, hit, tier));
}

function render(ctx: RequestContext, hit: NonNullable<ReturnType<typeof reverseLookup>>, tier: RequestContext['caller']['tier']): string {
  const store = ctx.store;

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
  return (
    `{"city":${serializeObject(searchProjection('cities', tier, false, CITY_EXTRA), city)},` +
    `"state":${parent(hit.stateRow, store.states)},"country":${parent(hit.countryRow, store.countries)},"postcode":${postcode}}`
  );
}

export const reverseLookupOperation: Operation = {
  name: 'reverseLookup',
  path: '/v1/reverse',
  errorShape: 'B',
  params: [LAT_SPEC, LNG_SPEC, numberSpec('radius', REVERSE_RADIUS_KM, 'Radius in kilometres within which the nearest city (and postcode) is looked for.')],
  doc: {
    tag: 'Search',
    summary: 'Reverse lookup: the nearest stored city (and postcode) to a point',
    description: 'Nearest stored coordinate within the radius, not a border test. 404 when no city lies within the radius.',
    response: { schema: 'reverse' },
    statuses: [400, 404],
  },
  handle,
};
