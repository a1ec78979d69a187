// Requests a worker answers to itself after loading, before it says ready: every operation, at
// every field tier, through its handler and its render, on samples drawn from the data. The
// engine's preparation steps build the indexes; these compile the code around them (handlers,
// parameter parsing, row writers, phone metadata), which V8 otherwise compiles on the first real
// requests — a cold country list took 15 ms and a cold phone parse 8 ms, ten times their warm cost.
import { createHash } from 'node:crypto';
import type { Caller, CountryTier, Tier, UsageReport } from '../contract/index.js';
import { engineFor } from '../engine/index.js';
import type { RangesByParent, Store } from '../store/types.js';
import { POSTCODE_Q } from './postcodes/index.js';
import type { Operation, Reply, RequestContext } from './types.js';

/** One request to an operation: path parameters and query, as a client would send them (decoded). */
export interface WarmUpRequest {
  operation: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /**
   * Answered once at one tier: what it warms is data (a dial code's metadata) or the engine's
   * paths through different data (VARIETY), not the render of each tier.
   */
  once?: true;
  /** Answered at the tiers above Basic only: its parameters need fields Basic lacks (a sort on population, a locale's names). */
  aboveBasic?: true;
}

/**
 * Each request is answered up to this many times per tier (enough for V8 to compile its hot
 * loops), within STEP_BUDGET_MS after the first: a step delays the requests queued behind it.
 */
const ROUNDS = 3;
const STEP_BUDGET_MS = 10;
const TIERS: readonly [Tier, CountryTier][] = [
  ['basic', 'basic'],
  ['coordinates', 'full'],
  ['full', 'full'],
];

/** The tiers a warm-up request is answered at (TIERS' rows). */
export function tiersOf(request: WarmUpRequest): readonly [Tier, CountryTier][] {
  if (request.once) return TIERS.slice(0, 1);
  return request.aboveBasic ? TIERS.slice(1) : TIERS;
}

/**
 * Values the data offers for a parameter name, per sampled country (the one with the most
 * states, cities, postcodes up to SAMPLE_CAPS each, and the first). Parameters not here take their
 * documented example. Capped: a whole list of the largest country (4.9 MB of US cities) compiles
 * no more code than one of a few thousand rows, and would leave the thread's reused JSON buffer
 * (and its heap) that large from the start.
 */
type Sample = Record<string, string>;

/**
 * Searches and postcode lookups also run on this many places spread over the data, once each:
 * measured on the full dataset, the first ~15 distinct autocomplete and fuzzy queries after the
 * per-sample warm-up still took 1–4 ms each (server side) against ~0.3 ms later. Their queries
 * meet posting lists, prefix ranges, tree branches and postcode formats the samples did not, and
 * V8 compiles the engine's loops for what it has seen. Cost: ~0.15 s per thread before ready.
 */
const VARIETY = 120;

/** Of the VARIETY places, every this many a postcode page with `q` (varietyRequests). */
const POSTCODE_Q_STEP = 4;

/** The largest lists the samples are drawn from (states, cities, postcodes of a country). */
const SAMPLE_CAPS = { states: 100, cities: 500, postcodes: 5000 } as const;

/** Lists warmed with a sorted page too, and those warmed with a `q` filter (sampleRequests). */
const SORTED_LISTS = new Set(['countriesList', 'statesAll', 'countryStates', 'countryCities', 'stateCities']);
const FILTERED_LISTS = new Set(['countriesList', 'statesAll', 'countryStates', 'countryCities', 'stateCities']);
/** Rows of a list's warm-up page with `locale` (at most the operation's limit): every country. */
const LOCALE_PAGE = 250;
/**
 * The warm-up's locales, in turn: each step of localizeName's chain (an exact key, a regional
 * one, a base language for a regional locale, a regional variant for a base one, none). With only
 * `de`, the first `locale=zh-CN` list after ready took ~7 ms, other locales ~2.
 */
const WARM_LOCALES = ['de', 'pt-BR', 'de-AT', 'zh', 'xx'] as const;

/** Parameter names a sample supplies; an operation needing one the sample lacks is not warmed on it (its example may not exist in this data). */
const SAMPLED = new Set(['ciso', 'countryCode', 'siso', 'iso', 'state_code', 'city_id', 'code', 'q', 'lat', 'lng']);

/** Operations whose parameters are all optional but which need one of them. */
const EXTRA_QUERY: Record<string, (sample: Sample) => Record<string, string>> = {
  isoCountry: (sample) => ({ iso2: sample.ciso! }),
};

function samplesOf(store: Store): Sample[] {
  const { countries, states, cities, postcodes, relations } = store;
  const picked = new Set<number>();
  const most = (ranges: { start: Int32Array; end: Int32Array }, cap: number): number => {
    let best = 0;
    const size = (row: number): number => ranges.end[row]! - ranges.start[row]!;
    for (let row = 0; row < countries.count; row++) if (size(row) <= cap && size(row) > size(best)) best = row;
    return best;
  };
  if (countries.count === 0) return [];
  for (const row of [most(relations.countryStates, SAMPLE_CAPS.states), most(relations.countryCities, SAMPLE_CAPS.cities), most(relations.countryPostcodes, SAMPLE_CAPS.postcodes), 0]) picked.add(row);
  const samples: Sample[] = [];
  for (const countryRow of picked) {
    const iso2 = countries.record(countryRow).iso2;
    const sample: Sample = { ciso: iso2, countryCode: iso2, value: iso2 };
    // The country's state with the most cities, and its first city.
    let stateRow = -1;
    for (let row = relations.countryStates.start[countryRow]!; row < relations.countryStates.end[countryRow]!; row++) {
      if (stateRow < 0 || cityCount(store, row) > cityCount(store, stateRow)) stateRow = row;
    }
    const stateCode = stateRow >= 0 ? states.record(stateRow).iso2 : null;
    if (stateCode) {
      sample.siso = stateCode;
      sample.iso = `${iso2}-${stateCode}`;
      sample.state_code = stateCode;
    }
    const cityRow =
      stateRow >= 0 && cityCount(store, stateRow) > 0
        ? relations.stateCities.start[stateRow]!
        : relations.countryCities.start[countryRow]! < relations.countryCities.end[countryRow]!
          ? relations.countryCities.start[countryRow]!
          : -1;
    if (cityRow >= 0) {
      const city = cities.record(cityRow);
      sample.city_id = String(city.id);
      sample.q = city.name.slice(0, 4);
      if (city.latitude !== null && city.longitude !== null) {
        sample.lat = city.latitude;
        sample.lng = city.longitude;
      }
    }
    const postcodeStart = relations.countryPostcodes.start[countryRow]!;
    if (postcodeStart < relations.countryPostcodes.end[countryRow]!) sample.code = postcodes.record(postcodeStart).code;
    samples.push(sample);
  }
  return samples;
}

/** The parent row with the most children (the first of those), or -1 when none has any. */
function longestRange(ranges: RangesByParent): number {
  let best = -1;
  for (let row = 0; row < ranges.start.length; row++) {
    const size = ranges.end[row]! - ranges.start[row]!;
    if (size > 0 && (best < 0 || size > ranges.end[best]! - ranges.start[best]!)) best = row;
  }
  return best;
}

function cityCount(store: Store, stateRow: number): number {
  return store.relations.stateCities.end[stateRow]! - store.relations.stateCities.start[stateRow]!;
}

/**
 * The warm-up requests: each operation once per sample (sampleRequests), the searches and postcode
 * lookups on VARIETY places, a phone number of every dial code, and postcode and list pages with a
 * broad `q`.
 */
export function warmUpRequests(store: Store, operations: readonly Operation[]): WarmUpRequest[] {
  const { requests, add } = collector();
  for (const request of sampleRequests(store, operations)) add(request);
  for (const request of varietyRequests(store, new Set(operations.map((op) => op.name)))) add(request);
  // Every dial code: phone parsing keeps metadata per calling code.
  if (operations.some((op) => op.name === 'phoneParse')) {
    const dialCodes = new Set<string>();
    for (let row = 0; row < store.countries.count; row++) {
      const code = store.countries.record(row).phonecode?.replace(/\D/g, '');
      if (code && !code.startsWith('0')) dialCodes.add(code);
    }
    for (const code of dialCodes) add({ operation: 'phoneParse', params: {}, query: { number: `+${code}${'2015550123'.slice(0, 11 - code.length)}` }, once: true });
  }
  if (operations.some((op) => op.name === 'postcodeSearch')) for (const request of broadPostcodePages(store)) add(request);
  for (const request of broadListPages(store, new Set(operations.map((op) => op.name)))) add(request);
  return requests;
}

/**
 * Pages of the longest lists with a `q` that matches many of their names, plain and sorted by
 * name, and the whole filtered list: the longest country's and state's cities and every state.
 * The sample lists (at most SAMPLE_CAPS rows) never make the filter's loop hot enough for V8 to
 * optimize it, and the first such page after ready over the US's 19,824 cities
 * (`sort=name&q=an&limit=1000`) ran it unoptimized: 6.4–14 ms on the server. Each kind of list,
 * so that V8 optimizes the loop for all of them (each reads its rows differently): optimized for
 * one alone, it deoptimized at the first of another.
 */
function broadListPages(store: Store, operations: Set<string>): WarmUpRequest[] {
  const { countries, states, relations } = store;
  const lists: Pick<WarmUpRequest, 'operation' | 'params'>[] = [];
  const countryRow = longestRange(relations.countryCities);
  if (countryRow >= 0 && operations.has('countryCities')) lists.push({ operation: 'countryCities', params: { ciso: countries.record(countryRow).iso2 } });
  const stateRow = longestRange(relations.stateCities);
  const state = stateRow >= 0 ? states.record(stateRow) : null;
  if (state?.iso2 && operations.has('stateCities')) lists.push({ operation: 'stateCities', params: { ciso: state.country_code, siso: state.iso2 } });
  if (states.count > 0 && operations.has('statesAll')) lists.push({ operation: 'statesAll', params: {} });
  // Pages, and the whole filtered list (no limit: its other path), written narrow (`fields`) to keep it light.
  return lists.flatMap((list) => [
    { ...list, query: { q: 'an', limit: '5' } },
    { ...list, query: { q: 'an', sort: 'name', limit: '5' } },
    { ...list, query: { q: 'an', fields: 'id,name' } },
  ]);
}

/**
 * Postcode pages whose `q` matches thousands of localities: the first characters of a locality of
 * the country with the most postcodes (MX: `San Ángel…`, `sa`), alone and with its state_code.
 * Such a `q` fills its page from the first rows it walks, testing their localities
 * (engine/postcodes walkTestingLocalities), which the variety places' rarer `q`s seldom do.
 */
function broadPostcodePages(store: Store): WarmUpRequest[] {
  const { countries, postcodes, relations } = store;
  const countryRow = longestRange(relations.countryPostcodes);
  if (countryRow < 0) return [];
  const postcode = postcodes.record(relations.countryPostcodes.start[countryRow]!);
  // The shortest q a postcode page takes (code points).
  const q = postcode.locality_name === null ? '' : [...postcode.locality_name.trim()].slice(0, POSTCODE_Q.min).join('');
  if ([...q].length < POSTCODE_Q.min) return [];
  const params = { countryCode: countries.record(countryRow).iso2 };
  const pages: WarmUpRequest[] = [{ operation: 'postcodeSearch', params, query: { q, limit: '5' }, once: true }];
  if (postcode.state_code) pages.push({ operation: 'postcodeSearch', params, query: { q, state_code: postcode.state_code, limit: '5' }, once: true });
  return pages;
}

/**
 * Places (and states) for the warm-up a thread sends itself over a socket (runtime/http/
 * socket-soak.ts), spread over the data as VARIETY's are but on other rows: with them V8 has seen
 * more of what real traffic brings (posting lists and prefix ranges of every size, list lengths,
 * fields present or empty, postcode formats) before it optimizes, and deoptimizes less after ready.
 */
const SOCKET_VARIETY = 1000;

/**
 * The requests of the warm-up over a socket: the warm-up requests, the searches and postcode
 * lookups on SOCKET_VARIETY more places, the cities of SOCKET_VARIETY states, and every
 * country's detail and states. Some answer 404 (a state without cities, a country without
 * states), as real requests do.
 */
export function socketWarmUpRequests(store: Store, operations: readonly Operation[]): WarmUpRequest[] {
  const names = new Set(operations.map((op) => op.name));
  const { requests, add } = collector();
  for (const request of warmUpRequests(store, operations)) add(request);
  for (const request of varietyRequests(store, names, SOCKET_VARIETY, 0.3)) add(request);
  const { states, countries } = store;
  for (let i = 0; i < SOCKET_VARIETY && states.count > 0 && names.has('stateCities'); i++) {
    const state = states.record(Math.floor(((i + 0.3) * states.count) / SOCKET_VARIETY));
    if (state.iso2) add({ operation: 'stateCities', params: { ciso: state.country_code, siso: state.iso2 }, query: {}, once: true });
  }
  for (let row = 0; row < countries.count; row++) {
    const ciso = countries.record(row).iso2;
    if (names.has('countryDetail')) add({ operation: 'countryDetail', params: { ciso }, query: {}, once: true });
    if (names.has('countryStates')) add({ operation: 'countryStates', params: { ciso }, query: {}, once: true });
  }
  return requests;
}

/**
 * Each operation once per sample (its path parameters and required query parameters from the
 * sample, else their documented example), and a page of each list that takes `limit`: also what
 * the HTTP layer sends through its own pipeline (app.ts pipelineSteps), without the rest's cost.
 */
export function sampleRequests(store: Store, operations: readonly Operation[]): WarmUpRequest[] {
  const { requests, add } = collector();
  const samples = samplesOf(store);
  let localeTurn = 0;
  for (const op of operations) {
    if (op.params === undefined) continue;
    for (const sample of samples) {
      const params: Record<string, string> = {};
      const query: Record<string, string> = { ...EXTRA_QUERY[op.name]?.(sample) };
      let complete = true;
      for (const spec of op.params) {
        if (spec.in !== 'path' && spec.required !== true) continue;
        const value = sample[spec.name] ?? (SAMPLED.has(spec.name) ? undefined : spec.example);
        if (value === undefined) complete = false;
        else if (spec.in === 'path') params[spec.name] = value;
        else query[spec.name] = value;
      }
      if (!complete) continue;
      const paged = op.params.some((spec) => spec.name === 'limit');
      // A whole table's list (no path parameter: every state) is warmed a page at a time: its
      // one answer is prefilled into the response cache when it fits (app.ts prefillSteps), and
      // the whole-list code is the same as for the lists of one country, warmed whole below.
      if (!paged || op.path.includes(':')) add({ operation: op.name, params, query });
      if (paged) add({ operation: op.name, params, query: { ...query, limit: '20' } });
      // Sorted pages (engine/sorted-rows.ts) and `q` filters run code no plain list runs (the
      // row-to-key tables they read are the main thread's: engine/name-keys.ts). Both kinds of
      // sort key: names (by their ranks) and ints, decimal texts (coordinates).
      if (SORTED_LISTS.has(op.name)) {
        add({ operation: op.name, params, query: { ...query, sort: 'name:desc,id', limit: '20', offset: '1' } });
        add({ operation: op.name, params, query: { ...query, sort: 'latitude:desc,population', limit: '20' }, aboveBasic: true });
      }
      if (FILTERED_LISTS.has(op.name)) add({ operation: op.name, params, query: { ...query, q: 'an', sort: 'name:desc,id', limit: '20' } });
      // `fields`: its parsing and a projection of the caller's own, whose first use after ready
      // otherwise deoptimized the code reading it (render/row-json.ts COMPILE_AFTER_ROWS).
      const fields = op.params.find((spec) => spec.name === 'fields')?.example;
      if (typeof fields === 'string') add({ operation: op.name, params, query: paged ? { ...query, fields, limit: '20' } : { ...query, fields } });
      // `locale` reads each row's translations in place (engine/localize-stored.ts): no other request
      // does. Pages of LOCALE_PAGE rows: with 20, the first localized list after ready still took 6–10 ms.
      if (op.params.some((spec) => spec.name === 'locale')) {
        const locale = WARM_LOCALES[localeTurn++ % WARM_LOCALES.length]!;
        const limit = String(Math.min(LOCALE_PAGE, op.params.find((spec) => spec.name === 'limit')?.maximum ?? LOCALE_PAGE));
        add({ operation: op.name, params, query: paged ? { ...query, locale, limit } : { ...query, locale }, aboveBasic: true });
      }
      if (op.params.some((spec) => spec.name === 'state_code') && sample.state_code !== undefined) add({ operation: op.name, params, query: { ...query, state_code: sample.state_code } });
    }
  }
  return requests;
}

/** A list of requests and the function adding one unless an identical one is in it. */
function collector(): { requests: WarmUpRequest[]; add: (request: WarmUpRequest) => void } {
  const requests: WarmUpRequest[] = [];
  const seen = new Set<string>();
  const add = (request: WarmUpRequest): void => {
    const key = JSON.stringify(request);
    if (seen.has(key)) return;
    seen.add(key);
    requests.push(request);
  };
  return { requests, add };
}

/**
 * VARIETY places spread evenly over the cities (and postcodes): an autocomplete prefix of 2–8
 * characters of each name (every fifth the name with a letter dropped, a trigram fill), the name
 * with two letters swapped for fuzzy search, its point for nearby search, a postcode lookup, and
 * for some a postcode page with `q`.
 */
function varietyRequests(store: Store, operations: Set<string>, places = VARIETY, phase = 0.5): WarmUpRequest[] {
  const requests: WarmUpRequest[] = [];
  const { cities, postcodes } = store;
  for (let i = 0; i < places && cities.count > 0; i++) {
    const row = Math.floor(((i + phase) * cities.count) / places);
    const name = [...cities.nameAt(row)];
    if (name.length >= 3) {
      const middle = 1 + (i % (name.length - 2));
      const dropped = [...name.slice(0, middle), ...name.slice(middle + 1)].join('');
      const swapped = [...name.slice(0, middle), name[middle + 1]!, name[middle]!, ...name.slice(middle + 2)].join('');
      const prefix = name.slice(0, 2 + (i % 7)).join('');
      if (operations.has('autocomplete')) requests.push({ operation: 'autocomplete', params: {}, query: { q: i % 5 === 4 ? dropped : prefix }, once: true });
      if (operations.has('fuzzySearch')) requests.push({ operation: 'fuzzySearch', params: {}, query: { q: swapped }, once: true });
    }
    const city = cities.record(row);
    if (operations.has('nearbySearch') && city.latitude !== null && city.longitude !== null) {
      requests.push({ operation: 'nearbySearch', params: {}, query: { lat: city.latitude, lng: city.longitude }, once: true });
    }
  }
  for (let i = 0; i < places && postcodes.count > 0 && operations.has('postcodeLookup'); i++) {
    const postcode = postcodes.record(Math.floor(((i + phase) * postcodes.count) / places));
    requests.push({ operation: 'postcodeLookup', params: { countryCode: postcode.country_code, code: postcode.code }, query: {}, once: true });
  }
  // A postcode page with `q` at every POSTCODE_Q_STEP-th place: its locality's first characters
  // (a code's when it has none), every other one with its state_code. The first such page after
  // ready otherwise compiled the locality search and the merge of matched localities' rows: ~5 ms
  // on the server, ~0.7 later.
  for (let i = 0; i < places && postcodes.count > 0 && operations.has('postcodeSearch'); i += POSTCODE_Q_STEP) {
    const postcode = postcodes.record(Math.floor(((i + phase) * postcodes.count) / places));
    const q = postcode.locality_name ? [...postcode.locality_name].slice(0, 3).join('') : postcode.code.slice(0, 2);
    const query: Record<string, string> = { q };
    if ((i / POSTCODE_Q_STEP) % 2 === 1 && postcode.state_code) query.state_code = postcode.state_code;
    requests.push({ operation: 'postcodeSearch', params: { countryCode: postcode.country_code }, query, once: true });
  }
  return requests;
}

/**
 * Makes V8's Uint8Array map unstable now, as the first Buffer made by Node's C++ side (a hash's
 * digest: a postcode cursor's signature) would anyway. Code optimized while the map is stable
 * depends on it staying so: measured on the full dataset, the first cursor of the warm-up threw
 * away 81 optimized functions (row writers, record accessors, the trigram search), which the
 * rest of the warm-up or the first real requests then compiled again.
 */
export function settleBufferMaps(): void {
  createHash('sha1').digest();
}

/**
 * Steps for the worker to run one per event-loop turn: per warm-up request and tier, the request
 * answered and rendered (ROUNDS times within STEP_BUDGET_MS), the bodies dropped. `nowMs` is the
 * server's clock. A request that fails is skipped: warming is best effort, and a real request
 * reports its own error.
 */
export function warmUpSteps(store: Store, operations: readonly Operation[], nowMs: () => number): (() => void)[] {
  const byName = new Map(operations.map((op) => [op.name, op]));
  const steps: (() => void)[] = [];
  for (const request of warmUpRequests(store, operations)) {
    const op = byName.get(request.operation)!;
    for (const [tier, countryTier] of tiersOf(request)) {
      const rounds = request.once ? 1 : ROUNDS;
      steps.push(() => {
        const started = performance.now();
        for (let round = 0; round < rounds && (round === 0 || performance.now() - started < STEP_BUDGET_MS); round++) {
          try {
            answerOnce(store, op, request, tier, countryTier, nowMs());
          } catch {
            // Best effort (see above).
          }
        }
      });
    }
  }
  return steps;
}

/**
 * The warm-up caller's plan rank: above every plan's (the policy allows 0–1000), every gate open.
 * A small integer, as plan ranks are: this object literal shares its hidden class with the real
 * callers' (gate.ts callerFor), and a rank beyond V8's small integers (Number.MAX_SAFE_INTEGER)
 * made the field a double there. The real keys' callers, made before, were left with a
 * deprecated class, and the first real request deoptimized the pipeline ("wrong map").
 */
const WARM_UP_RANK = 1_000_000;

/** Runs one warm-up request through the handler and, for a rendered reply, its render. */
export function answerOnce(store: Store, op: Operation, request: WarmUpRequest, tier: Tier, countryTier: CountryTier, nowMs: number): Reply {
  const caller: Caller = { keyId: 'warm-up', plan: 'warm-up', tierName: 'warm-up', tier, countryTier, rank: WARM_UP_RANK };
  const now = new Date(nowMs);
  const context: RequestContext = {
    params: request.params,
    query: new Map(Object.entries(request.query)),
    header: () => undefined,
    caller,
    engine: engineFor(store),
    store,
    now,
    requireFeature: () => {},
    hasFeature: () => true,
    usage: (): UsageReport => ({ plan: caller.plan, dailyUsed: 1, dailyLimit: null, monthlyUsed: 1, monthlyLimit: null, resetDaily: now.toISOString(), resetMonthly: now.toISOString() }),
  };
  const reply = op.handle(context);
  if ('render' in reply) reply.render();
  return reply;
}
