// GET /v1/search/nearby (Professional+, error shape B): places within a radius of a point,
// nearest first by haversine distance (runtime/engine/search/nearby.ts). type=postcode: postcodes
// with coordinates (`geo.postcodes`), postcode record fields per tier plus distance_km.
import { projectionFor, serializeObject } from '../../render/projection.js';
import { CITY_KINDS, cityKind, KIND_CODE } from '../../engine/search/city-kind.js';
import { ENTITY_OF, type SearchEntity } from '../../engine/search/context.js';
import { nearbySearch, roundKm, type GeoPrune } from '../../engine/search/nearby.js';
import { nearbyFilter } from '../../engine/search/nearby-filter.js';
import { filterRows } from '../../engine/search/row-filter.js';
import type { CityRecord } from '../../format/model.js';
import { includeTranslationsParam, includeTranslationsSpec, localeParam, localeSpec } from '../params.js';
import { rendered, type Operation, type Reply, type RequestContext } from '../types.js';
import {
  coordinateParam, COUNTRY_SPEC, countryFilter, KIND_SPEC, kindFilter, LAT_SPEC, limitParam, limitSpec, LNG_SPEC, MIN_POPULATION_SPEC, minPopulationParam,
  nearbyType, RADIUS_SPEC, radiusParam, STATE_SPEC, stateFilter, TYPE_SPEC,
} from './params.js';
import { countryRowByIso2 } from '../../engine/countries.js';
import { nearbyPostcodeRows, POSTCODE_FIELDS, toApiPostcode } from '../../render/postcodes.js';
import type { Store } from '../../store/types.js';
import { addLocalizedName, countryNameOfRow, countryNameTextOfRow, decodeRow, jsonArray, localizedNameOfRow, searchProjection, stateNameOfCityRow, stateNameTextOfCityRow, tierFor, withLocalizedNames } from '../../render/search.js';
import { jsonTextOf, rowJsonWriter, writeRowsArray } from '../../render/row-json.js';

/** Per-row values of ADDITIONS[entity] or ADDITIONS_LOCALIZED[entity], reused (requests run one at a time per thread). */
const extras: unknown[] = [null, null, null, null, null, null];
/** A city's `kind` as JSON text, by kind code (cityKinds()). */
const KIND_TEXTS = CITY_KINDS.map((kind) => jsonTextOf(kind));

export const NEARBY_LIMIT_MAX = 100;
export const NEARBY_LIMIT_DEFAULT = 20;

/** Parent names every state/city result carries whatever the tier (spec), then the additions. */
const ADDITIONS: Readonly<Record<SearchEntity, readonly string[]>> = {
  cities: ['country_name', 'state_name', 'distance_km', 'kind'],
  states: ['country_name', 'distance_km'],
  countries: ['distance_km'],
};
const ADDITIONS_LOCALIZED = withLocalizedNames(ADDITIONS);

function handle(ctx: RequestContext): Reply {
  const lat = coordinateParam(ctx, 'lat', 90);
  const lng = coordinateParam(ctx, 'lng', 180);
  const type = nearbyType(ctx);
  const country = countryFilter(ctx, type);
  const state = stateFilter(ctx, type, country);
  const kind = kindFilter(ctx, type);
  const minPopulation = minPopulationParam(ctx, type);
  const radiusKm = radiusParam(ctx);
  const limit = limitParam(ctx, NEARBY_LIMIT_MAX, NEARBY_LIMIT_DEFAULT);
  // Validated for every type; postcodes have no names to localise or translations to include.
  const locale = localeParam(ctx);
  const includeTranslations = includeTranslationsParam(ctx);

  // Rendered on demand: the HTTP layer's response cache answers repeated requests.
  if (type === 'postcode') return rendered(() => nearbyPostcodesBody(ctx, lat, lng, country, radiusKm, limit));
  const entity = ENTITY_OF[type];
  const tier = tierFor(ctx.caller, entity);
  return rendered(() => render(ctx, { lat, lng, entity, country, state, kind, minPopulation, radiusKm, limit, locale, includeTranslations, tier }));
}

interface NearbyInputs {
  lat: number;
  lng: number;
  entity: SearchEntity;
  country: string | null;
  state: string | null;
  kind: ReturnType<typeof kindFilter>;
  minPopulation: number;
  radiusKm: number;
  limit: number;
  locale: string | null;
  includeTranslations: boolean;
  tier: ReturnType<typeof tierFor>;
}

function render(ctx: RequestContext, inputs: NearbyInputs): string | Uint8Array {
  const { lat, lng, entity, country, state, kind, minPopulation, radiusKm, limit, locale, includeTranslations, tier } = inputs;
  const context = ctx.engine.search;
  const indexes = context.indexes(entity);
  const rows = filterRows(ctx.store, entity, country, state);
  let body: string;
  if (rows.isEmpty) {
    body = '[]';
  } else {
    const { filter, prune } = nearbyFilter(context, entity, rows, kind === null ? -1 : KIND_CODE[kind], minPopulation);
    const hits = nearbySearch(indexes, { lat, lng, radiusKm, limit, filter, prune });
    const projection = searchProjection(entity, tier, includeTranslations, (locale === null ? ADDITIONS : ADDITIONS_LOCALIZED)[entity]);
    const store = ctx.store;
    const rowBytes = store[entity].rowBytes;
    if (rowBytes !== null) {
      // Fields written from the row's bytes, additions from `extras` (no record decoded: a
      // decoded city with its translations was ~5 KB of garbage per result); with a locale, the
      // name, native and translations read from the row give localized_name and matched_locale.
      const cityKinds = entity === 'cities' ? context.cityKinds() : null;
      const names = (locale === null ? ADDITIONS : ADDITIONS_LOCALIZED)[entity];
      return writeRowsArray(rowJsonWriter(rowBytes, projection, names), hits, extras, (values, hit) => {
        let e = 0;
        // Parent names as JSON text, made once per parent.
        if (entity !== 'countries') values[e++] = countryNameTextOfRow(store, entity, hit.row);
        if (entity === 'cities') values[e++] = stateNameTextOfCityRow(store, hit.row);
        values[e++] = roundKm(hit.distanceKm);
        if (cityKinds !== null) values[e++] = KIND_TEXTS[cityKinds[hit.row]!];
        if (locale !== null) {
          const localized = localizedNameOfRow(rowBytes, hit.row, locale);
          values[e++] = localized.localized_name;
          values[e] = localized.matched_locale;
        }
      });
    }
    body = jsonArray(
      hits.map((hit) => {
        const record = decodeRow(store, entity, hit.row);
        // The decoded record is ours: add the search fields to it (a spread copy costs µs per item).
        const item = record as unknown as Record<string, unknown>;
        if (entity !== 'countries') item.country_name = countryNameOfRow(store, entity, hit.row);
        if (entity === 'cities') item.state_name = stateNameOfCityRow(store, hit.row);
        item.distance_km = roundKm(hit.distanceKm);
        if (entity === 'cities') item.kind = cityKind((record as CityRecord).type);
        if (locale !== null) addLocalizedName(item, locale, record);
        return serializeObject(projection, item);
      }),
    );
  }
  return body;
}

/**
 * The postcode rows of a country (alpha-2; contiguous, none for an unknown country) as a row
 * predicate and as tree-node bounds (postcodes have no population or kind); both null for every row.
 */
function postcodeCountryFilter(store: Store, country: string | null): { filter: ((row: number) => boolean) | null; prune: GeoPrune | null } {
  if (country === null) return { filter: null, prune: null };
  const countryRow = countryRowByIso2(store, country);
  const start = countryRow < 0 ? 0 : store.relations.countryPostcodes.start[countryRow]!;
  const end = countryRow < 0 ? 0 : store.relations.countryPostcodes.end[countryRow]!;
  return { filter: (row: number) => row >= start && row < end, prune: { rowStart: start, rowEnd: end, maxima: null, minValue: 0, masks: null, mask: 0 } };
}

/** type=postcode: postcode records for the caller's tier plus distance_km, nearest first. */
function nearbyPostcodesBody(ctx: RequestContext, lat: number, lng: number, country: string | null, radiusKm: number, limit: number): string | Uint8Array {
  const store = ctx.store;
  const { filter, prune } = postcodeCountryFilter(store, country);
  const hits = nearbySearch(ctx.engine.search.postcodeGeo(), { lat, lng, radiusKm, limit, filter, prune });
  const projection = projectionFor(POSTCODE_FIELDS, ctx.caller.tier, { extra: ['distance_km'] });
  const rowBytes = store.postcodes.rowBytes;
  if (rowBytes !== null) return nearbyPostcodeRows(rowBytes, projection, hits, roundKm);
  return jsonArray(
    hits.map((hit) => {
      const item = toApiPostcode(store.postcodes.record(hit.row)) as unknown as Record<string, unknown>;
      item.distance_km = roundKm(hit.distanceKm);
      return serializeObject(projection, item);
    }),
  );
}

export const nearbySearchOperation: Operation = {
  name: 'nearbySearch',
  path: '/v1/search/nearby',
  errorShape: 'B',
  params: [
    LAT_SPEC, LNG_SPEC, TYPE_SPEC, COUNTRY_SPEC, STATE_SPEC, KIND_SPEC, MIN_POPULATION_SPEC, RADIUS_SPEC,
    limitSpec(NEARBY_LIMIT_MAX, NEARBY_LIMIT_DEFAULT), localeSpec(), includeTranslationsSpec(),
  ],
  doc: {
    tag: 'Search',
    summary: 'Places within a radius of a point, nearest first',
    description: 'Straight-line (haversine) distance to the stored coordinate of each place; not address search.',
    response: { schema: 'search-nearby' },
    statuses: [400],
  },
  handle,
};
