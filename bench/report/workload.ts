// The report's request lists, drawn from the dataset with a seeded generator: every run sends the
// same requests, in the same order, to every system. One list per operation, a weighted mix of
// them, and search lists for the growth benchmark (drawn from the smallest city sample, so every
// query means the same thing at every size).
import { NANP_AREA_CODES } from '../../runtime/engine/phone.js';
import { allCities, type City, type RawDataset } from './dataset.js';
import { below, pick, prng, shuffle } from './random.js';

/** The report's workload seed (bench/report/main.ts); the swap bench draws the same mix. */
export const REPORT_SEED = 20261122;

export const OPERATIONS = [
  'countryList',
  'countryStates',
  'stateCities',
  'countryDetail',
  'postcodeLookup',
  'postcodePage',
  'autocomplete',
  'fuzzy',
  'nearby',
  'phoneParse',
] as const;
export type Operation = (typeof OPERATIONS)[number];
export const SEARCH_OPERATIONS = ['autocomplete', 'fuzzy', 'nearby'] as const satisfies readonly Operation[];
export type SearchOperation = (typeof SEARCH_OPERATIONS)[number];

/** The shape of each operation's paths (a RegExp source): the report's bare floor sizes its bodies by it. */
export const OPERATION_PATH_PATTERNS: Record<Operation, string> = {
  countryList: '^/v1/countries$',
  countryStates: '^/v1/countries/[^/]+/states$',
  stateCities: '^/v1/countries/[^/]+/states/[^/]+/cities$',
  countryDetail: '^/v1/countries/[^/]+$',
  postcodeLookup: '^/v1/countries/[^/]+/postcodes/[^/]+$',
  postcodePage: '^/v1/countries/[^/]+/postcodes$',
  autocomplete: '^/v1/search/autocomplete$',
  fuzzy: '^/v1/search/fuzzy$',
  nearby: '^/v1/search/nearby$',
  phoneParse: '^/v1/phone/parse$',
};

export const OPERATION_LABELS: Record<Operation, string> = {
  countryList: 'country list',
  countryStates: 'states of a country',
  stateCities: 'cities of a state',
  countryDetail: 'country detail',
  postcodeLookup: 'postcode exact',
  postcodePage: 'postcode page',
  autocomplete: 'autocomplete (2–6 chars)',
  fuzzy: 'fuzzy (typos)',
  nearby: 'nearby',
  phoneParse: 'phone parse',
};

/**
 * Share of each operation in the mix (percent): type-ahead dominates traffic behind address
 * forms; lookups and short lists follow; whole-country lists and bulk paging are rare.
 */
export const MIX_WEIGHTS: Record<Operation, number> = {
  autocomplete: 30,
  postcodeLookup: 12,
  countryDetail: 10,
  countryStates: 10,
  stateCities: 10,
  nearby: 8,
  fuzzy: 6,
  phoneParse: 6,
  postcodePage: 4,
  countryList: 4,
};

export interface Workload {
  seed: number;
  perOperation: Record<Operation, string[]>;
  mix: string[];
  /** Search requests for the growth benchmark (valid at every sample size). */
  growth: Record<SearchOperation, string[]>;
}

const enc = encodeURIComponent;

/** One typing mistake: a deleted, inserted or swapped character. */
function typo(random: () => number, text: string): string {
  const chars = [...text];
  const i = below(random, chars.length);
  const edit = below(random, 3);
  if (edit === 0 && chars.length > 3) chars.splice(i, 1);
  else if (edit === 1) chars.splice(i, 0, 'aeiourn'[below(random, 7)]!);
  else if (i + 1 < chars.length) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
  return chars.join('');
}

const length = (text: string): number => [...text].length;
const hasLetters = (text: string): boolean => /[\p{L}\p{N}]/u.test(text);

function autocompleteRequests(random: () => number, cities: City[], count: number): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const name = pick(random, cities).name;
    let q = [...name].slice(0, 2 + below(random, 5)).join('').trim();
    if (random() < 0.5) q = q.toLowerCase(); // as typed
    if (length(q) >= 2 && hasLetters(q)) out.push(`/v1/search/autocomplete?q=${enc(q)}`);
  }
  return out;
}

function fuzzyRequests(random: () => number, cities: City[], count: number): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const q = typo(random, pick(random, cities).name).trim();
    if (length(q) >= 2 && length(q) <= 100 && hasLetters(q)) out.push(`/v1/search/fuzzy?q=${enc(q)}`);
  }
  return out;
}

function nearbyRequests(random: () => number, cities: City[], count: number): string[] {
  const placed = cities.filter((c) => c.latitude !== null && c.longitude !== null);
  const out: string[] = [];
  while (out.length < count) {
    const city = pick(random, placed);
    // A point a few kilometres from a place people live: default radius (25 km) and limit (20).
    const lat = Math.max(-90, Math.min(90, Number(city.latitude) + (random() - 0.5) * 0.1));
    const lng = ((Number(city.longitude) + (random() - 0.5) * 0.1 + 540) % 360) - 180;
    out.push(`/v1/search/nearby?lat=${lat.toFixed(5)}&lng=${lng.toFixed(5)}`);
  }
  return out;
}

export function generateWorkload(dataset: RawDataset, growthCities: City[], options: { seed: number; perOperation: number; mixSize: number }): Workload {
  const { seed, perOperation: count } = options;
  const random = prng(seed);
  const cities = allCities(dataset);
  const countries = dataset.countries;
  const statesWithCities = new Set(cities.map((c) => c.state_id));
  // Cities of a state: states reachable by their (country, iso2) code alone, with cities.
  const codeCount = new Map<string, number>();
  for (const s of dataset.states) if (s.iso2) codeCount.set(`${s.country_code}:${s.iso2.toUpperCase()}`, (codeCount.get(`${s.country_code}:${s.iso2.toUpperCase()}`) ?? 0) + 1);
  const listableStates = dataset.states.filter((s) => s.iso2 && /^[A-Za-z0-9-]+$/.test(s.iso2) && codeCount.get(`${s.country_code}:${s.iso2.toUpperCase()}`) === 1 && statesWithCities.has(s.id));
  const countriesWithStates = countries.filter((c) => dataset.states.some((s) => s.country_id === c.id));
  const postcodes = [...dataset.postcodesByCountry.values()].flat().filter((p) => p.code.trim() !== '' && length(p.code.trim()) <= 20 && !/[/\\\u0000-\u001f]/.test(p.code));
  const dialled = countries.filter((c) => (c.phonecode ?? '').replace(/\D/g, '').replace(/^0+/, '') !== '');
  if (listableStates.length === 0 || countriesWithStates.length === 0 || postcodes.length === 0 || dialled.length === 0) {
    throw new Error(`dataset ${dataset.root}: expected states with cities, postcodes and dial codes, found ${listableStates.length} listable states, ${postcodes.length} postcodes, ${dialled.length} dial codes`);
  }

  const times = (make: () => string): string[] => Array.from({ length: count }, make);
  const perOperation: Record<Operation, string[]> = {
    countryList: ['/v1/countries'],
    countryStates: times(() => `/v1/countries/${pick(random, countriesWithStates).iso2}/states`),
    stateCities: times(() => {
      const state = pick(random, listableStates);
      return `/v1/countries/${state.country_code}/states/${enc(state.iso2!)}/cities`;
    }),
    countryDetail: times(() => {
      const country = pick(random, countries);
      return `/v1/countries/${random() < 0.8 ? country.iso2 : country.iso3}`;
    }),
    postcodeLookup: times(() => {
      const postcode = pick(random, postcodes);
      const code = random() < 0.2 ? postcode.code.toLowerCase() : postcode.code;
      return `/v1/countries/${postcode.country_code}/postcodes/${enc(code.trim())}`;
    }),
    postcodePage: times(() => {
      const postcode = pick(random, postcodes);
      const base = `/v1/countries/${postcode.country_code}/postcodes`;
      const draw = random();
      if (draw < 0.4) return `${base}?limit=${pick(random, [10, 20, 50])}`;
      const q = postcode.code.replace(/\s+/g, '').slice(0, 2 + below(random, 2));
      if (draw < 0.7 || postcode.state_code === null || !/^[A-Za-z0-9-]+$/.test(postcode.state_code)) {
        return length(q) >= 2 ? `${base}?q=${enc(q)}&limit=20` : `${base}?limit=20`;
      }
      return `${base}?state_code=${enc(postcode.state_code)}&limit=20`;
    }),
    autocomplete: autocompleteRequests(random, cities, count),
    fuzzy: fuzzyRequests(random, cities, count),
    nearby: nearbyRequests(random, cities, count),
    phoneParse: times(() => {
      const country = pick(random, dialled);
      const code = (country.phonecode ?? '').replace(/\D/g, '').replace(/^0+/, '');
      const digits = (n: number): string => Array.from({ length: n }, () => below(random, 10)).join('');
      let number: string;
      if (code === '1') {
        // NANP: a territory's own area code, else any area code (libphonenumber places it).
        const area = NANP_AREA_CODES.get(country.iso2.toUpperCase()) ?? `${2 + below(random, 8)}${digits(2)}`;
        number = `1${area}${2 + below(random, 8)}${digits(6)}`;
      } else if (code.length === 4 && code.startsWith('1')) number = `${code}${digits(7)}`;
      else number = `${code}${digits(8 + below(random, 2))}`;
      return `/v1/phone/parse?number=${enc(`+${number}`)}`;
    }),
  };

  const mix: string[] = [];
  const total = OPERATIONS.reduce((sum, op) => sum + MIX_WEIGHTS[op], 0);
  for (const op of OPERATIONS) {
    const share = Math.round((options.mixSize * MIX_WEIGHTS[op]) / total);
    const list = perOperation[op];
    for (let i = 0; i < share; i++) mix.push(list[below(random, list.length)]!);
  }
  shuffle(random, mix);

  const growthRandom = prng(seed + 1);
  const growth: Record<SearchOperation, string[]> = {
    autocomplete: autocompleteRequests(growthRandom, growthCities, count),
    fuzzy: fuzzyRequests(growthRandom, growthCities, count),
    nearby: nearbyRequests(growthRandom, growthCities, count),
  };
  return { seed, perOperation, mix, growth };
}
