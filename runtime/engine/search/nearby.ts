// Nearby search: rows within radiusKm of a point, nearest first (NEARBY_RULES: haversine
// distance, distanceKm in runtime/indexes/geo-index.ts, then lower id). The KD-tree (geokdbush) walks outwards and stops at the radius or
// once it has enough rows; it orders equal distances by row, so rows tied with the last kept one
// are fetched too and the final order is by (distance, id).
import type { GeoIndex, GeoPrune } from '../../indexes/geo-index.js';
import { comparatorOf, NEARBY_RULES, type DistanceCandidate } from './ranking.js';

export type { GeoPrune };

/** What a nearby search reads: a KD-tree over the rows' coordinates and the rows' ids. */
export interface NearbyIndexes {
  readonly geo: GeoIndex;
  idAt(row: number): number;
}

export interface NearbyQuery {
  lat: number;
  lng: number;
  radiusKm: number;
  limit: number;
  /** Row predicate (country, state, kind, min_population), or null for every row. */
  filter: ((row: number) => boolean) | null;
  /** The same constraints as tree-node bounds, so the walk skips parts of the tree `filter` would reject whole (GeoPrune); null: none. */
  prune?: GeoPrune | null;
}

const compareNearby = comparatorOf(NEARBY_RULES);

// The tree's radius bound compares haversines, ours compares kilometres; a hair of slack keeps
// the tree from dropping a row our own test keeps. Rows beyond radiusKm are dropped below.
const RADIUS_SLACK = 1 + 1e-9;

/**
 * Filters allowing rows of a span this short (a state's, a small country's) are answered by
 * measuring each of its rows: a few µs, where the walk around the point meets every tree node
 * within the radius that holds other rows (~0.1–0.3 ms for 500 km when the span is near the point).
 */
const SCAN_MAX_ROWS = 256;

export function nearbySearch(indexes: NearbyIndexes, query: NearbyQuery): DistanceCandidate[] {
  const { lat, lng, radiusKm, limit } = query;
  const geo = indexes.geo;
  const filter = query.filter ?? undefined;
  const prune = query.prune ?? undefined;
  if (prune !== undefined && filter !== undefined && prune.rowEnd - prune.rowStart <= SCAN_MAX_ROWS) return nearbyInRows(indexes, query, prune.rowStart, prune.rowEnd, filter);
  let want = limit + 1;
  for (;;) {
    const { rows, distancesKm } = geo.aroundWithDistances(lng, lat, want, radiusKm * RADIUS_SLACK, filter, prune);
    const candidates: DistanceCandidate[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const distanceKm = distancesKm[i]!;
      if (distanceKm <= radiusKm) candidates.push({ row, id: indexes.idAt(row), distanceKm });
    }
    const exhausted = rows.length < want;
    // Complete when the tree ran out of rows, or the farthest fetched row is strictly farther
    // than the limit-th (so no unfetched row can tie or beat a kept one).
    if (exhausted || candidates.length < rows.length || candidates[candidates.length - 1]!.distanceKm > candidates[limit - 1]!.distanceKm) return firstRanked(candidates, limit);
    want *= 2;
  }
}

/** nearbySearch over the rows [rowStart, rowEnd) that pass `filter`: each measured with the walk's distance, then ranked alike. */
function nearbyInRows(indexes: NearbyIndexes, query: NearbyQuery, rowStart: number, rowEnd: number, filter: (row: number) => boolean): DistanceCandidate[] {
  const candidates: DistanceCandidate[] = [];
  for (let row = rowStart; row < rowEnd; row++) {
    if (!filter(row)) continue;
    const distanceKm = indexes.geo.distanceKmTo(row, query.lng, query.lat);
    // NaN (a row without coordinates) fails the test.
    if (distanceKm <= query.radiusKm) candidates.push({ row, id: indexes.idAt(row), distanceKm });
  }
  return firstRanked(candidates, query.limit);
}

/** The first `limit` candidates by NEARBY_RULES. */
function firstRanked(candidates: DistanceCandidate[], limit: number): DistanceCandidate[] {
  candidates.sort(compareNearby);
  return candidates.length > limit ? candidates.slice(0, limit) : candidates;
}

/** Kilometres rounded to 2 decimals, as served in `distance_km`. */
export function roundKm(km: number): number {
  return Math.round(km * 100) / 100;
}
