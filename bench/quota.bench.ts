// What quotas cost over HTTP: the same geoapi server (`geoapi serve`, uWS) with quotas off, in
// memory (SharedArrayBuffer counters + state file), and in Redis (one atomic script per request,
// batched per event-loop turn, and unbatched), all in the same run. The load generator (wrk when
// installed — Debian package `wrk` — else autocannon from npm) runs in its own process; the modes
// are interleaved round by round so machine noise hits them alike.
// Reported: requests/s and latency p50/p99 per mode, and ratios against "off".
// Targets (issue "Quotas …"): in memory ≥ 0.90 × off, Redis ≥ 0.75 × off.
//
// Run: `npm run bench -- quota`, or `node dist/bench/quota.bench.js`. Settings (environment):
//   GEOAPI_BENCH_SECONDS (5) per run, GEOAPI_BENCH_ROUNDS (3), GEOAPI_BENCH_CONNECTIONS (32),
//   GEOAPI_BENCH_THREADS (1: geoapi worker threads), GEOAPI_BENCH_SNAPSHOT (default snapshot),
//   GEOAPI_BENCH_ROUTES (comma-separated; default /v1/meta/data-version — the cheapest answer, the
//   worst case for the quota's share — and /v1/countries, a typical list),
//   GEOAPI_BENCH_KEYS (64: Business keys the requests rotate over, as many clients would; wrk only),
//   GEOAPI_BENCH_REDIS_URL (default: a redis-server started for the run on a free port; it is
//   also measured through its Unix socket),
//   GEOAPI_BENCH_LOADGEN (wrk | autocannon).
// On a 2-core machine the generator, the server and Redis share the CPU: compare ratios.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addKey, newKeyFile, writeKeyFile } from '../runtime/access/keys.js';
import { DEFAULT_POLICY_FILE } from '../runtime/access/policy.js';
import { RedisQuotaCounter, type RedisBatchMode } from '../runtime/access/quota/redis-counter.js';
import { windowsAt } from '../runtime/access/quota/windows.js';
import { startTestRedis, type TestRedis } from '../test/access/quota/fixtures/redis-server.js';
import { benchSnapshotDir, runWrk } from './wrk.js';

const CLI = fileURLToPath(new URL('../runtime/cli/main.js', import.meta.url));

interface RunResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  bad: number;
}

interface Mode {
  name: string;
  env: Record<string, string>;
  url?: string;
  child?: ChildProcess;
}

const setting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: expected a positive number, found ${process.env[name]}`);
  return value;
};

function startServer(mode: Mode, args: string[]): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { env: { ...process.env, ...mode.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  mode.child = child;
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /geoapi listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match && !mode.url) {
        mode.url = `http://127.0.0.1:${match[1]}`;
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`geoapi (${mode.name}) exited (${code}) before it was ready:\n${output}`)));
  });
}

function stopServer(mode: Mode): Promise<void> {
  const child = mode.child;
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
  });
}

function get(url: string, key: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'X-GEOAPI-KEY': key }, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      })
      .on('error', reject);
  });
}

function loadGenerator(): 'wrk' | 'autocannon' {
  const wanted = process.env['GEOAPI_BENCH_LOADGEN'];
  if (wanted === 'wrk' || wanted === 'autocannon') return wanted;
  if (wanted) throw new Error(`GEOAPI_BENCH_LOADGEN: expected wrk or autocannon, found ${JSON.stringify(wanted)}`);
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error ? 'autocannon' : 'wrk';
}

function loadWithAutocannon(url: string, key: string, seconds: number, connections: number): RunResult {
  let autocannon: string;
  try {
    autocannon = createRequire(import.meta.url).resolve('autocannon');
  } catch {
    throw new Error('no load generator: install wrk (apt-get install -y wrk) or autocannon (npm)');
  }
  const run = spawnSync(process.execPath, [autocannon, '--json', '-c', String(connections), '-d', String(seconds), '-H', `x-geoapi-key=${key}`, url], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (run.status !== 0) throw new Error(`autocannon failed (${run.status}): ${run.stderr}`);
  const result = JSON.parse(run.stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; timeouts: number };
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

export async function runQuotaBench(): Promise<void> {
  const seconds = setting('GEOAPI_BENCH_SECONDS', 5);
  const rounds = setting('GEOAPI_BENCH_ROUNDS', 3);
  const connections = setting('GEOAPI_BENCH_CONNECTIONS', 32);
  const threads = setting('GEOAPI_BENCH_THREADS', 1);
  const routes = (process.env['GEOAPI_BENCH_ROUTES'] ?? '/v1/meta/data-version,/v1/countries').split(',').filter((r) => r !== '');
  const snapshotDir = await benchSnapshotDir();
  const generator = loadGenerator();

  const dir = mkdtempSync(join(tmpdir(), 'geoapi-quota-bench-'));
  let redis: TestRedis | undefined;
  const modes: Mode[] = [];
  try {
    let redisUrl = process.env['GEOAPI_BENCH_REDIS_URL'];
    if (!redisUrl) {
      redis = await startTestRedis({ own: true });
      redisUrl = redis.url;
    }
    // A Business key whose quota never binds: every request is counted, none refused.
    const policy = JSON.parse(readFileSync(DEFAULT_POLICY_FILE, 'utf8')) as { plans: Record<string, { quota: unknown }> };
    policy.plans['business']!.quota = { daily: 2_147_483_647, monthly: 2_147_483_647 };
    const policyFile = join(dir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify(policy));
    const keyFile = newKeyFile();
    const keys = Array.from({ length: setting('GEOAPI_BENCH_KEYS', 64) }, (_, i) => addKey(keyFile, { plan: 'business', name: `bench ${i}` }).key);
    const key = keys[0]!;
    const keysFile = join(dir, 'keys.json');
    writeKeyFile(keysFile, keyFile);
    const wrkScript = join(dir, 'keys.lua');
    writeFileSync(
      wrkScript,
      `local keys = {${keys.map((k) => JSON.stringify(k)).join(', ')}}\nlocal i = 0\nrequest = function()\n  i = i + 1\n  wrk.headers["X-GEOAPI-KEY"] = keys[(i % #keys) + 1]\n  return wrk.format(nil)\nend\n`,
    );

    const prefix = `bench${process.pid}:`;
    modes.push(
      { name: 'off', env: { GEOAPI_QUOTA: 'off' } },
      { name: 'memory', env: { GEOAPI_QUOTA: 'memory', GEOAPI_QUOTA_STATE_FILE: join(dir, 'quota-state.json') } },
      { name: 'redis (batched)', env: { GEOAPI_REDIS_URL: redisUrl, GEOAPI_REDIS_BATCH: 'script', GEOAPI_REDIS_PREFIX: prefix } },
      { name: 'redis (unbatched)', env: { GEOAPI_REDIS_URL: redisUrl, GEOAPI_REDIS_BATCH: 'none', GEOAPI_REDIS_PREFIX: prefix } },
    );
    // A Redis on the same host can be reached through its Unix socket (no TCP stack on either side).
    if (redis?.socketUrl) modes.push({ name: 'redis (batched, unix socket)', env: { GEOAPI_REDIS_URL: redis.socketUrl, GEOAPI_REDIS_BATCH: 'script', GEOAPI_REDIS_PREFIX: prefix } });
    const args = ['--snapshot', snapshotDir, '--keys', keysFile, '--policy', policyFile, '--port', '0', '--threads', String(threads), '--host', '127.0.0.1'];
    for (const mode of modes) await startServer(mode, args);
    for (const mode of modes) {
      for (const route of routes) {
        const res = await get(`${mode.url}${route}`, key);
        if (res.status !== 200) throw new Error(`${mode.name}: ${route} answers ${res.status}`);
        const counted = res.headers['x-geoapi-daily-used'] !== undefined;
        if (counted !== (mode.name !== 'off')) throw new Error(`${mode.name}: expected usage headers ${mode.name === 'off' ? 'absent' : 'present'}`);
      }
    }

    console.log(
      `Quota cost over HTTP: ${rounds} interleaved rounds × ${seconds} s per mode and route, ${connections} connections, ${generator === 'wrk' ? `wrk rotating over ${keys.length} keys` : 'autocannon (one key)'} in its own process; geoapi ${threads} worker thread(s); Redis ${redis ? 'started for this run' : redisUrl}.`,
    );
    for (const route of routes) {
      const results = new Map<string, RunResult[]>(modes.map((mode) => [mode.name, []]));
      const load = (mode: Mode, runSeconds: number): RunResult => {
        const url = `${mode.url}${route}`;
        return generator === 'wrk' ? runWrk(url, { script: wrkScript }, runSeconds, connections) : loadWithAutocannon(url, key, runSeconds, connections);
      };
      for (const mode of modes) load(mode, 1); // warm-up (JIT, connections), not measured
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? modes : [...modes].reverse();
        for (const mode of order) {
          const result = load(mode, seconds);
          if (result.bad > 0) console.log(`  warning: ${mode.name}: ${result.bad} non-2xx/errors/timeouts`);
          results.get(mode.name)!.push(result);
        }
      }
      console.log(`\nGET ${route}`);
      printTable(modes, results);
    }
    console.log('vs off = req/s ÷ req/s with quotas off (medians over rounds); p99 vs off = p99 ÷ p99 with quotas off.');
    await redisClientThroughput(redisUrl, `${prefix}client:`, rounds);
    const stateFile = join(dir, 'quota-state.json');
    if (existsSync(stateFile)) {
      const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { buckets: Array<{ dayUsed: number }> };
      const counted = saved.buckets.reduce((sum, bucket) => sum + bucket.dayUsed, 0);
      console.log(`memory mode state file after the run: ${counted} requests counted in ${saved.buckets.length} buckets (saved every second).`);
    }
  } finally {
    await Promise.all(modes.map(stopServer));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Batching without HTTP: one thread issuing 256 concurrent consumes over 1,000 buckets, one
 * script call per consume against one call per event-loop turn.
 */
async function redisClientThroughput(url: string, keyPrefix: string, rounds: number): Promise<void> {
  const total = 100_000;
  const perMode: Record<RedisBatchMode, number[]> = { none: [], script: [] };
  for (let round = 0; round < rounds; round++) {
    for (const batch of round % 2 === 0 ? (['none', 'script'] as const) : (['script', 'none'] as const)) {
      const counter = new RedisQuotaCounter({ url, keyPrefix, timeoutMs: 5000, batch });
      if (!(await counter.whenReady(5000))) throw new Error(`Redis at ${url} did not answer`);
      const windows = windowsAt(Date.now());
      let next = 0;
      const started = performance.now();
      const lane = async (): Promise<void> => {
        while (next < total) await counter.consume(`key:${next++ % 1000}`, windows, 2_000_000_000, 2_000_000_000);
      };
      await Promise.all(Array.from({ length: 256 }, lane));
      perMode[batch].push(total / ((performance.now() - started) / 1000));
      await counter.close();
    }
  }
  const none = median(perMode.none);
  const script = median(perMode.script);
  console.log(`\nRedis client alone (one thread, 256 concurrent consumes): unbatched ${none.toFixed(0)}/s, batched ${script.toFixed(0)}/s: batching ${(script / none).toFixed(2)}×.`);
}

function printTable(modes: Mode[], results: Map<string, RunResult[]>): void {
  const offRps = median(results.get('off')!.map((r) => r.requestsPerSecond));
  const offP99 = median(results.get('off')!.map((r) => r.p99));
  const targets: Record<string, number> = { memory: 0.9, 'redis (batched)': 0.75, 'redis (unbatched)': 0.75, 'redis (batched, unix socket)': 0.75 };
  const header = ['quota', 'req/s', 'vs off', 'p50 ms', 'p99 ms', 'p99 vs off', 'target'];
  const rows = modes.map((mode) => {
    const runs = results.get(mode.name)!;
    const rps = median(runs.map((r) => r.requestsPerSecond));
    const p99 = median(runs.map((r) => r.p99));
    const target = targets[mode.name];
    return [
      mode.name,
      rps.toFixed(0),
      `${(rps / offRps).toFixed(2)}×`,
      median(runs.map((r) => r.p50)).toFixed(2),
      p99.toFixed(2),
      `${(p99 / offP99).toFixed(2)}×`,
      target === undefined ? 'baseline' : `≥ ${target.toFixed(2)}× ${rps / offRps >= target ? 'met' : 'MISSED'}`,
    ];
  });
  const widths = header.map((_, i) => Math.max(header[i]!.length, ...rows.map((row) => row[i]!.length)));
  console.log(pad(header, widths));
  for (const row of rows) console.log(pad(row, widths));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runQuotaBench();
