// HTTP load benchmark, three comparisons measured in the same run, servers interleaved round by
// round (each in its own process, the load generator in another: wrk when installed — Debian
// package `wrk` — else autocannon from npm, one run at a time) so that machine noise hits them alike:
// - geoapi (`geoapi serve`, uWS) against a plain Node `http` server holding the same answers as
//   objects in memory and serialising them per request (bench/http-baseline.ts): lists ≥ 5×,
//   small answers ≥ 2×;
// - geoapi against a bare uWS handler (bench/http-bare.ts: uWS loaded as runtime/http/uws.ts
//   loads it, one thread, a fixed body of the same byte size as geoapi's answer, status line and
//   Content-Type only): what geoapi's request path costs around the write. Repeated (cached)
//   search answers: target ≥ 0.7× the bare handler;
// - with GEOAPI_BENCH_BASELINE_CHECKOUT, geoapi against a second geoapi started from another
//   compiled checkout ("before", e.g. the code before a change) on the same snapshot and settings.
// Routes: the fixed targets below (geoapi's response cache on), then — phase 2, wrk only —
// distinct search requests: a wrk script rotating over GEOAPI_BENCH_DISTINCT distinct autocomplete
// and fuzzy targets each (test/support/search-queries.ts over the snapshot's city names), with
// geoapi's response cache off (GEOAPI_RESPONSE_CACHE_MB=0), so the engine and the path around it
// are measured; after ÷ before target ≥ 2× (issue 16), judged only when "before" is be60434,
// the code before that issue's work. The autocomplete targets run a second time with the
// Accept-Encoding browsers send, so every answer is compressed on its request's path. Every
// distinct target's body is checked byte for byte against "before" when it runs.
// Reported per route: requests/s, the ratios, latency p50/p99, the server process's CPU per
// request (from /proc: far steadier than requests/s when other processes share the machine; the
// CPU ratio is the capacity ratio with a core each) and, against the bare handler, its busiest
// thread's (geoapi's request thread with one worker: the rest is its other threads'). Then, per small non-search route, geoapi
// alone at a fixed rate of half its measured peak, with an open-loop generator (bench/open-loop.ts:
// latency from each request's due time, no coordinated omission): target p99 < 5 ms.
//
// Run: `npm run bench -- http`, or `node dist/bench/http.bench.js`. Settings (environment):
//   GEOAPI_BENCH_SECONDS (5) per run, GEOAPI_BENCH_ROUNDS (3), GEOAPI_BENCH_CONNECTIONS (32),
//   GEOAPI_BENCH_THREADS (1: geoapi worker threads; the baseline and the bare server are one thread),
//   GEOAPI_BENCH_SNAPSHOT (default: the default snapshot, built if needed; the full one for search),
//   GEOAPI_BENCH_LOADGEN (wrk | autocannon; default wrk when on PATH),
//   GEOAPI_BENCH_ROUTES (comma-separated targets; default the six below),
//   GEOAPI_BENCH_DISTINCT (2000: distinct targets per search operation; 0 skips phase 2),
//   GEOAPI_BENCH_BASELINE_CHECKOUT (none: a compiled checkout, e.g. /work/wt-before, run as "before"),
//   GEOAPI_BENCH_BASELINE_SNAPSHOT (default: the same snapshot; one the baseline built, when the
//     snapshot format changed between the two: same dataset, so the same answers),
//   GEOAPI_BENCH_RATE_SHARE (0.5: fixed rate as a share of the peak; 0 skips the fixed-rate runs),
//   GEOAPI_BENCH_FIXED_LISTS (1: fixed-rate runs for the list routes too; default only small answers).
// On a 2-core machine the generator and the server share the CPU: compare ratios, not absolutes,
// and read the load average printed before and after (other processes distort both).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BARE_SCRIPT as BARE, type BareSizes } from './http-bare.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { benchSnapshotDir, runWrk, writeBenchKey, type WrkAuth } from './wrk.js';
import { BROWSER_ACCEPT_ENCODING } from './report/load/drivers.js';

const DEFAULT_ROUTES = [
  '/v1/countries',
  '/v1/countries/US/states/CA/cities',
  '/v1/countries/IN',
  '/v1/phone/parse?number=%2B14155552671',
  '/v1/search/autocomplete?q=San',
  '/v1/search/fuzzy?q=Sna%20Fransisco',
];
const SEARCH_PATHS = ['/v1/search/autocomplete', '/v1/search/fuzzy'];
const isSearchRoute = (route: string): boolean => SEARCH_PATHS.some((path) => route.startsWith(path));
/** Repeated (cached) search answers ÷ the bare handler: target (issue 16). */
const BARE_TARGET = 0.7;
/** Distinct search requests, after ÷ before (GEOAPI_BENCH_BASELINE_CHECKOUT): target (issue 16). */
const DISTINCT_TARGET = 2;
/**
 * The code the distinct requests' ≥ 2× target is measured against: issue 16's "today", the commit
 * before its work. Against any other "before" (the build before a change) the ratio is shown
 * without that target.
 */
const DISTINCT_TARGET_BASELINE = 'be60434767eec88cc28b5e2ae1c08633cf3f9de7';

/** The commit checked out at `dir`, or null when it is not a git checkout. */
function checkoutCommit(dir: string): string | null {
  const run = spawnSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : null;
}
/** Target geoapi ÷ baseline ratio: large lists are served from prepared bytes, small answers are computed. */
const LIST_ROUTES = new Set(['/v1/countries', '/v1/countries/US/states/CA/cities']);
const targetRatio = (route: string): number => (LIST_ROUTES.has(route) ? 5 : 2);
/** p99 target at the fixed rate. */
const P99_TARGET_MS = 5;
const CLI = fileURLToPath(new URL('../runtime/cli/main.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./http-baseline.js', import.meta.url));

export interface RunResult {
  requestsPerSecond: number;
  /** Requests completed in the run. */
  requests: number;
  /** The server process's CPU time (all threads, user + system) per request, in µs; NaN without /proc. */
  cpuMicrosPerRequest: number;
  /**
   * The CPU time of the process's busiest thread per request, in µs (NaN without /proc): with one
   * worker thread, geoapi's request thread; the rest of cpuMicrosPerRequest is its other threads'.
   */
  threadMicrosPerRequest?: number;
  p50: number;
  p99: number;
  bad: number;
}

export interface Server {
  name: string;
  url: string;
  child: ChildProcess;
}

const setting = (name: string, fallback: number, allowZero = false): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) throw new Error(`${name}: expected a positive number, found ${process.env[name]}`);
  return value;
};

export const loadAverage = (): string => loadavg().map((n) => n.toFixed(2)).join(' ');

/**
 * Spawns a server (node with `args`, under `wrapper` when given: a command and its arguments, such
 * as valgrind's) and resolves once a line of its stdout matches `ready` (group 1: the port).
 */
export function startChild(name: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env, wrapper: readonly string[] = []): Promise<Server> {
  const child = wrapper.length === 0 ? spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(wrapper[0]!, [...wrapper.slice(1), process.execPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ name, url: `http://127.0.0.1:${match[1]}`, child });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready:\n${output}`)));
  });
}

export function stopChild(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
    setTimeout(() => server.child.kill('SIGKILL'), 20_000).unref();
  });
}

export function get(url: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'X-GEOAPI-KEY': key }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

const autocannon = createRequire(import.meta.url).resolve('autocannon');

/** wrk (C, Debian package `wrk`) costs the shared CPU far less per request than autocannon (Node). */
export function loadGenerator(): 'wrk' | 'autocannon' {
  const wanted = process.env['GEOAPI_BENCH_LOADGEN'];
  if (wanted === 'wrk' || wanted === 'autocannon') return wanted;
  if (wanted) throw new Error(`GEOAPI_BENCH_LOADGEN: expected wrk or autocannon, found ${JSON.stringify(wanted)}`);
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error ? 'autocannon' : 'wrk';
}

/** Clock ticks per second of /proc/<pid>/stat times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** CPU time (user + system, every thread) of a process (or of `pid/task/tid`: one thread) in ticks, or NaN where /proc is missing. */
function cpuTicks(pid: number | string | undefined): number {
  try {
    // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/** CPU ticks of each thread of a process, by thread id (empty where /proc is missing). */
function threadTicks(pid: number | undefined): Map<string, number> {
  const ticks = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) ticks.set(tid, cpuTicks(`${pid}/task/${tid}`));
  } catch {
    // No /proc: NaN below.
  }
  return ticks;
}

/**
 * One run against `server`; also measures the server's CPU per request, which depends far less
 * than requests/s on what else the machine runs (and on the load generator's share of the CPU),
 * and its busiest thread's.
 */
export function load(server: Server, path: string, auth: string | WrkAuth, seconds: number, connections: number, generator: 'wrk' | 'autocannon'): RunResult {
  const url = `${server.url}${path}`;
  const wrkAuth: WrkAuth = typeof auth === 'string' ? { key: auth } : auth;
  if (generator === 'autocannon' && !('key' in wrkAuth)) throw new Error('a wrk script (rotating request targets) needs wrk');
  const before = cpuTicks(server.child.pid);
  const threadsBefore = threadTicks(server.child.pid);
  const result = generator === 'wrk' ? { ...runWrk(url, wrkAuth, seconds, connections), cpuMicrosPerRequest: NaN } : loadWithAutocannon(url, (wrkAuth as { key: string }).key, seconds, connections);
  const perRequest = (ticks: number): number => (ticks * 1e6) / CLOCK_TICKS / result.requests;
  result.cpuMicrosPerRequest = perRequest(cpuTicks(server.child.pid) - before);
  let busiest = NaN;
  for (const [tid, ticks] of threadTicks(server.child.pid)) {
    const spent = ticks - (threadsBefore.get(tid) ?? 0);
    if (!(spent <= busiest)) busiest = spent;
  }
  result.threadMicrosPerRequest = perRequest(busiest);
  return result;
}

/** One autocannon run in its own process. */
function loadWithAutocannon(url: string, key: string, seconds: number, connections: number): RunResult {
  const run = spawnSync(process.execPath, [autocannon, '--json', '-c', String(connections), '-d', String(seconds), '-H', `x-geoapi-key=${key}`, url], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (run.status !== 0) throw new Error(`autocannon failed (${run.status}): ${run.stderr}`);
  const result = JSON.parse(run.stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  return { requestsPerSecond: result.requests.average, requests: result.requests.total, cpuMicrosPerRequest: NaN, p50: result.latency.p50, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

export function printTable(header: string[], rows: string[][], print: (line: string) => void = (line) => console.log(line)): void {
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((row) => row[i]!.length)));
  print(pad(header, widths));
  for (const row of rows) print(pad(row, widths));
}

/** A geoapi `serve` from a compiled checkout (its dist/), one listener on an ephemeral port. */
function startGeoapi(name: string, cli: string, snapshotDir: string, keysFile: string, threads: number, responseCacheMb: number | null): Promise<Server> {
  const args = [cli, 'serve', '--snapshot', snapshotDir, '--keys', keysFile, '--port', '0', '--threads', String(threads), '--host', '127.0.0.1'];
  // The variable, not the flag: a checkout from before --response-cache-mb still reads it (or ignores it).
  const env: NodeJS.ProcessEnv = { ...process.env, GEOAPI_QUOTA: 'off' };
  if (responseCacheMb !== null) env['GEOAPI_RESPONSE_CACHE_MB'] = String(responseCacheMb);
  else delete env['GEOAPI_RESPONSE_CACHE_MB'];
  // open-loop.ts pipelines requests and does not resend what a closed connection loses: with more
  // than one thread, no connection is closed to even out the threads (a variable: older checkouts ignore it).
  env['GEOAPI_REBALANCE_CONNECTIONS'] = 'off';
  return startChild(name, args, /geoapi listening on http:\/\/[^:]+:(\d+)/, env);
}

/** One request on a keep-alive agent: status and body bytes. */
function fetchBytes(url: string, key: string, agent: http.Agent): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'X-GEOAPI-KEY': key }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

/** The distinct autocomplete and fuzzy queries (`q`, as sent) over `cities`' names (test/support/search-queries.ts): the distinct phase's, and the `path` suite's. */
export async function distinctSearchQueries(cities: { count: number; nameAt(row: number): string }, perOperation: number): Promise<{ autocomplete: string[]; fuzzy: string[] }> {
  const { searchQuerySets } = await import('../test/support/search-queries.js');
  const sets = searchQuerySets({ count: cities.count, name: (row) => cities.nameAt(row) }, perOperation);
  const distinct = (queries: { q?: string }[]): string[] => [...new Set(queries.map((query) => query.q!))];
  return { autocomplete: distinct(sets.autocomplete), fuzzy: distinct(sets.fuzzySearch) };
}

/** Distinct autocomplete and fuzzy request targets over the snapshot's city names (distinctSearchQueries). */
async function distinctSearchTargets(snapshotDir: string, perOperation: number): Promise<{ autocomplete: string[]; fuzzy: string[] }> {
  const { loadStore } = await import('../runtime/store/index.js');
  const queries = await distinctSearchQueries(loadStore(snapshotDir).cities, perOperation);
  const targets = (path: string, qs: string[]): string[] => qs.map((q) => `${path}?q=${encodeURIComponent(q)}`);
  return { autocomplete: targets('/v1/search/autocomplete', queries.autocomplete), fuzzy: targets('/v1/search/fuzzy', queries.fuzzy) };
}

/** A wrk script sending `targets` in turn (each connection's requests walk the list), with the key (and Accept-Encoding when given). */
export function rotatingScript(targets: readonly string[], key: string, acceptEncoding: string | null = null): string {
  const quoted = (text: string): string => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return [
    `local targets = {\n${targets.map((target) => `  ${quoted(target)},`).join('\n')}\n}`,
    'local i = 0',
    `wrk.headers["x-geoapi-key"] = ${quoted(key)}`,
    ...(acceptEncoding === null ? [] : [`wrk.headers["accept-encoding"] = ${quoted(acceptEncoding)}`]),
    'request = function()',
    '  i = i % #targets + 1',
    '  return wrk.format("GET", targets[i])',
    'end',
    '',
  ].join('\n');
}

/** What one measured row sends: a fixed target with the key, or a wrk script rotating over many. */
interface BenchRoute {
  label: string;
  /** The URL path wrk is given (a script replaces it per request). */
  path: string;
  auth: string | WrkAuth;
  /** geoapi's body size (bytes; the mean over a rotation). */
  bodyBytes: number;
}

type Results = Map<string, Map<string, RunResult[]>>;

/** Interleaved rounds: every server per route per round, the order rotating round by round. */
function measure(servers: readonly Server[], routes: readonly BenchRoute[], rounds: number, seconds: number, connections: number, generator: 'wrk' | 'autocannon'): Results {
  const results: Results = new Map();
  for (const route of routes) {
    const perServer = new Map<string, RunResult[]>(servers.map((server) => [server.name, []]));
    results.set(route.label, perServer);
    // Warm-up (JIT, caches), not measured.
    for (const server of servers) load(server, route.path, route.auth, 1, connections, generator);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < servers.length; k++) {
        const server = servers[(k + round) % servers.length]!;
        const result = load(server, route.path, route.auth, seconds, connections, generator);
        if (result.bad > 0) console.log(`  warning: ${server.name} ${route.label}: ${result.bad} non-2xx/errors/timeouts`);
        perServer.get(server.name)!.push(result);
      }
    }
  }
  return results;
}

const rpsOf = (runs: readonly RunResult[]): number => median(runs.map((r) => r.requestsPerSecond));
const cpuOf = (runs: readonly RunResult[]): number => median(runs.map((r) => r.cpuMicrosPerRequest));

const threadOf = (runs: readonly RunResult[]): number => median(runs.map((r) => r.threadMicrosPerRequest ?? NaN));

/**
 * Rows comparing server `a` with server `b` per route: req/s, ratio, CPU µs per request, CPU
 * ratio; with `busiest`, also each one's busiest thread's CPU µs per request.
 */
function comparisonRows(results: Results, routes: readonly BenchRoute[], a: string, b: string, target: (route: BenchRoute, ratio: number) => string, busiest = false): string[][] {
  return routes.filter((route) => results.get(route.label)?.has(a) && results.get(route.label)?.has(b)).map((route) => {
    const runs = results.get(route.label)!;
    const ra = rpsOf(runs.get(a)!);
    const rb = rpsOf(runs.get(b)!);
    const ca = cpuOf(runs.get(a)!);
    const cb = cpuOf(runs.get(b)!);
    const ratio = ra / rb;
    const row = [route.label, String(Math.round(route.bodyBytes)), ra.toFixed(0), rb.toFixed(0), `${ratio.toFixed(2)}×`, target(route, ratio), `${ca.toFixed(1)}/${cb.toFixed(1)}`, `${(cb / ca).toFixed(2)}×`];
    if (busiest) row.push(`${threadOf(runs.get(a)!).toFixed(1)}/${threadOf(runs.get(b)!).toFixed(1)}`);
    return row;
  });
}

export async function runHttpBench(): Promise<void> {
  const seconds = setting('GEOAPI_BENCH_SECONDS', 5);
  const rounds = setting('GEOAPI_BENCH_ROUNDS', 3);
  const connections = setting('GEOAPI_BENCH_CONNECTIONS', 32);
  const threads = setting('GEOAPI_BENCH_THREADS', 1);
  const rateShare = setting('GEOAPI_BENCH_RATE_SHARE', 0.5, true);
  const distinctCount = setting('GEOAPI_BENCH_DISTINCT', 2000, true);
  const beforeCheckout = process.env['GEOAPI_BENCH_BASELINE_CHECKOUT'] || null;
  const beforeCli = beforeCheckout === null ? null : join(beforeCheckout, 'dist/runtime/cli/main.js');
  if (beforeCli !== null && !existsSync(beforeCli)) throw new Error(`GEOAPI_BENCH_BASELINE_CHECKOUT: ${beforeCli} does not exist (compile that checkout first)`);
  const beforeSnapshot = process.env['GEOAPI_BENCH_BASELINE_SNAPSHOT'] || null;
  if (beforeSnapshot !== null && !existsSync(join(beforeSnapshot, 'manifest.json'))) throw new Error(`GEOAPI_BENCH_BASELINE_SNAPSHOT: ${beforeSnapshot} holds no snapshot (no manifest.json)`);
  const wantedRoutes = process.env['GEOAPI_BENCH_ROUTES'] ? process.env['GEOAPI_BENCH_ROUTES'].split(',').map((r) => r.trim()).filter((r) => r !== '') : DEFAULT_ROUTES;
  const snapshotDir = await benchSnapshotDir();
  const generator = loadGenerator();

  const dir = mkdtempSync(join(tmpdir(), 'geoapi-http-bench-'));
  let servers: Server[] = [];
  try {
    const { key, keysFile } = writeBenchKey(dir);

    // ---- Phase 1: fixed targets, geoapi's response cache on (repeated answers come from it). ----
    const geoapi = await startGeoapi('geoapi', CLI, snapshotDir, keysFile, threads, null);
    servers.push(geoapi);
    const before = beforeCli === null ? null : await startGeoapi('before', beforeCli, beforeSnapshot ?? snapshotDir, keysFile, threads, null);
    if (before !== null) servers.push(before);

    // The baseline serves exactly geoapi's answers (as objects, serialised per request); the bare server bodies of their sizes.
    const answers: Record<string, unknown> = {};
    const routes: BenchRoute[] = [];
    const sizes: BareSizes = { byTarget: {}, byPath: {} };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const route of wantedRoutes) {
      const res = await fetchBytes(`${geoapi.url}${route}`, key, agent);
      if (res.status !== 200) {
        console.log(`${route}: skipped (geoapi answers ${res.status}: ${res.body.toString().slice(0, 120)})`);
        continue;
      }
      answers[route] = JSON.parse(res.body.toString());
      sizes.byTarget[route] = res.body.byteLength;
      routes.push({ label: route, path: route, auth: key, bodyBytes: res.body.byteLength });
    }
    const dataVersion = await new Promise<string>((resolve, reject) => {
      http.get(`${geoapi.url}/v1/countries`, { headers: { 'X-GEOAPI-KEY': key }, agent: false }, (res) => {
        res.resume();
        resolve(String(res.headers['x-geoapi-data-version']));
      }).on('error', reject);
    });
    const answersFile = join(dir, 'answers.json');
    writeFileSync(answersFile, JSON.stringify(answers));
    const baseline = await startChild('baseline', [BASELINE, answersFile, key, dataVersion], /listening (\d+)/);
    servers.push(baseline);
    for (const route of routes) {
      const res = await get(`${baseline.url}${route.path}`, key);
      if (res.status !== 200 || JSON.stringify(JSON.parse(res.body)) !== JSON.stringify(answers[route.path])) throw new Error(`baseline answers ${route.path} differently from geoapi`);
    }
    const sizesFile = join(dir, 'sizes.json');
    writeFileSync(sizesFile, JSON.stringify(sizes));
    const bare = await startChild('bare', [BARE, sizesFile], /listening (\d+)/);
    servers.push(bare);

    console.log(`HTTP load: ${rounds} interleaved rounds × ${seconds} s per run, ${connections} connections, ${generator} in its own process; geoapi ${threads} worker thread(s)` +
      `${before !== null ? ` and the same from ${beforeCheckout} ("before")` : ''}, baseline node:http 1 thread, bare uWS 1 thread; no Accept-Encoding but on the route that says so.`);
    console.log(`load average before: ${loadAverage()}`);
    const results = measure(servers, routes, rounds, seconds, connections, generator);
    console.log(`load average after phase 1: ${loadAverage()}`);
    await Promise.all(servers.map(stopChild));
    servers = [];

    // ---- Phase 2: distinct search requests, response caches off: the engine and the path around it. ----
    const distinctRoutes: BenchRoute[] = [];
    let distinctResults: Results = new Map();
    if (distinctCount > 0 && generator !== 'wrk') console.log('\nDistinct search requests: skipped (they need wrk for its scripts).');
    if (distinctCount > 0 && generator === 'wrk') {
      const targets = await distinctSearchTargets(snapshotDir, distinctCount);
      const uncached = await startGeoapi('geoapi', CLI, snapshotDir, keysFile, threads, 0);
      servers.push(uncached);
      const beforeUncached = beforeCli === null ? null : await startGeoapi('before', beforeCli, beforeSnapshot ?? snapshotDir, keysFile, threads, 0);
      if (beforeUncached !== null) servers.push(beforeUncached);
      const distinctSizes: BareSizes = { byTarget: {}, byPath: {} };
      let differ = 0;
      for (const [name, list] of Object.entries(targets)) {
        const kept: string[] = [];
        let bytes = 0;
        const beforeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        for (const target of list) {
          const res = await fetchBytes(`${uncached.url}${target}`, key, agent);
          if (res.status !== 200) continue;
          if (beforeUncached !== null) {
            const old = await fetchBytes(`${beforeUncached.url}${target}`, key, beforeAgent);
            if (old.status !== 200 || !old.body.equals(res.body)) differ++;
          }
          kept.push(target);
          bytes += res.body.byteLength;
          distinctSizes.byTarget[target] = res.body.byteLength;
        }
        beforeAgent.destroy();
        const path = list[0]!.slice(0, list[0]!.indexOf('?'));
        const script = join(dir, `${name}.lua`);
        writeFileSync(script, rotatingScript(kept, key));
        distinctRoutes.push({ label: `${path} distinct ×${kept.length}`, path, auth: { script }, bodyBytes: bytes / kept.length });
        if (name === 'autocomplete') {
          // The same answers as a browser asks for them: every one compressed on the request's path.
          const browserScript = join(dir, `${name}-browser.lua`);
          writeFileSync(browserScript, rotatingScript(kept, key, BROWSER_ACCEPT_ENCODING));
          distinctRoutes.push({ label: `${path} distinct ×${kept.length}, Accept-Encoding: ${BROWSER_ACCEPT_ENCODING}`, path, auth: { script: browserScript }, bodyBytes: bytes / kept.length });
        }
        if (kept.length < list.length) console.log(`  ${path}: ${list.length - kept.length} of ${list.length} targets answered other than 200, left out`);
      }
      if (beforeUncached !== null) console.log(differ === 0 ? 'Distinct targets: geoapi and "before" answer every one with the same bytes.' : `  warning: ${differ} distinct targets answered differently by geoapi and "before"`);
      const distinctSizesFile = join(dir, 'distinct-sizes.json');
      writeFileSync(distinctSizesFile, JSON.stringify(distinctSizes));
      servers.push(await startChild('bare', [BARE, distinctSizesFile], /listening (\d+)/));
      console.log(`\nDistinct search requests: geoapi${beforeUncached !== null ? ' and "before"' : ''} with --response-cache-mb 0, a wrk script rotating over the targets below.`);
      distinctResults = measure(servers, distinctRoutes, rounds, seconds, connections, generator);
      console.log(`load average after phase 2: ${loadAverage()}`);
      await Promise.all(servers.map(stopChild));
      servers = [];
    }
    agent.destroy();

    // ---- Tables. ----
    console.log('\ngeoapi against the node:http baseline (same answers, serialised per request):');
    const baselineRoutes = routes.filter((route) => !isSearchRoute(route.path));
    printTable(['route', 'bytes', 'geoapi req/s', 'baseline req/s', 'ratio', 'target', 'CPU µs/req g/b', 'CPU ratio'],
      comparisonRows(results, baselineRoutes, 'geoapi', 'baseline', (route, ratio) => `≥ ${targetRatio(route.path)}× ${ratio >= targetRatio(route.path) ? 'met' : 'MISSED'}`));
    const latencyRow = (route: BenchRoute, of: Results): string[] => {
      const runs = [...of.get(route.label)!];
      const cell = (pick: (r: RunResult) => number): string => runs.map(([, r]) => median(r.map(pick)).toFixed(1)).join('/');
      return [route.label, runs.map(([name]) => name).join('/'), cell((r) => r.p50), cell((r) => r.p99)];
    };
    console.log('\ngeoapi against a bare uWS handler writing a body of the same size (the limit of any handler here):');
    const bareTarget = (route: BenchRoute, ratio: number): string => (isSearchRoute(route.path) && !route.label.includes('distinct') ? `≥ ${BARE_TARGET}× ${ratio >= BARE_TARGET ? 'met' : 'MISSED'}` : '');
    printTable(['route', 'bytes', 'geoapi req/s', 'bare req/s', 'geoapi ÷ bare', 'target', 'CPU µs/req g/bare', 'CPU ratio', 'busiest thread µs/req g/bare'],
      [...comparisonRows(results, routes, 'geoapi', 'bare', bareTarget, true), ...comparisonRows(distinctResults, distinctRoutes, 'geoapi', 'bare', bareTarget, true)]);
    console.log('busiest thread: the server thread that used the most CPU in the run (geoapi with one worker thread: its request thread); for a distinct search, its µs less the `path` suite\'s pipeline µs are what uWS and the kernel add.');
    if (beforeCli !== null) {
      const beforeCommit = checkoutCommit(beforeCheckout!);
      const targetApplies = beforeCommit === DISTINCT_TARGET_BASELINE;
      console.log(`\ngeoapi against "before" (${beforeCheckout}${beforeCommit === null ? '' : `, ${beforeCommit.slice(0, 7)}`}), same snapshot, same settings${targetApplies ? '' : `; the distinct requests' ≥ ${DISTINCT_TARGET}× target is against ${DISTINCT_TARGET_BASELINE.slice(0, 7)} (the code before issue 16), so it is not judged here`}:`);
      const beforeTarget = (route: BenchRoute, ratio: number): string => (targetApplies && route.label.includes('distinct') ? `≥ ${DISTINCT_TARGET}× ${ratio >= DISTINCT_TARGET ? 'met' : 'MISSED'}` : '');
      printTable(['route', 'bytes', 'after req/s', 'before req/s', 'after ÷ before', 'target', 'CPU µs/req a/b', 'CPU ratio'],
        [...comparisonRows(results, routes, 'geoapi', 'before', beforeTarget), ...comparisonRows(distinctResults, distinctRoutes, 'geoapi', 'before', beforeTarget)]);
    }
    console.log('\nLatency (ms, medians over rounds), per server in the order named:');
    printTable(['route', 'servers', 'p50', 'p99'], [...routes.map((route) => latencyRow(route, results)), ...distinctRoutes.map((route) => latencyRow(route, distinctResults))]);
    console.log('ratio = requests/s ÷ requests/s (medians over interleaved rounds); CPU ratio = the other server\'s CPU per request ÷ geoapi\'s (server processes only, from /proc): the capacity ratio with a core each, less sensitive to the machine\'s load.');

    if (rateShare > 0) {
      const fixedRuns = Math.min(rounds, 3);
      const peakGeoapi = await startGeoapi('geoapi', CLI, snapshotDir, keysFile, threads, null);
      servers.push(peakGeoapi);
      console.log(`\nFixed rate: geoapi alone at ${rateShare} × its peak above, open loop (bench/open-loop.ts) in its own process, ${fixedRuns} run(s) × ${seconds} s per route, ${connections} pipelined connections; the run with the median p99 is shown.`);
      // The p99 target belongs to the small answers; list bodies (200–300 KB) at thousands per second
      // would measure the generator's reading in Node rather than the server (GEOAPI_BENCH_FIXED_LISTS=1 adds them).
      const fixedRoutes = (process.env['GEOAPI_BENCH_FIXED_LISTS'] === '1' ? baselineRoutes : baselineRoutes.filter((route) => !LIST_ROUTES.has(route.path))).map((route) => route.path);
      const fixedRows = fixedRoutes.map((route) => {
        const rate = Math.max(1, Math.round(rpsOf(results.get(route)!.get('geoapi')!) * rateShare));
        const runs: OpenLoopResult[] = [];
        for (let run = 0; run < fixedRuns; run++) {
          const result = openLoop(`${peakGeoapi.url}${route}`, [`x-geoapi-key: ${key}`], rate, seconds, connections);
          const bad = result.non200 + result.missing + result.socketErrors;
          if (bad > 0) console.log(`  warning: ${route}: ${result.non200} non-200, ${result.missing} unanswered, ${result.socketErrors} socket errors`);
          runs.push(result);
        }
        const result = [...runs].sort((a, b) => a.p99 - b.p99)[runs.length >> 1]!;
        return [
          route,
          String(rate),
          result.achievedRate.toFixed(0),
          result.p50.toFixed(2),
          result.p99.toFixed(2),
          result.p999.toFixed(2),
          result.max.toFixed(1),
          `< ${P99_TARGET_MS} ${result.p99 < P99_TARGET_MS ? 'met' : 'MISSED'}`,
          result.maxSendLagMs.toFixed(1),
          runs.map((r) => r.p99.toFixed(1)).join('/'),
        ];
      });
      printTable(['route', 'rate/s', 'achieved/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'p99 target', 'send lag ms', 'p99 of runs'], fixedRows);
      console.log('Latency runs from each request\'s due time; a large send lag means the generator itself was starved of CPU (then the tail says little about the server).');
      console.log(`load average at the end: ${loadAverage()}`);
    }
  } finally {
    await Promise.all(servers.map(stopChild));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runHttpBench();
