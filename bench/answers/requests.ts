// The request list of the answer comparison: generated from a seed and the dataset's source files
// only (never from the server under test), so two recordings send the same requests. Two kinds of
// step take one value from an earlier answer, named by that step's index: a postcode list page
// follows the `next_cursor` of the page before it, and a conditional request repeats an earlier
// request with `If-None-Match` set to the ETag that request got back.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from '../../test/support/random.js';

/** Who calls: a key of that plan, no key header at all, or a key the server does not know. */
export type Caller = 'community' | 'starter' | 'supporter' | 'professional' | 'business' | 'none' | 'unknown-key';
export const KEY_PLANS = ['community', 'starter', 'supporter', 'professional', 'business'] as const;

export interface Step {
  /** Index in the list (a recording's line for this step carries the same number). */
  index: number;
  /** Generator that made it, for reading diffs ("postcodes.list", "search.nearby", …). */
  kind: string;
  caller: Caller;
  /** Path and query, percent-encoded as sent (a cursor step gets `&cursor=…` appended). */
  path: string;
  headers: Record<string, string>;
  /** Append `cursor=<next_cursor of step from>`; the step is skipped when that page had none. */
  cursorFrom?: number;
  /** Send `If-None-Match: <ETag of step from>`; skipped when that answer had no ETag. */
  etagFrom?: number;
}

interface Pools {
  countries: Array<{ id: number; iso2: string; iso3: string; numeric: string | null; name: string; phonecode: string | null; regionId: number | null; subregionId: number | null }>;
  states: Array<{ country: string; code: string; iso3166: string | null; name: string }>;
  cities: Array<{ id: number; country: string; state: string; name: string; lat: number; lng: number }>;
  postcodes: Array<{ country: string; code: string; state: string | null; cityId: number | null; locality: string | null; type: string | null }>;
  postcodeCountries: string[];
}

/** Countries whose city and postcode files feed the pools (a seeded choice, plus a few big ones). */
function loadPools(datasetDir: string, random: () => number): Pools {
  const root = join(datasetDir, 'contributions');
  const json = (path: string): any[] => JSON.parse(readFileSync(join(root, path), 'utf8')) as any[];
  const countries = json('countries/countries.json').map((c) => ({
    id: c.id as number,
    iso2: c.iso2 as string,
    iso3: c.iso3 as string,
    numeric: (c.numeric_code as string | null) ?? null,
    name: c.name as string,
    phonecode: (c.phonecode as string | null) ?? null,
    regionId: (c.region_id as number | null) ?? null,
    subregionId: (c.subregion_id as number | null) ?? null,
  }));
  const states = json('states/states.json').map((s) => ({ country: s.country_code as string, code: s.iso2 as string, iso3166: (s.iso3166_2 as string | null) ?? null, name: s.name as string }));
  const pick = <T>(items: T[], n: number, fixed: T[]): T[] => {
    const chosen = new Set<T>(fixed.filter((f) => items.includes(f)));
    while (chosen.size < Math.min(n, items.length)) chosen.add(items[Math.floor(random() * items.length)]!);
    return [...chosen].sort();
  };
  const cityFiles = readdirSync(join(root, 'cities')).filter((f) => f.endsWith('.json')).sort();
  const cities: Pools['cities'] = [];
  for (const file of pick(cityFiles, 14, ['US.json', 'FR.json', 'IN.json', 'JP.json', 'BR.json'])) {
    for (const c of json(`cities/${file}`)) {
      if (typeof c.id !== 'number') continue;
      cities.push({ id: c.id, country: c.country_code, state: c.state_code, name: c.name, lat: Number(c.latitude), lng: Number(c.longitude) });
    }
  }
  const postcodeFiles = readdirSync(join(root, 'postcodes')).filter((f) => f.endsWith('.json')).sort();
  const postcodes: Pools['postcodes'] = [];
  const postcodeCountries: string[] = [];
  for (const file of pick(postcodeFiles, 10, ['US.json', 'FR.json', 'GB.json', 'DE.json', 'JP.json'])) {
    postcodeCountries.push(file.slice(0, 2));
    for (const p of json(`postcodes/${file}`)) {
      postcodes.push({ country: p.country_code, code: p.code, state: p.state_code ?? null, cityId: p.city_id ?? null, locality: p.locality_name ?? null, type: p.type ?? null });
    }
  }
  return { countries, states, cities, postcodes, postcodeCountries };
}

const LOCALES = ['fr', 'de', 'pt-BR', 'ja', 'zh-CN', 'es', 'xx', 'en', 'FR-ca', '1', 'toolonglocale'];
const ENCODINGS = ['gzip', 'br', 'br;q=0, gzip', 'gzip;q=0', 'deflate', 'identity', 'br, gzip', '*'];
const COUNTRY_FIELDS = ['name', 'iso2', 'iso3', 'capital', 'currency', 'phonecode', 'population', 'region', 'timezones', 'translations', 'nope'];
const CITY_FIELDS = ['name', 'latitude', 'longitude', 'state_code', 'country_code', 'population', 'timezone', 'native', 'wikiDataId', 'bogus'];
const STATE_FIELDS = ['name', 'iso2', 'iso3166_2', 'type', 'latitude', 'longitude', 'population', 'native', 'timezone'];
const POSTCODE_FIELDS = ['code', 'locality_name', 'state_code', 'city_id', 'latitude', 'longitude', 'type', 'source'];
const GARBAGE = ['', ' ', 'a', '%', '%25', '..', 'ZZ', 'Z9', '00', '-1', '1e3', '999999999999', 'x'.repeat(120), '%E2%82%AC', 'a%00b'];

export function planRequests(seed: number, datasetDir: string, count: number): Step[] {
  const random = prng(seed);
  const pools = loadPools(datasetDir, random);
  const int = (n: number): number => Math.floor(random() * n);
  const one = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number): boolean => random() < p;
  const enc = encodeURIComponent;
  const some = (items: readonly string[], max: number): string => {
    const n = 1 + int(max);
    const out = new Set<string>();
    for (let i = 0; i < n; i++) out.add(one(items));
    return [...out].join(',');
  };
  const sortOf = (fields: readonly string[]): string => some(fields.map((f) => (chance(0.3) ? `${f}:desc` : chance(0.3) ? `${f}:asc` : f)), 2);
  const query = (params: Array<[string, string | number | undefined | false]>): string => {
    const parts = params.filter(([, v]) => v !== undefined && v !== false).map(([k, v]) => `${k}=${enc(String(v))}`);
    return parts.length === 0 ? '' : `?${parts.join('&')}`;
  };
  const country = () => one(pools.countries);
  const ciso = (): string => {
    const c = country();
    const r = random();
    if (r < 0.6) return c.iso2;
    if (r < 0.75) return c.iso2.toLowerCase();
    if (r < 0.85) return c.iso3;
    if (r < 0.92 && c.numeric) return c.numeric;
    if (r < 0.96) return String(c.id);
    return one(GARBAGE.slice(0, 11));
  };
  const state = () => one(pools.states);
  const city = () => one(pools.cities);
  const postcode = () => one(pools.postcodes);
  const text = (name: string): string => {
    const r = random();
    if (r < 0.45) return name.slice(0, 2 + int(Math.max(1, name.length - 1)));
    if (r < 0.6) return name.toLowerCase();
    if (r < 0.75) {
      // One typo: a dropped, doubled or swapped letter.
      const at = int(name.length);
      const t = int(3);
      if (t === 0) return name.slice(0, at) + name.slice(at + 1);
      if (t === 1) return name.slice(0, at) + (name[at] ?? '') + name.slice(at);
      return name.slice(0, at) + (name[at + 1] ?? '') + (name[at] ?? '') + name.slice(at + 2);
    }
    if (r < 0.8) return one(['a', 'x', '  ', 'zzzzzz', 'qu', 'san', 'new', 'ber', 'São', 'москва', '東京']);
    return name;
  };
  const localeParams = (): Array<[string, string | undefined | false]> => [
    ['locale', chance(0.2) && one(LOCALES)],
    ['include_translations', chance(0.1) && one(['true', 'false', '1', 'yes'])],
  ];

  type Made = Omit<Step, 'index' | 'caller' | 'headers'> & { caller?: Caller; headers?: Record<string, string> };
  const generators: Array<[number, () => Made | Made[]]> = [
    [4, () => ({ kind: 'countries.list', path: `/v1/countries${query([['q', chance(0.3) && text(country().name)], ['fields', chance(0.3) && some(COUNTRY_FIELDS, 4)], ['sort', chance(0.3) && sortOf(['name', 'iso2', 'population', 'id'])], ...localeParams()])}` })],
    [4, () => ({ kind: 'countries.detail', path: `/v1/countries/${enc(ciso())}${query([['fields', chance(0.2) && some(COUNTRY_FIELDS, 3)], ...localeParams()])}` })],
    [3, () => ({ kind: 'states.list', path: `/v1/states${query([['q', chance(0.5) && text(state().name)], ['fields', chance(0.2) && some(STATE_FIELDS, 3)], ['sort', chance(0.2) && sortOf(['name', 'id', 'population'])]])}` })],
    [3, () => ({ kind: 'states.byCountry', path: `/v1/countries/${enc(chance(0.9) ? state().country : ciso())}/states${query([['q', chance(0.2) && text(state().name)], ['fields', chance(0.2) && some(STATE_FIELDS, 3)], ['sort', chance(0.2) && sortOf(['name', 'id'])]])}` })],
    [3, () => {
      const s = state();
      return { kind: 'states.detail', path: `/v1/countries/${enc(s.country)}/states/${enc(chance(0.9) ? s.code : one(GARBAGE.slice(0, 11)))}${query([['fields', chance(0.2) && some(STATE_FIELDS, 3)]])}` };
    }],
    [5, () => {
      const c = city();
      return { kind: 'cities.byState', path: `/v1/countries/${enc(c.country)}/states/${enc(chance(0.95) ? c.state : 'ZZZ')}/cities${query([['q', chance(0.3) && text(c.name)], ['fields', chance(0.2) && some(CITY_FIELDS, 3)], ['sort', chance(0.2) && sortOf(['name', 'id', 'population', 'latitude'])]])}` };
    }],
    [2, () => ({ kind: 'cities.byCountry', path: `/v1/countries/${enc(chance(0.8) ? city().country : ciso())}/cities${query([['q', chance(0.5) && text(city().name)], ['fields', chance(0.2) && some(CITY_FIELDS, 3)], ['sort', chance(0.2) && sortOf(['name', 'id'])]])}` })],
    [3, () => {
      const c = country();
      const id = chance(0.85) ? String(c.regionId ?? 1) : one(['0', '7', 'abc', '-1', '99']);
      const sub = chance(0.85) ? String(c.subregionId ?? 1) : one(['0', '23', 'abc']);
      return one<Made>([
        { kind: 'regions.list', path: `/v1/regions${query([['fields', chance(0.2) && 'name'], ['sort', chance(0.2) && sortOf(['name', 'id'])], ...localeParams()])}` },
        { kind: 'regions.detail', path: `/v1/regions/${enc(id)}${query(localeParams())}` },
        { kind: 'regions.subregions', path: `/v1/regions/${enc(id)}/subregions${query([['q', chance(0.3) && one(['Eu', 'Asia', 'ern', 'x'])], ['sort', chance(0.2) && sortOf(['name', 'id'])], ...localeParams()])}` },
        { kind: 'subregions.detail', path: `/v1/subregions/${enc(sub)}${query(localeParams())}` },
        { kind: 'subregions.countries', path: `/v1/subregions/${enc(sub)}/countries${query([['fields', chance(0.2) && some(COUNTRY_FIELDS, 3)]])}` },
      ]);
    }],
    [3, () => (chance(0.8)
      ? { kind: 'currency.detail', path: `/v1/currency/${enc(ciso())}` }
      : { kind: 'currency.list', path: `/v1/currency${query([['code', chance(0.5) && one(['EUR', 'usd', 'XXX', 'JPY', '', 'E'])]])}` })],
    [4, () => {
      const c = country();
      const r = random();
      if (r < 0.3) return { kind: 'phone.list', path: `/v1/phone${query([['code', chance(0.7) && one([c.phonecode ?? '1', `+${c.phonecode ?? '44'}`, `00${c.phonecode ?? '7'}`, '1', '', 'abc', '12345', '+', '0'])]])}` };
      if (r < 0.55) return { kind: 'phone.country', path: `/v1/phone/${enc(ciso())}` };
      const digits = String(c.phonecode ?? '1').replace(/\D/g, '') + String(Math.floor(random() * 1e10)).padStart(10, '0');
      const number = one([`+${digits.slice(0, 11)}`, `+1${one(['415', '212', '876', '242', '684', '999'])}5552671`, ` ${digits.slice(0, 10)}`, digits.slice(0, 9), '+123', `+${'9'.repeat(16)}`, '', '+44 20 7946 0958']);
      return { kind: 'phone.parse', path: `/v1/phone/parse${chance(0.95) ? query([['number', number]]) : ''}` };
    }],
    [4, () => {
      const c = country();
      const s = state();
      const r = random();
      if (r < 0.5) {
        const params: Array<[string, string]> = [];
        if (chance(0.9)) params.push(one<[string, string]>([['iso2', chance(0.8) ? c.iso2 : c.iso2.toLowerCase()], ['iso3', c.iso3], ['numeric', c.numeric ? (chance(0.5) ? c.numeric : String(Number(c.numeric))) : '000'], ['iso2', 'Z'], ['numeric', '1234']]));
        if (chance(0.08)) params.push(['iso3', c.iso3]);
        return { kind: 'iso.country', path: `/v1/iso/country${query(params)}` };
      }
      if (r < 0.8) return { kind: 'iso.state', path: `/v1/iso/state${query([['iso', chance(0.9) ? (s.iso3166 ?? `${s.country}-${s.code}`) : one(['', 'US', 'us-ca', 'USCA', 'US-ABCD'])]])}` };
      const kinds = ['iso2', 'iso3', 'numeric'];
      const from = one(kinds);
      const value = from === 'iso2' ? c.iso2 : from === 'iso3' ? c.iso3 : (c.numeric ?? '0');
      return { kind: 'iso.convert', path: `/v1/iso/country/convert${query([['from', chance(0.95) ? from : 'name'], ['to', one(kinds)], ['value', chance(0.95) ? value : '']])}` };
    }],
    [4, () => {
      const c = city();
      const r = random();
      if (r < 0.3) return { kind: 'timezone.country', path: `/v1/timezone/${enc(ciso())}` };
      if (r < 0.6) return { kind: 'timezone.state', path: `/v1/timezone/${enc(c.country)}/${enc(chance(0.9) ? c.state : 'ZZ')}` };
      const other = city();
      return { kind: 'timezone.city', path: `/v1/timezone/${enc(c.country)}/${enc(c.state)}/${enc(chance(0.85) ? String(c.id) : chance(0.5) ? String(other.id) : 'abc')}` };
    }],
    [1, () => ({ kind: 'meta.dataVersion', path: '/v1/meta/data-version' })],
    [6, () => {
      const p = postcode();
      const code = one([p.code, p.code.toLowerCase(), ` ${p.code} `, p.code.replace(' ', '   '), p.code.slice(0, -1), '99999', 'a/b', 'x'.repeat(21)]);
      const cc = chance(0.92) ? (chance(0.7) ? p.country : p.country.toLowerCase()) : one(['ZZ', 'USA', '840', 'MT', 'AQ']);
      const first: Made = { kind: 'postcodes.lookup', path: `/v1/countries/${enc(cc)}/postcodes/${enc(code)}${query([['fields', chance(0.15) && some(POSTCODE_FIELDS, 3)]])}` };
      return chance(0.25) ? [first, { ...first, kind: 'postcodes.lookup.conditional', etagFrom: -1 }] : first;
    }],
    [6, () => {
      const p = postcode();
      const cc = chance(0.95) ? p.country : one(['ZZ', 'USA', 'AQ']);
      const params: Array<[string, string | number | false]> = [
        ['q', chance(0.35) && (chance(0.5) ? p.code.slice(0, 2 + int(3)) : (p.locality ?? 'sa').slice(0, 3 + int(4)))],
        ['state_code', chance(0.2) && (p.state ?? 'ZZ')],
        ['city_id', chance(0.1) && String(p.cityId ?? 1)],
        ['type', chance(0.1) && one(['full', 'area', 'po_box', 'unknown-type', 'bad type!'])],
        ['limit', chance(0.6) && one([1, 2, 5, 10, 25, 50, 100, 0, 101])],
        ['fields', chance(0.1) && some(POSTCODE_FIELDS, 3)],
      ];
      const path = `/v1/countries/${enc(cc)}/postcodes${query(params)}`;
      const caller: Caller = chance(0.85) ? one(['supporter', 'professional', 'business']) : one(['community', 'starter']);
      const steps: Made[] = [{ kind: 'postcodes.list', path, caller }];
      const pages = int(4);
      for (let i = 0; i < pages; i++) steps.push({ kind: 'postcodes.list.next', path, caller, cursorFrom: -1 });
      if (chance(0.2)) steps.push({ kind: 'postcodes.list.conditional', path, caller, etagFrom: -(steps.length) });
      if (chance(0.1)) steps.push({ kind: 'postcodes.list.badCursor', path: `${path}${path.includes('?') ? '&' : '?'}cursor=${one(['abc', 'eyJ9.xx', '', 'a.b'])}`, caller });
      return steps;
    }],
    [6, () => {
      const c = city();
      const type = one(['city', 'city', 'state', 'country', 'town']);
      const name = type === 'state' ? state().name : type === 'country' ? country().name : c.name;
      return {
        kind: 'search.autocomplete',
        path: `/v1/search/autocomplete${query([
          ['q', chance(0.95) && text(name)],
          ['type', chance(0.7) && type],
          ['country', chance(0.3) && (chance(0.9) ? c.country.toLowerCase() : 'ZZ')],
          ['state', chance(0.1) && c.state],
          ['limit', chance(0.3) && one([1, 5, 10, 50, 0, 51])],
          ...localeParams(),
        ])}`,
      };
    }],
    [5, () => {
      const c = city();
      const type = one(['city', 'city', 'state', 'country']);
      const name = type === 'state' ? state().name : type === 'country' ? country().name : c.name;
      return {
        kind: 'search.fuzzy',
        path: `/v1/search/fuzzy${query([
          ['q', chance(0.95) && text(name)],
          ['type', chance(0.7) && type],
          ['country', chance(0.25) && c.country],
          ['limit', chance(0.3) && one([1, 5, 10, 50, 60])],
          ['threshold', chance(0.3) && one(['0.1', '0.3', '0.5', '0.9', '1', '0.05', 'x'])],
        ])}`,
      };
    }],
    [6, () => {
      const c = city();
      const type = one(['city', 'city', 'state', 'country']);
      const lat = chance(0.95) ? (c.lat + (random() - 0.5)).toFixed(4) : one(['91', '-90.5', 'abc', '']);
      const lng = chance(0.95) ? (c.lng + (random() - 0.5)).toFixed(4) : one(['181', 'x']);
      return {
        kind: 'search.nearby',
        path: `/v1/search/nearby${query([
          ['lat', chance(0.97) && lat],
          ['lng', chance(0.97) && lng],
          ['type', chance(0.6) && type],
          ['country', chance(0.2) && c.country],
          ['state', chance(0.08) && c.state],
          ['kind', chance(0.1) && one(['settlement', 'administrative', 'section', 'unknown', 'village'])],
          ['min_population', chance(0.15) && one(['0', '1000', '100000', '-5'])],
          ['radius', chance(0.5) && one(['1', '5', '25', '100', '500', '0.5', '600'])],
          ['limit', chance(0.3) && one(['1', '10', '100', '101'])],
          ...localeParams(),
        ])}`,
      };
    }],
    [2, () => one<Made>([
      { kind: 'error.unknownPath', path: one(['/v1/nope', '/v2/countries', '/', '/v1/countries/US/extra/x', '/v1/search']) },
      { kind: 'error.noKey', path: `/v1/countries/${enc(ciso())}`, caller: 'none' },
      { kind: 'error.unknownKey', path: '/v1/search/nearby?lat=1&lng=2', caller: 'unknown-key' },
    ])],
  ];
  const totalWeight = generators.reduce((sum, [w]) => sum + w, 0);
  const steps: Step[] = [];
  while (steps.length < count) {
    let r = random() * totalWeight;
    let made: Made | Made[] = [];
    for (const [weight, make] of generators) {
      r -= weight;
      if (r < 0) {
        made = make();
        break;
      }
    }
    // Callers are drawn after the request so adding a generator does not reshuffle the others.
    // Half the calls come from the plans that may call everything, so gated operations answer too.
    const defaultCaller = chance(0.5) ? one<Caller>(['professional', 'business']) : one<Caller>(KEY_PLANS);
    const acceptEncoding = chance(0.15) ? one(ENCODINGS) : undefined;
    const base = steps.length;
    for (const [i, m] of (Array.isArray(made) ? made : [made]).entries()) {
      const headers: Record<string, string> = { ...(m.headers ?? {}) };
      if (acceptEncoding !== undefined) headers['Accept-Encoding'] = acceptEncoding;
      const step: Step = { index: base + i, kind: m.kind, caller: m.caller ?? defaultCaller, path: m.path, headers };
      // Relative references (-1: the step just before) become absolute indexes.
      if (m.cursorFrom !== undefined) step.cursorFrom = base + i + m.cursorFrom;
      if (m.etagFrom !== undefined) step.etagFrom = base + i + m.etagFrom;
      steps.push(step);
    }
  }
  return steps;
}
