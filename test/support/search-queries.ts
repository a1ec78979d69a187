// Generated search queries, shared by the full-dataset search tests and the search benches
// (bench/search.bench.ts, bench/compare-builds.ts): one typo model, one query mix, so that the
// benches measure the same queries and a seed reproduces them exactly.
import { prng } from './random.js';

export type SearchQuery = Record<string, string>;

/** One random edit of `text`: a character dropped (when more than 3), a vowel-ish one inserted, or two swapped. */
export function typo(random: () => number, text: string): string {
  const chars = [...text];
  const i = Math.floor(random() * chars.length);
  const edit = Math.floor(random() * 3);
  if (edit === 0 && chars.length > 3) chars.splice(i, 1);
  else if (edit === 1) chars.splice(i, 0, 'aeiourn'[Math.floor(random() * 7)]!);
  else if (i + 1 < chars.length) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
  return chars.join('');
}

const qLength = (q: string): number => [...q.trim()].length;

export interface QueryPlaces {
  count: number;
  name(row: number): string;
  /** A row's latitude and longitude (NaN when unknown); without it no nearby queries are made. */
  point?: (row: number) => [lat: number, lng: number];
}

export interface SearchQuerySets {
  fuzzySearch: SearchQuery[];
  autocomplete: SearchQuery[];
  /** Empty when `places.point` is not given. */
  nearbySearch: SearchQuery[];
}

/**
 * The search bench's query mix, `perOperation` queries each: typo'd names (fuzzy), prefixes as
 * typed (autocomplete), points near places (nearby). Drawn in that order from one generator.
 */
export function searchQuerySets(places: QueryPlaces, perOperation = 1000, seed = 2024): SearchQuerySets {
  const random = prng(seed);
  const row = (): number => Math.floor(random() * places.count);
  const fuzzy: SearchQuery[] = [];
  while (fuzzy.length < perOperation) {
    const q = typo(random, places.name(row())).trim();
    if (qLength(q) >= 2 && qLength(q) <= 100) fuzzy.push({ q });
  }
  const autocomplete: SearchQuery[] = [];
  while (autocomplete.length < perOperation) {
    const name = places.name(row());
    // 4 in 5 type-ahead prefixes of 2–8 characters, 1 in 5 a mistyped whole name (trigram fill).
    const q = (random() < 0.8 ? [...name].slice(0, 2 + Math.floor(random() * 7)).join('') : typo(random, name)).trim();
    if (qLength(q) >= 2 && qLength(q) <= 100) autocomplete.push({ q });
  }
  const nearby: SearchQuery[] = [];
  const point = places.point;
  while (point && nearby.length < perOperation) {
    const [pointLat, pointLng] = point(row());
    if (Number.isNaN(pointLat)) continue;
    const lat = Math.max(-90, Math.min(90, pointLat + (random() - 0.5)));
    const lng = ((pointLng + (random() - 0.5) + 540) % 360) - 180;
    // Mostly the defaults (25 km, 20 results), one in five the largest radius.
    nearby.push(random() < 0.8 ? { lat: lat.toFixed(5), lng: lng.toFixed(5) } : { lat: lat.toFixed(5), lng: lng.toFixed(5), radius: '500' });
  }
  return { fuzzySearch: fuzzy, autocomplete, nearbySearch: nearby };
}
