// The cost of ETags and the one response cache on the hot paths: this build against a previous
// build (another checkout's compiled CLI) in the same run, same snapshot, same key file, each
// `geoapi serve` in its own process, the two interleaved run by run (alternating which goes first)
// so that machine noise hits both alike. Routes: a country detail and an autocomplete request
// (both answered from a cache in both builds: this one also reads If-None-Match and writes ETag
// and X-Cache). Reported: requests/s and the server's CPU per request (from /proc, steadier on a
// shared machine), medians over rounds, and the ratio this ÷ previous. Target: cost under 5%.
// First, the same comparison without sockets: each build's own buildApp (its registry, store,
// policy and key index, loaded from its dist/) on a stand-in uWS that records the handlers, the
// requests driven through the whole pipeline (key → … → write) in one process, builds alternated
// in short batches: CPU per request of everything the server does except socket I/O, which is
// the same for both builds. Far less noisy than the HTTP part when other processes load the machine.
//
// Run: `node dist/bench/etag.bench.js` or `npm run bench -- etag`. Settings (environment):
//   GEOAPI_BENCH_PREVIOUS   the previous build's checkout (default /work/wt-prev; compile it first:
//                           `git worktree add /work/wt-prev db49dbc`, symlink node_modules, `npx tsc`)
//   GEOAPI_BENCH_SNAPSHOT   snapshot directory (default: the default snapshot, built if needed)
//   GEOAPI_BENCH_SECONDS (3), GEOAPI_BENCH_ROUNDS (6), GEOAPI_BENCH_CONNECTIONS (16),
//   GEOAPI_BENCH_ROUTES (comma-separated paths), GEOAPI_BENCH_LOADGEN (wrk | autocannon),
//   GEOAPI_BENCH_SKIP_HTTP=1 (only the in-process part).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { get, load, loadAverage, loadGenerator, median, printTable, startChild, stopChild, type RunResult, type Server } from './http.bench.js';
import { benchSnapshotDir, writeBenchKey } from './wrk.js';

const CLI = fileURLToPath(new URL('../runtime/cli/main.js', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEFAULT_ROUTES = ['/v1/countries/US', '/v1/search/autocomplete?q=lon'];

const setting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name}: expected a positive number, found ${process.env[name]}`);
  return value;
};

interface StandIn {
  /** A function running one GET of `path` through the build's registered handler, returning the status line written. */
  prepare(path: string, key: string): () => string;
}

/** A build's app on a stand-in uWS: buildApp with its own modules, handlers called directly. */
export async function standInApp(root: string, snapshotDir: string, keysFile: string): Promise<StandIn> {
  const dist = join(root, 'dist/runtime');
  const { buildApp } = await import(join(dist, 'http/app.js'));
  const { allOperations, configureOperations } = await import(join(dist, 'routes/registry.js'));
  const { loadStore } = await import(join(dist, 'store/index.js'));
  const { parsePolicy, readPolicyText, DEFAULT_POLICY_FILE } = await import(join(dist, 'access/policy.js'));
  const { KeyIndex, keySnapshotOf } = await import(join(dist, 'access/key-index.js'));
  const { readKeyFile } = await import(join(dist, 'access/keys.js'));
  const { noQuotaGate } = await import(join(dist, 'access/quota-hook.js'));
  // Both builds' settings shapes (the previous one had per-cache budgets here).
  configureOperations({ cursorSecret: 'bench', previousCursorSecrets: [], postcodeResponseCache: { maxEntries: 10_000, maxBytes: 32 << 20 }, bodyMemoBytes: 64 << 20 });
  const policyFile = join(root, 'data/policy.json');
  const policy = parsePolicy(readPolicyText(existsSync(policyFile) ? policyFile : DEFAULT_POLICY_FILE), policyFile, []);
  const state = { policy, keys: new KeyIndex(keySnapshotOf(readKeyFile(keysFile)), policy), quota: noQuotaGate, draining: false };
  const routes: { pattern: RegExp; handler: (res: unknown, req: unknown) => void }[] = [];
  const register = (path: string, handler: (res: unknown, req: unknown) => void): void => {
    routes.push({ pattern: new RegExp(`^${path.replace(/:[^/]+/g, '([^/]+)').replace('/*', '/.*')}$`), handler });
  };
  const app = { get: register, options: () => app, any: () => app, listen: () => app };
  const uws = { App: () => app };
  buildApp({ uws, operations: allOperations(), store: loadStore(snapshotDir), state, fixedNowMs: null, threadIndex: 0, responseCacheBytes: 128 << 20, log: () => {} });
  let status = '';
  const res = {
    writeStatus: (line: string) => ((status = line), res),
    writeHeader: () => res,
    end: () => res,
    endWithoutBody: () => res,
    cork: (cb: () => void) => (cb(), res),
    onAborted: () => res,
    close: () => res,
  };
  return {
    prepare(path, key) {
      const [pathname, query] = path.split('?') as [string, string | undefined];
      for (const route of routes) {
        const match = route.pattern.exec(pathname);
        if (!match) continue;
        const req = {
          getHeader: (name: string) => (name === 'x-geoapi-key' ? key : ''),
          getParameter: (i: number) => match[i + 1] ?? '',
          getUrl: () => pathname,
          getMethod: () => 'get',
          getQuery: () => query,
          forEach: () => {},
        };
        return () => {
          route.handler(res, req);
          return status;
        };
      }
      throw new Error(`no route for ${path}`);
    },
  };
}

function inProcessRows(apps: Record<'previous' | 'current', StandIn>, routes: string[], key: string, rounds: number): string[][] {
  const BATCH = 2000;
  return routes.map((route) => {
    const micros: Record<'previous' | 'current', number[]> = { previous: [], current: [] };
    const run = { previous: apps.previous.prepare(route, key), current: apps.current.prepare(route, key) };
    for (const name of ['previous', 'current'] as const) {
      const status = run[name]();
      if (!status.startsWith('200')) throw new Error(`${name} ${route}: ${status}`);
      for (let i = 0; i < BATCH; i++) run[name](); // warm-up
    }
    for (let round = 0; round < rounds * 10; round++) {
      for (const name of round % 2 === 0 ? (['previous', 'current'] as const) : (['current', 'previous'] as const)) {
        const start = process.cpuUsage();
        const once = run[name];
        for (let i = 0; i < BATCH; i++) once();
        const used = process.cpuUsage(start);
        micros[name].push((used.user + used.system) / BATCH);
      }
    }
    const prev = median(micros.previous);
    const cur = median(micros.current);
    const pairs = micros.current.map((c, i) => c / micros.previous[i]!);
    return [route, prev.toFixed(2), cur.toFixed(2), (cur / prev).toFixed(3), median(pairs).toFixed(3)];
  });
}

export async function runEtagBench(): Promise<void> {
  const previousRoot = process.env['GEOAPI_BENCH_PREVIOUS'] ?? '/work/wt-prev';
  const previousCli = join(previousRoot, 'dist/runtime/cli/main.js');
  if (!existsSync(previousCli)) {
    console.log(`etag bench: no previous build at ${previousCli}; nothing measured (see the header of bench/etag.bench.ts)`);
    return;
  }
  const seconds = setting('GEOAPI_BENCH_SECONDS', 3);
  const rounds = setting('GEOAPI_BENCH_ROUNDS', 6);
  const connections = setting('GEOAPI_BENCH_CONNECTIONS', 16);
  const routes = process.env['GEOAPI_BENCH_ROUTES'] ? process.env['GEOAPI_BENCH_ROUTES'].split(',').map((r) => r.trim()).filter((r) => r !== '') : DEFAULT_ROUTES;
  const snapshotDir = await benchSnapshotDir();

  const dir = mkdtempSync(join(tmpdir(), 'geoapi-etag-bench-'));
  const servers: Server[] = [];
  try {
    const { key, keysFile } = writeBenchKey(dir);

    const apps = { previous: await standInApp(previousRoot, snapshotDir, keysFile), current: await standInApp(join(REPO_ROOT), snapshotDir, keysFile) };
    console.log(`In process (each build's pipeline on a stand-in uWS, no sockets; ${rounds * 10} alternating batches of 2,000 requests; CPU time per request):`);
    printTable(['route', 'prev µs/req', 'this µs/req', 'ratio (this/prev)', 'median pair ratio'], inProcessRows(apps, routes, key, rounds));
    console.log('ratio > 1 is a cost of this build. Both answer from their caches (previous: body memo / search cache; this: the one response cache with ETag and X-Cache).\n');

    if (process.env['GEOAPI_BENCH_SKIP_HTTP'] === '1') return;
    const args = ['serve', '--snapshot', snapshotDir, '--keys', keysFile, '--port', '0', '--threads', '1', '--host', '127.0.0.1'];
    const env = { ...process.env, GEOAPI_QUOTA: 'off' };
    const ready = /geoapi listening on http:\/\/[^:]+:(\d+)/;
    const current = await startChild('current', [CLI, ...args], ready, env);
    servers.push(current);
    const previous = await startChild('previous', [previousCli, ...args], ready, env);
    servers.push(previous);
    for (const route of routes) {
      const [a, b] = [await get(`${current.url}${route}`, key), await get(`${previous.url}${route}`, key)];
      if (a.status !== 200 || a.body !== b.body) throw new Error(`${route}: the two builds answer differently (${a.status}, ${b.status})`);
    }

    const generator = loadGenerator();
    console.log(`ETag cost: ${previousCli} (previous) vs this build; ${rounds} interleaved rounds × ${seconds} s, ${connections} connections, ${generator} in its own process, 1 worker thread each, quotas off, no Accept-Encoding.`);
    console.log(`load average before: ${loadAverage()}`);
    const rows: string[][] = [];
    for (const route of routes) {
      const results: Record<'current' | 'previous', RunResult[]> = { current: [], previous: [] };
      for (const server of [current, previous]) load(server, route, key, 1, connections, generator); // warm-up
      for (let round = 0; round < rounds; round++) {
        for (const server of round % 2 === 0 ? [previous, current] : [current, previous]) {
          const result = load(server, route, key, seconds, connections, generator);
          if (result.bad > 0) console.log(`  warning: ${server.name} ${route}: ${result.bad} non-2xx/errors/timeouts`);
          results[server.name as 'current' | 'previous'].push(result);
        }
      }
      const rps = (name: 'current' | 'previous') => median(results[name].map((r) => r.requestsPerSecond));
      const cpu = (name: 'current' | 'previous') => median(results[name].map((r) => r.cpuMicrosPerRequest));
      // Per-round pairs: each round's ratio, so a slow phase of the machine cancels out.
      const pairRatios = results.current.map((r, i) => r.requestsPerSecond / results.previous[i]!.requestsPerSecond);
      rows.push([
        route,
        rps('previous').toFixed(0),
        rps('current').toFixed(0),
        `${(rps('current') / rps('previous')).toFixed(3)}`,
        `${median(pairRatios).toFixed(3)}`,
        `${cpu('previous').toFixed(2)}/${cpu('current').toFixed(2)}`,
        `${(cpu('current') / cpu('previous')).toFixed(3)}`,
      ]);
    }
    printTable(['route', 'prev req/s', 'this req/s', 'req/s ratio', 'median pair ratio', 'CPU µs/req prev/this', 'CPU ratio (this/prev)'], rows);
    console.log('req/s ratio = this ÷ previous (medians over rounds; < 1 is a cost); CPU ratio = CPU per request this ÷ previous (> 1 is a cost). Target: cost under 5%.');
    console.log(`load average after: ${loadAverage()}`);
  } finally {
    await Promise.all(servers.map(stopChild));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runEtagBench();
