// HTTP load benchmark: geoapi (`geoapi serve`, uWS) against a plain Node `http` server that holds
// the same answers as objects in memory and serialises them per request (bench/http-baseline.ts).
// Both run in their own process; the load generator (wrk when installed — Debian package `wrk` —
// else autocannon from npm) runs in a third process, one run
// at a time, the two servers interleaved round by round so that machine noise hits both alike.
// Reported per route: requests/s, latency p50/p99, the server process's CPU per request (from
// /proc: far steadier than requests/s when other processes share the machine), and the
// geoapi/baseline ratios against the targets (lists ≥ 5×, small answers ≥ 2×; the CPU ratio is
// the capacity ratio with a core each). Then, per small-answer route, geoapi alone at a fixed
// rate of half its measured peak, with an open-loop generator (bench/open-loop.ts: latency from
// each request's due time, no coordinated omission): target p99 < 5 ms.
//
// Run: `npm run bench -- http`, or `node dist/bench/http.bench.js`. Settings (environment):
//   GEOAPI_BENCH_SECONDS (5) per run, GEOAPI_BENCH_ROUNDS (3), GEOAPI_BENCH_CONNECTIONS (32),
//   GEOAPI_BENCH_THREADS (1: geoapi worker threads; the baseline is one thread),
//   GEOAPI_BENCH_SNAPSHOT (default: the default snapshot, built if needed),
//   GEOAPI_BENCH_LOADGEN (wrk | autocannon; default wrk when on PATH),
//   GEOAPI_BENCH_ROUTES (comma-separated paths; default the four below),
//   GEOAPI_BENCH_RATE_SHARE (0.5: fixed rate as a share of the peak; 0 skips the fixed-rate runs),
//   GEOAPI_BENCH_FIXED_LISTS (1: fixed-rate runs for the list routes too; default only small answers).
// On a 2-core machine the generator and the server share the CPU: compare ratios, not absolutes,
// and read the load average printed before and after (other processes distort both).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLoop, type OpenLoopResult } from './open-loop.js';
import { benchSnapshotDir, runWrk, writeBenchKey } from './wrk.js';

const DEFAULT_ROUTES = ['/v1/countries', '/v1/countries/US/states/CA/cities', '/v1/countries/IN', '/v1/phone/parse?number=%2B14155552671'];
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

/** Spawns a server and resolves once a line of its stdout matches `ready` (group 1: the port). */
export function startChild(name: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<Server> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** CPU time (user + system, every thread) of a process in ticks, or NaN where /proc is missing. */
function cpuTicks(pid: number | undefined): number {
  try {
    // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/**
 * One run against `server`; also measures the server's CPU per request, which depends far less
 * than requests/s on what else the machine runs (and on the load generator's share of the CPU).
 */
export function load(server: Server, path: string, key: string, seconds: number, connections: number, generator: 'wrk' | 'autocannon'): RunResult {
  const url = `${server.url}${path}`;
  const before = cpuTicks(server.child.pid);
  const result = generator === 'wrk' ? { ...runWrk(url, { key }, seconds, connections), cpuMicrosPerRequest: NaN } : loadWithAutocannon(url, key, seconds, connections);
  result.cpuMicrosPerRequest = ((cpuTicks(server.child.pid) - before) * 1e6) / CLOCK_TICKS / result.requests;
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

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((row) => row[i]!.length)));
  console.log(pad(header, widths));
  for (const row of rows) console.log(pad(row, widths));
}

export async function runHttpBench(): Promise<void> {
  const seconds = setting('GEOAPI_BENCH_SECONDS', 5);
  const rounds = setting('GEOAPI_BENCH_ROUNDS', 3);
  const connections = setting('GEOAPI_BENCH_CONNECTIONS', 32);
  const threads = setting('GEOAPI_BENCH_THREADS', 1);
  const rateShare = setting('GEOAPI_BENCH_RATE_SHARE', 0.5, true);
  const wantedRoutes = process.env['GEOAPI_BENCH_ROUTES'] ? process.env['GEOAPI_BENCH_ROUTES'].split(',').map((r) => r.trim()).filter((r) => r !== '') : DEFAULT_ROUTES;
  const snapshotDir = await benchSnapshotDir();

  const dir = mkdtempSync(join(tmpdir(), 'geoapi-http-bench-'));
  const servers: Server[] = [];
  try {
    const { key, keysFile } = writeBenchKey(dir);

    const geoapi = await startChild(
      'geoapi',
      [CLI, 'serve', '--snapshot', snapshotDir, '--keys', keysFile, '--port', '0', '--threads', String(threads), '--host', '127.0.0.1'],
      /geoapi listening on http:\/\/[^:]+:(\d+)/,
      { ...process.env, GEOAPI_QUOTA: 'off' },
    );
    servers.push(geoapi);

    // The baseline serves exactly geoapi's answers (as objects, serialised per request).
    const answers: Record<string, unknown> = {};
    const routes: string[] = [];
    let dataVersion = '';
    for (const route of wantedRoutes) {
      const res = await get(`${geoapi.url}${route}`, key);
      if (res.status !== 200) {
        console.log(`${route}: skipped (geoapi answers ${res.status}: ${res.body.slice(0, 120)})`);
        continue;
      }
      answers[route] = JSON.parse(res.body);
      routes.push(route);
    }
    dataVersion = await new Promise<string>((resolve, reject) => {
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
      const res = await get(`${baseline.url}${route}`, key);
      if (res.status !== 200 || JSON.stringify(JSON.parse(res.body)) !== JSON.stringify(answers[route])) throw new Error(`baseline answers ${route} differently from geoapi`);
    }

    const generator = loadGenerator();
    console.log(`HTTP load: ${rounds} interleaved rounds × ${seconds} s per run, ${connections} connections, ${generator} in its own process; geoapi ${threads} worker thread(s), baseline node:http 1 thread; no Accept-Encoding.`);
    console.log(`load average before: ${loadAverage()}`);
    const results = new Map<string, { geoapi: RunResult[]; baseline: RunResult[] }>();
    for (const route of routes) {
      const perServer = { geoapi: [] as RunResult[], baseline: [] as RunResult[] };
      results.set(route, perServer);
      // Warm-up (JIT, caches), not measured.
      for (const server of [geoapi, baseline]) load(server, route, key, 1, connections, generator);
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? [geoapi, baseline] : [baseline, geoapi];
        for (const server of order) {
          const result = load(server, route, key, seconds, connections, generator);
          if (result.bad > 0) console.log(`  warning: ${server.name} ${route}: ${result.bad} non-2xx/errors/timeouts`);
          perServer[server.name as 'geoapi' | 'baseline'].push(result);
        }
      }
    }

    const header = ['route', 'geoapi req/s', 'baseline req/s', 'ratio', 'target', 'p50 ms g/b', 'p99 ms g/b', 'CPU µs/req g/b', 'CPU ratio'];
    const peaks = new Map<string, number>();
    const rows = routes.map((route) => {
      const { geoapi: g, baseline: b } = results.get(route)!;
      const gRps = median(g.map((r) => r.requestsPerSecond));
      const bRps = median(b.map((r) => r.requestsPerSecond));
      const gCpu = median(g.map((r) => r.cpuMicrosPerRequest));
      const bCpu = median(b.map((r) => r.cpuMicrosPerRequest));
      peaks.set(route, gRps);
      const ratio = gRps / bRps;
      return [
        route,
        gRps.toFixed(0),
        bRps.toFixed(0),
        `${ratio.toFixed(2)}×`,
        `≥ ${targetRatio(route)}× ${ratio >= targetRatio(route) ? 'met' : 'MISSED'}`,
        `${median(g.map((r) => r.p50)).toFixed(1)}/${median(b.map((r) => r.p50)).toFixed(1)}`,
        `${median(g.map((r) => r.p99)).toFixed(1)}/${median(b.map((r) => r.p99)).toFixed(1)}`,
        `${gCpu.toFixed(2)}/${bCpu.toFixed(2)}`,
        `${(bCpu / gCpu).toFixed(2)}×`,
      ];
    });
    printTable(header, rows);
    console.log('ratio = geoapi req/s ÷ baseline req/s (medians over rounds); > 1 means geoapi is faster.');
    console.log('CPU ratio = baseline CPU per request ÷ geoapi CPU per request (server processes only, from /proc): the capacity ratio with a core each, less sensitive to the machine\'s load.');
    console.log(`load average after the peak runs: ${loadAverage()}`);

    if (rateShare > 0) {
      const fixedRuns = Math.min(rounds, 3);
      console.log(`\nFixed rate: geoapi alone at ${rateShare} × its peak above, open loop (bench/open-loop.ts) in its own process, ${fixedRuns} run(s) × ${seconds} s per route, ${connections} pipelined connections; the run with the median p99 is shown.`);
      // The p99 target belongs to the small answers; list bodies (200–300 KB) at thousands per second
      // would measure the generator's reading in Node rather than the server (GEOAPI_BENCH_FIXED_LISTS=1 adds them).
      const fixedRoutes = process.env['GEOAPI_BENCH_FIXED_LISTS'] === '1' ? routes : routes.filter((route) => !LIST_ROUTES.has(route));
      const fixedRows = fixedRoutes.map((route) => {
        const rate = Math.max(1, Math.round(peaks.get(route)! * rateShare));
        const runs: OpenLoopResult[] = [];
        for (let run = 0; run < fixedRuns; run++) {
          const result = openLoop(`${geoapi.url}${route}`, [`x-geoapi-key: ${key}`], rate, seconds, connections);
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
