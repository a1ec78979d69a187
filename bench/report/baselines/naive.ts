// Baseline 3, the naive in-memory server: JSON.parse of the raw dataset files at start, then
// Array.filter / sort / find over those arrays on every request. Per record it keeps only what a
// careful first version would compute once (normalised name keys, trigram sets, numeric
// coordinates): no index structure, no sorted order, no response cache. Every search scans every
// city; every list filters and sorts.
//   node dist/bench/report/baselines/naive.js <dataset dir> <port> <workers>
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AUTOCOMPLETE_FUZZY_THRESHOLD, TRANSLATION_MIN_CHARS } from '../../../runtime/engine/search/autocomplete.js';
import { cityKind } from '../../../runtime/engine/search/city-kind.js';
import { roundKm } from '../../../runtime/engine/search/nearby.js';
import { distanceKm } from '../../../runtime/indexes/geo-index.js';
import { matchKey, postcodeDisplayQuery, postcodeKey } from '../../../runtime/text/normalise.js';
import { commonTrigramCount, roundScore, similarityFromCounts, trigramsOf } from '../../../runtime/text/trigram.js';
import { unaccent } from '../../../runtime/text/unaccent.js';
import { readDataset, type City, type Country, type Postcode } from '../dataset.js';
import { baselineArgs, errorA, errorB, ok, serveBaseline, type Answer, type BaselineHandlers } from './http.js';
import { parsePhone, prefixesOf } from './phone.js';

interface CityEntry {
  city: City;
  sortKey: string;
  nameKey: string;
  nativeKey: string | null;
  translationKeys: string[];
  nameTrigrams: Int32Array;
  nativeTrigrams: Int32Array | null;
  /** Trigrams of unaccent(name) / unaccent(native) (the same arrays when unaccent changes nothing). */
  nameUaTrigrams: Int32Array;
  nativeUaTrigrams: Int32Array | null;
  lat: number;
  lng: number;
  /** -1 when unknown, so unknown populations rank last. */
  population: number;
}

interface PostcodeEntry {
  postcode: Postcode;
  codeKey: string;
  localityKey: string | null;
  stateKey: string | null;
}

interface Scored {
  entry: CityEntry;
  score: number;
  field: string;
}

const encoder = new TextEncoder();
const utf8Length = (text: string): number => encoder.encode(text).length;
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function byName<T extends { sortKey: string }>(record: (entry: T) => { name: string; id: number }): (a: T, b: T) => number {
  return (a, b) => compareText(a.sortKey, b.sortKey) || compareText(record(a).name, record(b).name) || record(a).id - record(b).id;
}

/** Trigrams of unaccent(text), reusing `trigrams` (those of text) when unaccent leaves text alone. */
function unaccentTrigrams(text: string, trigrams: Int32Array): Int32Array {
  const ua = unaccent(text);
  return ua === text ? trigrams : trigramsOf(ua);
}

function cityEntry(city: City): CityEntry {
  const nameTrigrams = trigramsOf(city.name);
  const nativeTrigrams = city.native ? trigramsOf(city.native) : null;
  const translations = city.translations ? Object.values(JSON.parse(city.translations) as Record<string, unknown>) : [];
  return {
    city,
    sortKey: matchKey(city.name),
    nameKey: matchKey(city.name),
    nativeKey: city.native ? matchKey(city.native) : null,
    translationKeys: [...new Set(translations.filter((t): t is string => typeof t === 'string').map(matchKey).filter((k) => k !== ''))],
    nameTrigrams,
    nativeTrigrams,
    nameUaTrigrams: unaccentTrigrams(city.name, nameTrigrams),
    nativeUaTrigrams: city.native && nativeTrigrams ? unaccentTrigrams(city.native, nativeTrigrams) : null,
    lat: city.latitude === null ? NaN : Number(city.latitude),
    lng: city.longitude === null ? NaN : Number(city.longitude),
    population: city.population ?? -1,
  };
}

const similarityTo = (qTrigrams: Int32Array, trigrams: Int32Array): number =>
  similarityFromCounts(commonTrigramCount(qTrigrams, trigrams), qTrigrams.length, trigrams.length);

/** Trigrams of q and of unaccent(q). */
interface QueryTrigrams {
  plain: Int32Array;
  unaccented: Int32Array;
}

function queryTrigrams(q: string): QueryTrigrams {
  const plain = trigramsOf(q);
  return { plain, unaccented: unaccentTrigrams(q, plain) };
}

/** geoapi's match_score: max(similarity(q, text), similarity(unaccent(q), unaccent(text))). */
const matchScore = (q: QueryTrigrams, trigrams: Int32Array, uaTrigrams: Int32Array): number =>
  Math.max(similarityTo(q.plain, trigrams), similarityTo(q.unaccented, uaTrigrams));

/** Starts-with share of a matched key: 1 when equal, else the typed UTF-8 bytes over the key's. */
const prefixScore = (key: string, keyBytes: number, text: string): number => (text.length === key.length ? 1 : keyBytes / utf8Length(text));

export function naiveHandlers(datasetDir: string): BaselineHandlers {
  const dataset = readDataset(datasetDir, { postcodes: true });
  const countries = dataset.countries.map((country) => ({ country, sortKey: matchKey(country.name) }));
  const states = dataset.states.map((state) => ({ state, sortKey: matchKey(state.name) }));
  const allCities = [...dataset.citiesByCountry.values()].map((list) => list.map(cityEntry));
  const citiesByCountry = new Map([...dataset.citiesByCountry.keys()].map((code, i) => [code, allCities[i]!] as const));
  const postcodesByCountry = new Map(
    [...dataset.postcodesByCountry].map(([code, list]) => [
      code,
      list.map((postcode): PostcodeEntry => ({
        postcode,
        codeKey: postcodeKey(postcode.code),
        localityKey: postcode.locality_name ? matchKey(postcode.locality_name) : null,
        stateKey: postcode.state_code ? postcode.state_code.toUpperCase() : null,
      })),
    ] as const),
  );

  const findCountry = (ciso: string): Country | undefined => {
    const text = ciso.trim().toUpperCase();
    if (/^[A-Z]{2}$/.test(text)) return dataset.countries.find((c) => c.iso2 === text);
    if (/^[A-Z]{3}$/.test(text)) return dataset.countries.find((c) => c.iso3 === text);
    if (/^\d+$/.test(text)) return dataset.countries.find((c) => c.id === Number(text));
    return undefined;
  };
  const stateName = (id: number): string | null => dataset.states.find((s) => s.id === id)?.name ?? null;
  const countryName = (id: number): string | null => dataset.countries.find((c) => c.id === id)?.name ?? null;
  const sortedStates = (country: Country) => states.filter((s) => s.state.country_id === country.id).sort(byName((s) => s.state));
  const rank = (a: Scored, b: Scored): number => b.entry.population - a.entry.population || a.entry.city.id - b.entry.city.id;

  return {
    countries() {
      return ok([...countries].sort(byName((c) => c.country)).map((c) => c.country));
    },

    country(ciso) {
      const country = findCountry(ciso);
      return country ? ok(country) : errorA(404, 'Country not found.');
    },

    states(ciso) {
      const country = findCountry(ciso);
      const list = country ? sortedStates(country) : [];
      return list.length > 0 ? ok(list.map((s) => s.state)) : errorA(404, 'No States/Regions found.');
    },

    stateCities(ciso, siso) {
      const country = findCountry(ciso);
      const code = siso.trim().toUpperCase();
      const state = country ? sortedStates(country).find((s) => s.state.iso2?.toUpperCase() === code)?.state : undefined;
      const cities = country ? (citiesByCountry.get(country.iso2.toUpperCase()) ?? []) : [];
      const list = state ? cities.filter((c) => c.city.state_id === state.id).sort(byName((c) => c.city)) : [];
      return list.length > 0 ? ok(list.map((c) => c.city)) : errorA(404, 'No Cities found.');
    },

    postcode(countryCode, code) {
      const cc = countryCode.toUpperCase();
      if (!dataset.countries.some((c) => c.iso2 === cc)) return errorB(404, `Country ${cc} not found.`, { reason: 'country_not_found' });
      const all = postcodesByCountry.get(cc);
      if (!all || all.length === 0) return errorB(404, `No postcode data for ${cc}.`, { reason: 'postcode_coverage_unavailable' });
      const key = postcodeKey(code);
      const display = postcodeDisplayQuery(code);
      const matches = all.filter((p) => p.codeKey === key);
      const exact = matches.filter((p) => postcodeDisplayQuery(p.postcode.code) === display);
      const rows = (exact.length > 0 ? exact : matches).map((p) => p.postcode).sort((a, b) => Number(a.id) - Number(b.id));
      if (rows.length === 0) return errorB(404, `Postcode not found in ${cc}.`, { reason: 'postcode_not_found' });
      return ok({ data: rows, meta: { country_code: cc, query: display, match_count: rows.length } });
    },

    postcodes(countryCode, query) {
      const cc = countryCode.toUpperCase();
      if (!dataset.countries.some((c) => c.iso2 === cc)) return errorB(404, `Country ${cc} not found.`, { reason: 'country_not_found' });
      const qKey = query.q === null ? null : matchKey(query.q.trim());
      const codePrefix = qKey === null ? '' : postcodeKey(qKey);
      const stateKey = query.stateCode === null ? null : query.stateCode.toUpperCase();
      const matching = (postcodesByCountry.get(cc) ?? [])
        .filter((p) => stateKey === null || p.stateKey === stateKey)
        .filter((p) => qKey === null || (codePrefix !== '' && p.codeKey.startsWith(codePrefix)) || (p.localityKey !== null && p.localityKey.includes(qKey)))
        .sort((a, b) => compareText(a.codeKey, b.codeKey) || compareText(a.postcode.code, b.postcode.code) || Number(a.postcode.id) - Number(b.postcode.id));
      const page = matching.slice(0, query.limit).map((p) => p.postcode);
      const hasMore = matching.length > query.limit;
      const last = page[page.length - 1];
      const nextCursor = hasMore && last ? Buffer.from(JSON.stringify([cc, last.id])).toString('base64url') : null;
      return ok({ data: page, pagination: { limit: query.limit, next_cursor: nextCursor, has_more: hasMore } });
    },

    autocomplete({ q, limit }): Answer {
      if ([...q].length < 2) return errorB(400, 'Invalid query parameters: q: Search query must be at least 2 characters');
      const key = matchKey(q);
      const keyBytes = utf8Length(key);
      // Rules 1–2: exact and starts-with on name or native; a row keeps its best way (exact, then score, then name).
      const exact: Scored[] = [];
      const startsWith: Scored[] = [];
      for (const list of allCities) {
        for (const entry of list) {
          let best: Scored | null = null;
          if (entry.nameKey.startsWith(key)) best = { entry, score: prefixScore(key, keyBytes, entry.nameKey), field: 'name' };
          if (entry.nativeKey !== null && entry.nativeKey.startsWith(key)) {
            const score = prefixScore(key, keyBytes, entry.nativeKey);
            if (!best || score > best.score) best = { entry, score, field: 'native' };
          }
          if (best) (best.score === 1 ? exact : startsWith).push(best);
        }
      }
      exact.sort(rank);
      startsWith.sort(rank);
      const results = [...exact, ...startsWith].slice(0, limit);
      if (results.length < limit) {
        // Rule 3: translations (from 3 characters) and trigram match_score ≥ AUTOCOMPLETE_FUZZY_THRESHOLD,
        // best per row (ties: name, native, translation), by the served (rounded) score.
        const taken = new Set(results.map((r) => r.entry));
        const qTrigrams = queryTrigrams(q);
        const withTranslations = [...key].length >= TRANSLATION_MIN_CHARS;
        const others: Scored[] = [];
        for (const list of allCities) {
          for (const entry of list) {
            if (taken.has(entry)) continue;
            let best: Scored | null = null;
            const nameScore = matchScore(qTrigrams, entry.nameTrigrams, entry.nameUaTrigrams);
            if (nameScore >= AUTOCOMPLETE_FUZZY_THRESHOLD) best = { entry, score: nameScore, field: 'name' };
            if (entry.nativeTrigrams && entry.nativeUaTrigrams) {
              const score = matchScore(qTrigrams, entry.nativeTrigrams, entry.nativeUaTrigrams);
              if (score >= AUTOCOMPLETE_FUZZY_THRESHOLD && (!best || score > best.score)) best = { entry, score, field: 'native' };
            }
            if (withTranslations) {
              for (const text of entry.translationKeys) {
                if (!text.startsWith(key)) continue;
                const score = prefixScore(key, keyBytes, text);
                if (!best || score > best.score) best = { entry, score, field: 'translation' };
              }
            }
            if (best) others.push(best);
          }
        }
        others.sort((a, b) => roundScore(b.score) - roundScore(a.score) || rank(a, b));
        results.push(...others.slice(0, limit - results.length));
      }
      return ok(
        results.map(({ entry, score, field }) => {
          const { city } = entry;
          const label = [city.name, stateName(city.state_id), countryName(city.country_id)].filter((part) => part).join(', ');
          return { ...city, type: 'city', label, match_score: roundScore(score), matched_field: field };
        }),
      );
    },

    fuzzy({ q, limit, threshold }): Answer {
      if ([...q].length < 2) return errorA(400, 'Invalid query parameters: q: Search query must be at least 2 characters');
      const qTrigrams = queryTrigrams(q);
      const matches: (Scored & { alias: boolean })[] = [];
      for (const list of allCities) {
        for (const entry of list) {
          const nameScore = matchScore(qTrigrams, entry.nameTrigrams, entry.nameUaTrigrams);
          const nativeScore = entry.nativeTrigrams && entry.nativeUaTrigrams ? matchScore(qTrigrams, entry.nativeTrigrams, entry.nativeUaTrigrams) : 0;
          const score = Math.max(nameScore, nativeScore);
          if (score >= threshold) matches.push({ entry, score, field: 'name', alias: nativeScore > nameScore });
        }
      }
      matches.sort((a, b) => b.score - a.score || rank(a, b));
      return ok(
        matches.slice(0, limit).map(({ entry, score, alias }) => ({
          ...entry.city,
          country_name: countryName(entry.city.country_id),
          state_name: stateName(entry.city.state_id),
          match_score: roundScore(score),
          matched_alias: alias ? entry.city.native : null,
        })),
      );
    },

    nearby({ lat, lng, radiusKm, limit }): Answer {
      if (!(lat >= -90 && lat <= 90)) return errorB(400, 'Invalid query parameters: lat: lat must be between -90 and 90');
      if (!(lng >= -180 && lng <= 180)) return errorB(400, 'Invalid query parameters: lng: lng must be between -180 and 180');
      const near: { entry: CityEntry; km: number }[] = [];
      for (const list of allCities) {
        for (const entry of list) {
          if (Number.isNaN(entry.lat) || Number.isNaN(entry.lng)) continue;
          const km = distanceKm(lng, lat, entry.lng, entry.lat);
          if (km <= radiusKm) near.push({ entry, km });
        }
      }
      near.sort((a, b) => a.km - b.km || a.entry.city.id - b.entry.city.id);
      return ok(
        near.slice(0, limit).map(({ entry, km }) => ({
          ...entry.city,
          country_name: countryName(entry.city.country_id),
          state_name: stateName(entry.city.state_id),
          distance_km: roundKm(km),
          kind: cityKind(entry.city.type),
        })),
      );
    },

    phoneParse(number) {
      return parsePhone(number, (prefixes) => dataset.countries.filter((country) => prefixesOf(country).some((p) => prefixes.includes(p))));
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { datasetDir, port, workers } = baselineArgs();
  await serveBaseline(port, workers, async () => naiveHandlers(datasetDir));
}
