// Brute-force answers for the three searches, computed from every decoded record of a Store
// without any index: the ground truth the engine must reproduce exactly. Written independently of
// runtime/engine/search (own sort code), sharing only the definitions: distanceKm (the distance, runtime/indexes/geo-index.ts),
// similarity/roundScore (pg_trgm's score), unaccent (PostgreSQL's) and matchKey (the matching form).
// match_score of a text = max(similarity(q, text), similarity(unaccent(q), unaccent(text))) (decisions.md).
import { roundKm } from '../../../runtime/engine/search/nearby.js';
import { distanceKm } from '../../../runtime/indexes/geo-index.js';
import { cityKind } from '../../../runtime/engine/search/city-kind.js';
import type { Store } from '../../../runtime/store/types.js';
import { openProminence } from '../../../runtime/format/prominence.js';
import { PROMINENCE_SECTION } from '../../../runtime/format/sections.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import { commonTrigramCount, roundScore, similarityFromCounts, trigramsOf } from '../../../runtime/text/trigram.js';
import { unaccent } from '../../../runtime/text/unaccent.js';

export type Entity = 'cities' | 'states' | 'countries';

export interface Places {
  entity: Entity;
  count: number;
  ids: Int32Array;
  names: string[];
  natives: (string | null)[];
  nameKeys: string[];
  nativeKeys: (string | null)[];
  translationKeys: string[][];
  nameTrigrams: Int32Array[];
  nativeTrigrams: (Int32Array | null)[];
  /** trigramsOf(unaccent(name)), trigramsOf(unaccent(native)). */
  unaccentedNameTrigrams: Int32Array[];
  unaccentedNativeTrigrams: (Int32Array | null)[];
  population: Float64Array;
  /**
   * Autocomplete's rule-4 value: the `prominence.cities` column when the snapshot has it (the
   * dataset's population, else GeoNames'), else `population`.
   */
  prominence: Float64Array;
  lat: Float64Array;
  lng: Float64Array;
  countryCode: string[];
  /** Cities: the state's iso2 (upper case) — what the `state` filter compares. */
  stateCode: (string | null)[];
  kind: string[];
}

const DECIMAL_RE = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/;
function coordinate(text: string | null, limit: number): number {
  const value = text !== null && DECIMAL_RE.test(text) ? Number(text) : NaN;
  return value >= -limit && value <= limit ? value : NaN;
}

function translationKeysOf(json: string | null): string[] {
  if (json === null) return [];
  const parsed = JSON.parse(json) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  return Object.values(parsed).filter((v): v is string => typeof v === 'string').map(matchKey).filter((k) => k !== '');
}

const cache = new WeakMap<Store, Map<Entity, Places>>();

/** Every record of an entity, decoded once per Store. */
export function placesOf(store: Store, entity: Entity): Places {
  let byEntity = cache.get(store);
  if (!byEntity) cache.set(store, (byEntity = new Map()));
  const found = byEntity.get(entity);
  if (found) return found;
  const table = store[entity];
  const count = table.count;
  const countryIso2 = Array.from({ length: store.countries.count }, (_, row) => store.countries.record(row).iso2);
  const stateIso2 = Array.from({ length: store.states.count }, (_, row) => store.states.record(row).iso2?.toUpperCase() ?? null);
  const places: Places = {
    entity, count, ids: new Int32Array(count), names: [], natives: [], nameKeys: [], nativeKeys: [], translationKeys: [],
    nameTrigrams: [], nativeTrigrams: [], unaccentedNameTrigrams: [], unaccentedNativeTrigrams: [], population: new Float64Array(count), prominence: new Float64Array(0), lat: new Float64Array(count), lng: new Float64Array(count),
    countryCode: [], stateCode: [], kind: [],
  };
  for (let row = 0; row < count; row++) {
    const record = table.record(row);
    places.ids[row] = record.id;
    places.names.push(record.name);
    places.natives.push(record.native);
    places.nameKeys.push(matchKey(record.name));
    places.nativeKeys.push(record.native === null ? null : matchKey(record.native));
    places.translationKeys.push(translationKeysOf(record.translations));
    places.nameTrigrams.push(trigramsOf(record.name));
    places.nativeTrigrams.push(record.native === null ? null : trigramsOf(record.native));
    places.unaccentedNameTrigrams.push(trigramsOf(unaccent(record.name)));
    places.unaccentedNativeTrigrams.push(record.native === null ? null : trigramsOf(unaccent(record.native)));
    places.population[row] = record.population ?? -1;
    places.lat[row] = coordinate(record.latitude, 90);
    places.lng[row] = coordinate(record.longitude, 180);
    if (entity === 'cities') {
      const city = store.cities.record(row);
      const countryRow = store.relations.cityCountryRow[row]!;
      const stateRow = store.relations.cityStateRow[row]!;
      places.countryCode.push(countryRow >= 0 ? countryIso2[countryRow]! : '');
      places.stateCode.push(stateRow >= 0 ? stateIso2[stateRow]! : null);
      places.kind.push(cityKind(city.type));
    } else if (entity === 'states') {
      const countryRow = store.relations.stateCountryRow[row]!;
      places.countryCode.push(countryRow >= 0 ? countryIso2[countryRow]! : '');
      places.stateCode.push(null);
      places.kind.push('');
    } else {
      places.countryCode.push('');
      places.stateCode.push(null);
      places.kind.push('');
    }
  }
  places.prominence =
    entity === 'cities' && store.hasSection(PROMINENCE_SECTION)
      ? openProminence(store.section(PROMINENCE_SECTION), count, PROMINENCE_SECTION).prominence
      : places.population;
  byEntity.set(entity, places);
  return places;
}

export interface Filters {
  country?: string;
  state?: string;
  kind?: string;
  minPopulation?: number;
}

function passes(places: Places, row: number, filters: Filters): boolean {
  if (filters.country !== undefined && places.countryCode[row] !== filters.country) return false;
  if (filters.state !== undefined && places.stateCode[row] !== filters.state) return false;
  if (filters.kind !== undefined && places.kind[row] !== filters.kind) return false;
  if (filters.minPopulation !== undefined && filters.minPopulation > 0 && !(places.population[row]! >= filters.minPopulation)) return false;
  return true;
}

// ---- nearby -----------------------------------------------------------------------------------

export interface NearbyExpectation {
  id: number;
  distance_km: number;
}

export function bruteNearby(places: Places, lat: number, lng: number, radiusKm: number, limit: number, filters: Filters = {}): NearbyExpectation[] {
  const found: { id: number; d: number }[] = [];
  for (let row = 0; row < places.count; row++) {
    if (Number.isNaN(places.lat[row]!) || Number.isNaN(places.lng[row]!)) continue;
    if (!passes(places, row, filters)) continue;
    const d = distanceKm(lng, lat, places.lng[row]!, places.lat[row]!);
    if (d <= radiusKm) found.push({ id: places.ids[row]!, d });
  }
  found.sort((a, b) => (a.d !== b.d ? a.d - b.d : a.id - b.id));
  return found.slice(0, limit).map(({ id, d }) => ({ id, distance_km: roundKm(d) }));
}

/** The query's trigrams, plain and unaccented. */
function queryTrigrams(q: string): [Int32Array, Int32Array] {
  return [trigramsOf(q), trigramsOf(unaccent(q))];
}

const sim = (a: Int32Array, b: Int32Array): number => similarityFromCounts(commonTrigramCount(a, b), a.length, b.length);

/** match_score of the row's name and native (-1 without one). */
function scoresOf(places: Places, row: number, [qt, uqt]: [Int32Array, Int32Array]): [number, number] {
  const name = Math.max(sim(qt, places.nameTrigrams[row]!), sim(uqt, places.unaccentedNameTrigrams[row]!));
  const nt = places.nativeTrigrams[row];
  const native = nt ? Math.max(sim(qt, nt), sim(uqt, places.unaccentedNativeTrigrams[row]!)) : -1;
  return [name, native];
}

// ---- fuzzy ------------------------------------------------------------------------------------

export interface FuzzyExpectation {
  id: number;
  match_score: number;
  matched_alias: string | null;
}

export function bruteFuzzy(places: Places, q: string, threshold: number, limit: number, filters: Filters = {}): FuzzyExpectation[] {
  const qt = queryTrigrams(q);
  const found: { row: number; score: number; alias: boolean }[] = [];
  for (let row = 0; row < places.count; row++) {
    if (!passes(places, row, filters)) continue;
    const [nameScore, nativeScore] = scoresOf(places, row, qt);
    const score = Math.max(nameScore, nativeScore);
    if (score >= threshold && score > 0) found.push({ row, score, alias: nativeScore > nameScore });
  }
  found.sort((a, b) => b.score - a.score || places.population[b.row]! - places.population[a.row]! || places.ids[a.row]! - places.ids[b.row]!);
  return found.slice(0, limit).map(({ row, score, alias }) => ({ id: places.ids[row]!, match_score: roundScore(score), matched_alias: alias ? places.natives[row]! : null }));
}

// ---- autocomplete -----------------------------------------------------------------------------

export interface AutocompleteExpectation {
  id: number;
  match_score: number;
  matched_field: 'name' | 'native' | 'translation';
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
const FIELD_ORDER = { name: 0, native: 1, translation: 2 } as const;

/**
 * The five rules, applied to every row (see runtime/engine/search/README.md for match_score):
 * rule 3 on the rounded match_score the client sees, rule 4 on the row's prominence.
 */
export function bruteAutocomplete(places: Places, q: string, limit: number, filters: Filters = {}): AutocompleteExpectation[] {
  const key = matchKey(q);
  const keyBytes = utf8(key);
  const translations = [...key].length >= 3;
  const qt = queryTrigrams(q);
  type Found = { row: number; bucket: number; score: number; field: 'name' | 'native' | 'translation' };
  const found: Found[] = [];
  for (let row = 0; row < places.count; row++) {
    if (!passes(places, row, filters)) continue;
    const nameKey = places.nameKeys[row]!;
    const nativeKey = places.nativeKeys[row];
    if (key === '') continue;
    if (nameKey === key || nativeKey === key) {
      found.push({ row, bucket: 0, score: 1, field: nameKey === key ? 'name' : 'native' });
      continue;
    }
    const nameShare = nameKey.startsWith(key) ? keyBytes / utf8(nameKey) : -1;
    const nativeShare = nativeKey?.startsWith(key) ? keyBytes / utf8(nativeKey) : -1;
    if (nameShare > 0 || nativeShare > 0) {
      found.push({ row, bucket: 1, score: Math.max(nameShare, nativeShare), field: nativeShare > nameShare ? 'native' : 'name' });
      continue;
    }
    let best: Found | null = null;
    const consider = (score: number, field: Found['field']) => {
      if (!best || score > best.score || (score === best.score && FIELD_ORDER[field] < FIELD_ORDER[best.field])) best = { row, bucket: 2, score, field };
    };
    if (translations) {
      for (const tk of places.translationKeys[row]!) if (tk.startsWith(key)) consider(tk === key ? 1 : keyBytes / utf8(tk), 'translation');
    }
    const [nameScore, nativeScore] = scoresOf(places, row, qt);
    // Autocomplete's trigram candidates: similarity ≥ 0.2 (runtime/engine/search/README.md).
    if (nameScore >= 0.2) consider(nameScore, 'name');
    if (nativeScore >= 0.2) consider(nativeScore, 'native');
    if (best) found.push(best);
  }
  found.sort(
    (a, b) =>
      a.bucket - b.bucket ||
      (a.bucket === 2 ? roundScore(b.score) - roundScore(a.score) : 0) ||
      places.prominence[b.row]! - places.prominence[a.row]! ||
      places.ids[a.row]! - places.ids[b.row]!,
  );
  return found.slice(0, limit).map(({ row, score, field }) => ({ id: places.ids[row]!, match_score: roundScore(score), matched_field: field }));
}
