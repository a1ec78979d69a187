// Query arguments the PostgreSQL baselines compute in Node (no `pg` import here, so that
// bench/search.bench.ts can use them without the client installed): LIKE patterns and the
// bounding boxes of a nearby query.
import { EARTH_RADIUS_KM } from '../../../runtime/indexes/geo-index.js';

/** Bounding boxes (lng/lat degrees) holding every point within radiusKm of (lat, lng): two when the box crosses ±180°. */
export function boxesAround(lat: number, lng: number, radiusKm: number): [number, number, number, number][] {
  const angle = radiusKm / EARTH_RADIUS_KM;
  const dLat = (angle * 180) / Math.PI;
  const minLat = lat - dLat;
  const maxLat = lat + dLat;
  if (minLat <= -90 || maxLat >= 90) return [[-180, Math.max(-90, minLat), 180, Math.min(90, maxLat)]];
  const dLng = (Math.asin(Math.min(1, Math.sin(angle) / Math.cos((lat * Math.PI) / 180))) * 180) / Math.PI;
  const west = lng - dLng;
  const east = lng + dLng;
  if (west < -180) return [[west + 360, minLat, 180, maxLat], [-180, minLat, east, maxLat]];
  if (east > 180) return [[west, minLat, 180, maxLat], [-180, minLat, east - 360, maxLat]];
  return [[west, minLat, east, maxLat]];
}

/** `key` with LIKE's metacharacters (\ % _) escaped. */
export const likeEscape = (key: string): string => key.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE pattern matching the strings that start with `key`. */
export const likePrefix = (key: string): string => `${likeEscape(key)}%`;
