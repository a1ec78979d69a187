// Great-circle distance on a sphere, the one formula nearby search ranks and filters by.
// Earth radius 6371 km (the IUGG mean radius rounded to the kilometre). The expression is
// geokdbush's (the KD-tree's walk order and radius bound), operation for operation, so both give
// the same double for the same point pair: the tree's "nearest first" is our order.

export const EARTH_RADIUS_KM = 6371;

const RAD = Math.PI / 180;

function haverSin(theta: number): number {
  const s = Math.sin(theta / 2);
  return s * s;
}

/** Haversine distance in km from the query point (lat1, lng1) to (lat2, lng2), in degrees. */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const h = Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * haverSin((lng1 - lng2) * RAD) + haverSin((lat1 - lat2) * RAD);
  // Rounding can push h a hair above 1 for antipodal points, where asin would give NaN.
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(h < 1 ? h : 1));
}

/** Kilometres rounded to 2 decimals, as served in `distance_km`. */
export function roundKm(km: number): number {
  return Math.round(km * 100) / 100;
}
