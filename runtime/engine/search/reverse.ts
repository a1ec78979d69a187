// Reverse lookup ("where is this point"): the nearest city within a radius, its state and
// country, and the nearest postcode within the same radius. Nearest *stored coordinate* (the
// same haversine distance and tie order as nearby: distance, then lower id), not a border test:
// a point near a border can get the city across it.
import type { Store } from '../../store/types.js';
import type { SearchContext } from './context.js';
import { nearbySearch } from './nearby.js';
import type { DistanceCandidate } from './ranking.js';

export interface ReverseHit {
  city: DistanceCandidate;
  /** Parent rows of the city (-1 when it has none). */
  stateRow: number;
  countryRow: number;
  postcode: DistanceCandidate | null;
}

/** The nearest city (and postcode) within radiusKm of the point, or null when no city lies within it. */
export function reverseLookup(store: Store, context: SearchContext, lat: number, lng: number, radiusKm: number): ReverseHit | null {
  const [city] = nearbySearch(context.indexes('cities'), { lat, lng, radiusKm, limit: 1, filter: null });
  if (city === undefined) return null;
  const [postcode] = nearbySearch(context.postcodeGeo(), { lat, lng, radiusKm, limit: 1, filter: null });
  return {
    city,
    stateRow: store.relations.cityStateRow[city.row]!,
    countryRow: store.relations.cityCountryRow[city.row]!,
    postcode: postcode ?? null,
  };
}
