// Postcode benchmark on the full dataset (built once into a temp dir, or GEOAPI_BENCH_SNAPSHOT=dir,
// a built full snapshot): exact lookup, the first page and page 300 of the US list (limit 50),
// in process (engine and operation handler, cache missed and hit) and over HTTP when the test
// server harness exists. Baseline, same run: filter and sort a plain array of the same US
// records, then slice the page.
// The deep page must cost about what the first page costs (reported as a ratio, expected ≤ 1.5).
// Then filtered first pages whose matches lie late in Mexico, against a scan of the country; and the
// localities a q matches in the countries with locality blocks (JP, MX, MM), found through the
// blocks against a search of the country's whole locality text; a q typed a character at a
// time, each keystroke's localities searched among the previous one's against afresh; and first
// pages of short q's, walking rows first against searching the localities first.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { buildSnapshot } from '../build-index/build.js';
import { configurePostcodeCursors, postcodeOperations } from '../runtime/routes/postcodes/index.js';
import { PostcodeEngine, type PostcodeFilters } from '../runtime/engine/postcodes/engine.js';
import { POSTCODE_FILTERS_SECTION, POSTCODE_KEYS_SECTION } from '../runtime/format/sections.js';
import { localityKeyAt, matchLocalities, matchLocalitiesAmong, PostcodeFilterIndex, type CountryLocalities } from '../runtime/indexes/postcode-filter-index.js';
import { prng } from '../test/support/random.js';
import { StringTable } from '../runtime/indexes/string-table.js';
import { postcodeProjection, serializePostcodes } from '../runtime/render/postcodes.js';
import type { PostcodeRecord } from '../runtime/format/model.js';
import type { Caller } from '../runtime/contract/index.js';
import { bodyOf, type Operation } from '../runtime/routes/types.js';
import { benchContext } from './request-context.js';
import { loadStore } from '../runtime/store/index.js';
import type { Store } from '../runtime/store/types.js';
import { postcodeKey } from '../runtime/text/normalise.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fullSource = resolve(repoRoot, '../shared/data/csc');
const LIMIT = 50;
const DEEP_PAGE = 300;

const caller: Caller = { keyId: 'bench', plan: 'supporter', tierName: 'supporter', tier: 'coordinates', countryTier: 'full', rank: 2 };

function operation(name: string): Operation {
  const op = postcodeOperations.find((o) => o.name === name);
  if (!op) throw new Error(`operation ${name} not found`);
  return op;
}

interface Row {
  name: string;
  meanUs: number;
  medianUs: number;
  p99Us: number;
}

async function measure(tasks: [string, () => unknown][]): Promise<Row[]> {
  const bench = new Bench({ time: 400, warmupTime: 100 });
  for (const [name, fn] of tasks) bench.add(name, fn);
  await bench.run();
  return bench.tasks.map((task) => {
    const result = task.result;
    if (!('latency' in result)) throw new Error(`bench task ${task.name}: ${result.state}${'error' in result ? `: ${result.error.message}` : ''}`);
    return { name: task.name, meanUs: result.latency.mean * 1000, medianUs: (result.latency.p50 ?? result.latency.mean) * 1000, p99Us: (result.latency.p99 ?? result.latency.mean) * 1000 };
  });
}

function printTable(title: string, rows: Row[], baselineOf: (name: string) => string | undefined): void {
  console.log(`\n${title}`);
  const byName = new Map(rows.map((r) => [r.name, r]));
  console.log(`${'task'.padEnd(44)} ${'mean µs'.padStart(10)} ${'median µs'.padStart(10)} ${'p99 µs'.padStart(10)}  vs baseline (median)`);
  for (const row of rows) {
    const base = baselineOf(row.name);
    const ratio = base && byName.get(base) ? `${(byName.get(base)!.medianUs / row.medianUs).toFixed(1)}× faster` : '';
    console.log(`${row.name.padEnd(44)} ${row.meanUs.toFixed(2).padStart(10)} ${row.medianUs.toFixed(2).padStart(10)} ${row.p99Us.toFixed(2).padStart(10)}  ${ratio}`);
  }
}

/** The cursor of page `page` (1-based) by following next_cursor through the handler. */
function cursorOfPage(store: Store, page: number): string {
  const search = operation('postcodeSearch');
  let cursor: string | undefined;
  for (let p = 1; p < page; p++) {
    const reply = search.handle(benchContext(store, cursor ? { limit: String(LIMIT), cursor } : { limit: String(LIMIT) }, { caller, params: { countryCode: 'US' } }));
    const body = JSON.parse(String(bodyOf(reply))) as { pagination: { next_cursor: string | null } };
    if (!body.pagination.next_cursor) throw new Error(`US list ends before page ${page}`);
    cursor = body.pagination.next_cursor;
  }
  return cursor!;
}

export async function runPostcodeBench(): Promise<void> {
  if (!existsSync(join(fullSource, 'contributions/postcodes'))) {
    console.log(`postcodes bench: full dataset not found at ${fullSource}; nothing measured`);
    return;
  }
  configurePostcodeCursors({ current: Buffer.from('bench-secret'), previous: [], ephemeral: false });
  const reused = process.env.GEOAPI_BENCH_SNAPSHOT;
  const dir = reused ?? mkdtempSync(join(tmpdir(), 'geoapi-postcode-bench-'));
  try {
    const built = performance.now();
    if (reused === undefined) buildSnapshot({ source: fullSource, out: dir });
    const store = loadStore(dir);
    console.log(`full snapshot ${reused === undefined ? 'built and ' : ''}loaded in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    const engine = PostcodeEngine.of(store);
    const us = engine.countryRow('US');
    const [usStart, usEnd] = engine.countryRange(us);

    // Baseline input: the same US records as plain objects, in id order (as a naive store keeps them).
    const records: PostcodeRecord[] = [];
    for (let row = usStart; row < usEnd; row++) records.push(store.postcodes.record(row));
    records.sort((a, b) => a.id - b.id);
    const byCodeThenId = (a: PostcodeRecord, b: PostcodeRecord) => (a.code < b.code ? -1 : a.code > b.code ? 1 : a.id - b.id);
    const baselinePage = (page: number) =>
      records.filter((r) => r.country_code === 'US').sort(byCodeThenId).slice((page - 1) * LIMIT, page * LIMIT);
    const baselineLookup = (code: string) => {
      const key = postcodeKey(code);
      return records.filter((r) => r.country_code === 'US' && postcodeKey(r.code) === key).sort((a, b) => a.id - b.id);
    };
    const projection = postcodeProjection('coordinates', null);

    const none = { q: null, stateCode: null, cityId: null, type: null };
    const first = engine.search({ countryRow: us, filters: none, afterRow: null, limit: LIMIT });
    const deepAfter = usStart + (DEEP_PAGE - 1) * LIMIT - 1;
    const deep = engine.search({ countryRow: us, filters: none, afterRow: deepAfter, limit: LIMIT });
    // Sanity: engine pages equal the baseline's pages.
    const same = (rows: number[], expected: PostcodeRecord[]) => rows.map((r) => store.postcodes.idAt(r)).join() === expected.map((r) => r.id).join();
    if (!same(first.rows, baselinePage(1)) || !same(deep.rows, baselinePage(DEEP_PAGE))) throw new Error('engine pages differ from the baseline');

    const lookupOp = operation('postcodeLookup');
    const searchOp = operation('postcodeSearch');
    const deepCursor = cursorOfPage(store, DEEP_PAGE);
    const lookupCtx = () => benchContext(store, {}, { caller, params: { countryCode: 'us', code: '90210' } });
    const firstCtx = () => benchContext(store, { limit: String(LIMIT) }, { caller, params: { countryCode: 'US' } });
    const deepCtx = () => benchContext(store, { limit: String(LIMIT), cursor: deepCursor }, { caller, params: { countryCode: 'US' } });

    // Ours first, the garbage-heavy baseline in a second run, so its GC pauses do not land on ours.
    const ours = await measure([
      ['engine: lookup 90210 (+decode+JSON)', () => {
        const outcome = engine.lookup('US', '90210');
        return outcome.kind === 'found' ? serializePostcodes(projection, outcome.rows.map((r) => store.postcodes.record(r))) : '';
      }],
      // Handlers render; the response cache (hits) is the HTTP layer's, measured over HTTP below.
      ['handler: lookup 90210, rendered', () => bodyOf(lookupOp.handle(lookupCtx()))],
      ['engine: US page 1 (+decode+JSON)', () => serializePostcodes(projection, engine.search({ countryRow: us, filters: none, afterRow: null, limit: LIMIT }).rows.map((r) => store.postcodes.record(r)))],
      [`engine: US page ${DEEP_PAGE} (+decode+JSON)`, () => serializePostcodes(projection, engine.search({ countryRow: us, filters: none, afterRow: deepAfter, limit: LIMIT }).rows.map((r) => store.postcodes.record(r)))],
      ['handler: US page 1, rendered', () => bodyOf(searchOp.handle(firstCtx()))],
      [`handler: US page ${DEEP_PAGE}, rendered`, () => bodyOf(searchOp.handle(deepCtx()))],
    ]);
    const baselines = await measure([
      ['baseline: lookup 90210 (filter+sort array)', () => baselineLookup('90210')],
      ['baseline: US page 1 (filter+sort+slice)', () => baselinePage(1)],
      [`baseline: US page ${DEEP_PAGE} (filter+sort+slice)`, () => baselinePage(DEEP_PAGE)],
    ]);
    const rows = [...baselines, ...ours];
    const baselineFor = (name: string) => {
      if (name.startsWith('baseline')) return undefined;
      if (name.includes('lookup')) return 'baseline: lookup 90210 (filter+sort array)';
      if (name.includes(`page ${DEEP_PAGE}`)) return `baseline: US page ${DEEP_PAGE} (filter+sort+slice)`;
      return 'baseline: US page 1 (filter+sort+slice)';
    };
    printTable(`in process, US has ${usEnd - usStart} postcodes, limit ${LIMIT}`, rows, baselineFor);
    // Medians: the shared 2-core machine and GC put long tails on whichever task runs next.
    const median = (name: string) => rows.find((r) => r.name === name)!.medianUs;
    const deepRatio = median(`handler: US page ${DEEP_PAGE}, rendered`) / median('handler: US page 1, rendered');
    const engineRatio = median(`engine: US page ${DEEP_PAGE} (+decode+JSON)`) / median('engine: US page 1 (+decode+JSON)');
    console.log(`page ${DEEP_PAGE} / page 1 (median): handler ${deepRatio.toFixed(2)}, engine ${engineRatio.toFixed(2)} (expected ≤ 1.5)`);

    await runLateMatches(store);
    await runLocalityBlocks(store);
    await runTyping(store);
    await runFirstWalk(store);
    await runHttpPart(dir, deepCursor);
  } finally {
    if (reused === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Filtered first pages whose matches lie late in Mexico (144,600 rows, the largest country): the
 * engine's walk (row groups, q's sources merged) against the walk it replaced, in the same run:
 * the country's rows from the start, every filter tested on the typed columns (q's code-prefix
 * range and its list of matched localities computed once, outside the timing, as the engine
 * memoises them; the localities marked per call, as it did).
 */
async function runLateMatches(store: Store): Promise<void> {
  const engine = PostcodeEngine.of(store);
  engine.prepare();
  const mx = engine.countryRow('MX');
  const [start, end] = engine.countryRange(mx);
  const columns = PostcodeFilterIndex.from(store.section(POSTCODE_FILTERS_SECTION), store.postcodes.count);
  const keys = StringTable.from(store.section(POSTCODE_KEYS_SECTION), 0, POSTCODE_KEYS_SECTION);
  const cases: [string, PostcodeFilters][] = [
    ['q=902 (1 locality, codes near the end)', { q: '902', stateCode: null, cityId: null, type: null }],
    ['q=94 (10 localities)', { q: '94', stateCode: null, cityId: null, type: null }],
    ['q=50 (36 localities)', { q: '50', stateCode: null, cityId: null, type: null }],
    ['state_code=ZAC (the last state)', { q: null, stateCode: 'ZAC', cityId: null, type: null }],
    ['q=a, state_code=ZAC', { q: 'a', stateCode: 'ZAC', cityId: null, type: null }],
  ];
  const tasks: [string, () => unknown][] = [];
  for (const [label, filters] of cases) {
    const stateValue = filters.stateCode === null ? -1 : columns.stateCodeValue(filters.stateCode);
    let prefixStart = 0;
    let prefixEnd = 0;
    let marks: Uint8Array | null = null;
    let matched: Int32Array | null = null;
    let localityBase = 0;
    if (filters.q !== null) {
      const prefix = Buffer.from(postcodeKey(filters.q), 'utf8');
      prefixStart = keys.lowerBound(prefix, start, end);
      prefixEnd = prefixStart;
      while (prefixEnd < end && keys.startsWithAt(prefixEnd, prefix)) prefixEnd++;
      const localities = columns.localitiesOfRange(start);
      localityBase = localities.localityStart;
      marks = new Uint8Array(localities.localityEnd - localityBase);
      matched = matchLocalities(localities, filters.q);
    }
    const scan = (): number[] => {
      // As the engine did: the memoised list of matched localities marked, and cleared after.
      if (matched !== null) for (let i = 0; i < matched.length; i++) marks![matched[i]!] = 1;
      const rows: number[] = [];
      for (let row = start; row < end; row++) {
        if (stateValue >= 0 && columns.stateCodeByRow[row] !== stateValue) continue;
        if (marks !== null && (row < prefixStart || row >= prefixEnd)) {
          const locality = columns.localityByRow[row]!;
          if (locality < 0 || marks[locality - localityBase] !== 1) continue;
        }
        if (rows.push(row) === 21) break;
      }
      if (matched !== null) for (let i = 0; i < matched.length; i++) marks![matched[i]!] = 0;
      return rows;
    };
    const request = { countryRow: mx, filters, afterRow: null, limit: 20 };
    const page = engine.search(request);
    if (page.rows.join() !== scan().slice(0, 20).join()) throw new Error(`MX ${label}: the engine's page differs from the scan's`);
    tasks.push([`engine: MX ${label}`, () => engine.search(request)], [`scan: MX ${label}`, scan]);
  }
  const rows = await measure(tasks);
  printTable(`in process, filtered first pages of MX (${end - start} postcodes, limit 20): the engine's walk against a scan of the country`, rows, (name) => (name.startsWith('engine: ') ? `scan: ${name.slice('engine: '.length)}` : undefined));
}

/** The postcode localities of a country (its keys, offsets and blocks), or null when it has no postcodes. */
function localitiesOf(store: Store, iso2: string): CountryLocalities | null {
  const engine = PostcodeEngine.of(store);
  const [start, end] = engine.countryRange(engine.countryRow(iso2));
  if (start >= end) return null;
  return PostcodeFilterIndex.from(store.section(POSTCODE_FILTERS_SECTION), store.postcodes.count).localitiesOfRange(start);
}

/**
 * The localities a q matches (matchLocalities) in the countries with locality blocks, through the
 * blocks against a search of the whole locality text (blocks: null), in the same run: 200 needles
 * a country as a picker's user types them (3–8 characters of a random locality, from its start
 * mostly) and 100 three-digit codes, each task running all of them.
 */
async function runLocalityBlocks(store: Store): Promise<void> {
  const random = prng(7);
  const tasks: [string, () => unknown][] = [];
  for (const iso2 of ['JP', 'MX', 'MM']) {
    const blocked = localitiesOf(store, iso2);
    if (blocked === null) continue;
    if (blocked.blocks === null) throw new Error(`${iso2}: expected locality blocks`);
    const whole = { ...blocked, blocks: null };
    const names: string[] = [];
    for (let i = 0; i < 200; i++) {
      const chars = [...localityKeyAt(blocked, Math.floor(random() * blocked.byteStart.length))];
      const length = 3 + Math.floor(random() * 6);
      const at = random() < 0.6 ? 0 : Math.floor(random() * Math.max(1, chars.length - length));
      names.push(chars.slice(at, at + length).join(''));
    }
    const codes = Array.from({ length: 100 }, () => String(100 + Math.floor(random() * 900)));
    for (const [kind, needles] of [['names', names], ['codes', codes]] as const) {
      for (const needle of needles) {
        if (String(matchLocalities(blocked, needle)) !== String(matchLocalities(whole, needle))) throw new Error(`${iso2} "${needle}": the blocks' matches differ from the whole text's`);
      }
      const label = `${iso2}, ${needles.length} ${kind}`;
      tasks.push([`blocks: ${label}`, () => needles.map((needle) => matchLocalities(blocked, needle))], [`whole text: ${label}`, () => needles.map((needle) => matchLocalities(whole, needle))]);
    }
  }
  const rows = await measure(tasks);
  printTable('in process, the localities a q matches (all needles of a task in turn): the locality blocks against a search of the whole text', rows, (name) => (name.startsWith('blocks: ') ? `whole text: ${name.slice('blocks: '.length)}` : undefined));
}

/**
 * A q typed a character at a time (2 to 8 characters of 150 random localities, in MX, JP and PT):
 * the localities each keystroke matches, searched among the previous keystroke's matches as the
 * engine does (when those are at most a quarter of the country's) against searched afresh, the
 * whole sequence per task.
 */
async function runTyping(store: Store): Promise<void> {
  const random = prng(11);
  const tasks: [string, () => unknown][] = [];
  for (const iso2 of ['MX', 'JP', 'PT']) {
    const localities = localitiesOf(store, iso2);
    if (localities === null) continue;
    const count = localities.localityEnd - localities.localityStart;
    const typed: string[][] = [];
    for (let i = 0; i < 150; i++) {
      const chars = [...localityKeyAt(localities, Math.floor(random() * count))];
      typed.push(Array.from({ length: Math.min(8, chars.length) - 1 }, (_, k) => chars.slice(0, k + 2).join('')));
    }
    const afresh = (): unknown => typed.map((keystrokes) => keystrokes.map((q) => matchLocalities(localities, q)));
    const narrowed = (): unknown =>
      typed.map((keystrokes) => {
        let previous: Int32Array | null = null;
        return keystrokes.map((q, k) => {
          const matched: Int32Array | null = k === 0 ? matchLocalities(localities, q) : previous === null ? null : previous.length <= count / 4 ? matchLocalitiesAmong(localities, q, previous) : matchLocalities(localities, q);
          previous = matched;
          return matched;
        });
      });
    if (JSON.stringify(narrowed(), (_, v: unknown) => (v instanceof Int32Array ? [...v] : v)) !== JSON.stringify(afresh(), (_, v: unknown) => (v instanceof Int32Array ? [...v] : v))) {
      throw new Error(`${iso2}: the narrowed keystrokes' matches differ from those searched afresh`);
    }
    const keystrokes = typed.reduce((sum, k) => sum + k.length, 0);
    tasks.push([`narrowed: ${iso2}, ${keystrokes} keystrokes`, narrowed], [`afresh: ${iso2}, ${keystrokes} keystrokes`, afresh]);
  }
  const rows = await measure(tasks);
  printTable('in process, the localities of a q typed a character at a time: among the previous keystroke’s matches against afresh', rows, (name) => (name.startsWith('narrowed: ') ? `afresh: ${name.slice('narrowed: '.length)}` : undefined));
}

/**
 * First pages (limit 10) of the q a postcode picker's user types first, 2 or 3 characters of a
 * random locality, in MX, JP and PT, each with nothing memoised: the engine, which first walks rows
 * testing their localities (walkTestingLocalities), against the same engine without that walk
 * (every q's localities searched first), in the same run. Then each q alone, the slowest first
 * page of either (fastest of 5 calls each).
 */
async function runFirstWalk(store: Store): Promise<void> {
  const random = prng(13);
  const walking = PostcodeEngine.of(store);
  const searching = walking.withWalk(0);
  const tasks: [string, () => unknown][] = [];
  const slowest: string[] = [];
  for (const iso2 of ['MX', 'JP', 'PT']) {
    const localities = localitiesOf(store, iso2);
    if (localities === null) continue;
    const countryRow = walking.countryRow(iso2);
    const count = localities.localityEnd - localities.localityStart;
    const needles = new Set<string>();
    while (needles.size < 100) {
      const chars = [...localityKeyAt(localities, Math.floor(random() * count))];
      const q = chars.slice(0, 2 + Math.floor(random() * 2)).join('');
      if (q.trim().length >= 2) needles.add(q);
    }
    const requests = [...needles].map((q) => ({ countryRow, filters: { q, stateCode: null, cityId: null, type: null }, afterRow: null, limit: 10 }));
    const firstPages = (engine: PostcodeEngine) => (): unknown =>
      requests.map((request) => {
        engine.forgetLocalityMatches();
        return engine.search(request);
      });
    if (JSON.stringify(firstPages(walking)()) !== JSON.stringify(firstPages(searching)())) throw new Error(`${iso2}: the walk's first pages differ from the search's`);
    tasks.push([`walk first: ${iso2}, 100 q`, firstPages(walking)], [`search first: ${iso2}, 100 q`, firstPages(searching)]);
    for (const [label, engine] of [['walk first', walking], ['search first', searching]] as const) {
      let worst = { ms: 0, q: '' };
      for (const request of requests) {
        let best = Infinity;
        for (let i = 0; i < 5; i++) {
          engine.forgetLocalityMatches();
          const started = performance.now();
          engine.search(request);
          best = Math.min(best, performance.now() - started);
        }
        if (best > worst.ms) worst = { ms: best, q: request.filters.q };
      }
      slowest.push(`${label}, ${iso2}: ${worst.ms.toFixed(2)} ms (q=${worst.q})`);
    }
  }
  walking.forgetLocalityMatches();
  const rows = await measure(tasks);
  printTable('in process, first pages of 2–3 character q’s (each with nothing memoised): walking rows first against searching the localities first', rows, (name) => (name.startsWith('walk first: ') ? `search first: ${name.slice('walk first: '.length)}` : undefined));
  console.log(`slowest single first page: ${slowest.join('; ')}`);
}

interface LoadResult {
  requests: number;
  perSecond: number;
  medianUs: number;
  p99Us: number;
}

/** `concurrency` keep-alive clients sending `paths` in turn for `ms`; every answer must be 200. */
async function load(url: string, key: string, paths: readonly string[], ms: number, concurrency = 4): Promise<LoadResult> {
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  const deadline = performance.now() + ms;
  let next = 0;
  const one = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const started = performance.now();
      const req = http.get(`${url}${path}`, { agent, headers: { 'X-GEOAPI-KEY': key } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${path}: status ${res.statusCode}`));
          latencies.push(performance.now() - started);
          resolve();
        });
      });
      req.on('error', reject);
    });
  const client = async () => {
    while (performance.now() < deadline) await one(paths[next++ % paths.length]!);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, client));
  const elapsed = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 1000;
  return { requests: latencies.length, perSecond: (latencies.length / elapsed) * 1000, medianUs: at(0.5), p99Us: at(0.99) };
}

/** Over HTTP with the test server harness (test/support/server.ts): one worker thread, cache on and off. */
async function runHttpPart(snapshotDir: string, deepCursor: string): Promise<void> {
  let startTestServer: typeof import('../test/support/server.js').startTestServer;
  try {
    ({ startTestServer } = await import('../test/support/server.js'));
  } catch (error) {
    console.log(`\nover HTTP: skipped (test server harness unavailable: ${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  const operationsModule = fileURLToPath(new URL('../test/routes/postcodes/operations.js', import.meta.url));
  const env = { GEOAPI_CURSOR_SECRET: 'bench-secret' };
  const cached = await startTestServer({ snapshotDir, operationsModule, env });
  const uncached = await startTestServer({ snapshotDir, operationsModule, env: { ...env, GEOAPI_RESPONSE_CACHE_MB: '0' } });
  try {
    const cursor = encodeURIComponent(deepCursor);
    const cases: [string, string][] = [
      ['lookup 90210', '/v1/countries/US/postcodes/90210'],
      ['US page 1', `/v1/countries/US/postcodes?limit=${LIMIT}`],
      [`US page ${DEEP_PAGE}`, `/v1/countries/US/postcodes?limit=${LIMIT}&cursor=${cursor}`],
    ];
    console.log(`\nover HTTP (uWS ${cached.uws.packageName}, 1 worker thread, 4 keep-alive clients, 2 s each)`);
    console.log(`${'request'.padEnd(32)} ${'req/s'.padStart(9)} ${'median µs'.padStart(10)} ${'p99 µs'.padStart(10)}`);
    const results = new Map<string, LoadResult>();
    for (const [server, label] of [[uncached, 'cache off (MISS)'], [cached, 'cache on (HIT)']] as const) {
      for (const [name, path] of cases) {
        await load(server.url, server.keys.supporter!, [path], 300);
        const result = await load(server.url, server.keys.supporter!, [path], 2000);
        results.set(`${name}, ${label}`, result);
        console.log(`${`${name}, ${label}`.padEnd(32)} ${result.perSecond.toFixed(0).padStart(9)} ${result.medianUs.toFixed(0).padStart(10)} ${result.p99Us.toFixed(0).padStart(10)}`);
      }
    }
    const deep = results.get(`US page ${DEEP_PAGE}, cache off (MISS)`)!;
    const first = results.get('US page 1, cache off (MISS)')!;
    console.log(`page ${DEEP_PAGE} / page 1 over HTTP, cache off (median latency): ${(deep.medianUs / first.medianUs).toFixed(2)} (expected ≤ 1.5)`);
  } finally {
    await Promise.all([cached.close(), uncached.close()]);
  }
}
