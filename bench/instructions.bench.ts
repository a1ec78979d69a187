// Instructions per request: each server runs under valgrind's callgrind (Debian package
// `valgrind`), which counts the instructions it executes in user space, every thread. On the
// shared 2-core VM requests/s and CPU time move by ±20 % from one run to the next; geoapi's counts
// moved by 0.2–3 % between runs (each request alone on one connection), the bare handler's by up
// to 7 % (uWS's and Node's timers run per second, not per request), so a change of a few percent
// on the request path shows here when the `http` suite cannot show it. Not counted: the kernel's
// share (the socket reads and writes: the same for servers writing the same bytes), cache misses
// and mispredicted branches; fewer instructions is not always less time (a distinct fuzzy request
// executes 2.2× fewer than be60434's and takes 1.7× less time, its engine waiting on memory), so
// requests/s and CPU still judge a change; this says what changed and by how much.
//
// Servers, one at a time, each under `valgrind --tool=callgrind --instr-atstart=no` (no
// instrumentation until its first route, so it starts in a minute or two): geoapi (this checkout,
// one worker thread, quota off, response cache as shipped), the bare uWS handler (http-bare.ts:
// a body of geoapi's size, for the repeated answers), and with GEOAPI_BENCH_BASELINE_CHECKOUT
// "before". Per route: warm requests, then two windows of measured ones, the counters zeroed
// before each and dumped after (one keep-alive connection, a request at a time); the lower of the
// two windows is kept. Repeated answers: the route's target, 3,000 times to warm (answers from
// the response cache after the first), then GEOAPI_BENCH_INSTR_REQUESTS per window. Distinct
// searches: the http suite's distinct autocomplete and fuzzy queries in thirds, the first sent to
// warm, the others the windows: each a new target (a response cache miss, rendered and inserted,
// as a new type-ahead query is).
//
// Run: `npm run bench -- instructions` (~3 min per server on the full dataset). Settings
// (environment): GEOAPI_BENCH_SNAPSHOT (default: the default snapshot; the full one for the
// distinct searches), GEOAPI_BENCH_INSTR_REQUESTS (2000), GEOAPI_BENCH_DISTINCT (2000 queries per
// search operation; 0 skips them), GEOAPI_BENCH_ROUTES (comma-separated repeated targets),
// GEOAPI_BENCH_BASELINE_CHECKOUT and GEOAPI_BENCH_BASELINE_SNAPSHOT (as in the http suite).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BARE_SCRIPT, type BareSizes } from './http-bare.js';
import { distinctSearchQueries, get, printTable, startChild, stopChild, type Server } from './http.bench.js';
import { benchSnapshotDir, writeBenchKey } from './wrk.js';

const DEFAULT_ROUTES = ['/v1/search/fuzzy?q=Sna%20Fransisco', '/v1/search/autocomplete?q=San', '/v1/countries/IN', '/v1/countries/US/states/CA/cities'];
const WARM_REQUESTS = 3000;
const CLI = fileURLToPath(new URL('../runtime/cli/main.js', import.meta.url));

/** What one server counted per request, by row label. */
type Counts = Map<string, number>;

interface Row {
  label: string;
  /** The targets sent to warm, then two windows of measured ones (the lower count is kept). */
  warm: string[];
  windows: [string[], string[]];
  /** Repeated answers: compared with the bare handler. */
  repeated: boolean;
}

export interface InstructionsOptions {
  snapshotDir?: string;
  routes?: string[];
  requests?: number;
  /** Warm requests per repeated route (WARM_REQUESTS). */
  warmRequests?: number;
  distinct?: number;
  baselineCheckout?: string | null;
  baselineSnapshot?: string | null;
  print?: (line: string) => void;
}

/** Whether valgrind's callgrind and its control script are on PATH. */
export function callgrindAvailable(): boolean {
  return spawnSync('valgrind', ['--version']).status === 0 && spawnSync('callgrind_control', ['-h']).error === undefined;
}

/** A server started under callgrind, instrumentation off until measure() turns it on. */
class CountedServer {
  private dumps = 0;

  private constructor(
    readonly server: Server,
    private readonly outFile: string,
  ) {}

  static async start(name: string, dir: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv): Promise<CountedServer> {
    const outFile = join(dir, `${name}.callgrind`);
    const server = await startChild(name, args, ready, env, ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`]);
    return new CountedServer(server, outFile);
  }

  /**
   * Instructions per request of a row: its warm requests, then each window's, counted apart; the
   * lower of the two (a window may hold a full collection or an optimizing compile the other does
   * not: one window of distinct fuzzy requests counted 18 % more than the same window in another
   * run). Instrumentation goes on before the first warm requests and stays on (turned off and on
   * again between dumps, callgrind reported negative totals); the counters are zeroed before each
   * window.
   */
  async measure(row: Row, key: string): Promise<number> {
    if (this.dumps === 0) this.control('-i', 'on');
    await sendAll(this.server.url, row.warm, key);
    let fewest = Infinity;
    for (const window of row.windows) {
      this.control('-z');
      await sendAll(this.server.url, window, key);
      this.control('-d');
      this.dumps++;
      fewest = Math.min(fewest, this.totalOf(this.dumpFile()) / window.length);
    }
    return fewest;
  }

  stop(): Promise<void> {
    return stopChild(this.server);
  }

  private control(...args: string[]): void {
    const result = spawnSync('callgrind_control', [...args, String(this.server.child.pid)], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  }

  /** callgrind numbers its dumps (`<out>.1`, `.2`, …); the last one is this measurement's. */
  private dumpFile(): string {
    const base = basename(this.outFile);
    const numbered = readdirSync(dirname(this.outFile))
      .filter((file) => file.startsWith(`${base}.`))
      .map((file) => Number(file.slice(base.length + 1)))
      .filter(Number.isInteger);
    if (numbered.length !== this.dumps) throw new Error(`expected ${this.dumps} callgrind dumps of ${this.outFile}, found ${numbered.length}`);
    return `${this.outFile}.${Math.max(...numbered)}`;
  }

  private totalOf(file: string): number {
    const text = readFileSync(file, 'utf8');
    const total = /^(?:totals|summary): (\d+)/m.exec(text);
    if (total === null) throw new Error(`${file}: no totals line (is it a callgrind dump?)`);
    return Number(total[1]);
  }
}

/** Sends every target once, one at a time on one keep-alive connection; every answer must be a 200. */
async function sendAll(url: string, targets: readonly string[], key: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const one = (target: string): Promise<void> =>
    new Promise((resolve, reject) => {
      http
        .get(`${url}${target}`, { agent, headers: { 'X-GEOAPI-KEY': key } }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${target}: status ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  try {
    for (const target of targets) await one(target);
  } finally {
    agent.destroy();
  }
}

async function readyz(url: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if ((await get(`${url}/readyz`, '').catch(() => null))?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url}/readyz: not ready after 5 minutes`);
}

/** The bytes of each repeated target's answer (the bare handler's body sizes). */
async function answerSizes(url: string, targets: readonly string[], key: string): Promise<BareSizes> {
  const sizes: BareSizes = { byTarget: {}, byPath: {} };
  for (const target of targets) sizes.byTarget[target] = Buffer.byteLength((await get(`${url}${target}`, key)).body);
  return sizes;
}

async function countGeoapi(name: string, dir: string, cli: string, snapshotDir: string, keysFile: string, key: string, rows: readonly Row[]): Promise<{ counts: Counts; sizes: BareSizes }> {
  const args = [cli, 'serve', '--snapshot', snapshotDir, '--keys', keysFile, '--port', '0', '--threads', '1', '--host', '127.0.0.1'];
  const env: NodeJS.ProcessEnv = { ...process.env, GEOAPI_QUOTA: 'off' };
  delete env['GEOAPI_RESPONSE_CACHE_MB'];
  const counted = await CountedServer.start(name, dir, args, /geoapi listening on http:\/\/[^:]+:(\d+)/, env);
  try {
    await readyz(counted.server.url);
    const sizes = await answerSizes(counted.server.url, rows.filter((row) => row.repeated).map((row) => row.warm[0]!), key);
    const counts: Counts = new Map();
    for (const row of rows) counts.set(row.label, await counted.measure(row, key));
    return { counts, sizes };
  } finally {
    await counted.stop();
  }
}

async function countBare(dir: string, sizes: BareSizes, rows: readonly Row[]): Promise<Counts> {
  const sizesFile = join(dir, 'bare-sizes.json');
  writeFileSync(sizesFile, JSON.stringify(sizes));
  const counted = await CountedServer.start('bare', dir, [BARE_SCRIPT, sizesFile], /listening (\d+)/, process.env);
  try {
    const counts: Counts = new Map();
    for (const row of rows) if (row.repeated) counts.set(row.label, await counted.measure(row, ''));
    return counts;
  } finally {
    await counted.stop();
  }
}

export async function runInstructionsBench(options: InstructionsOptions = {}): Promise<{ geoapi: Counts; bare: Counts; before: Counts | null }> {
  const print = options.print ?? ((line: string) => console.log(line));
  const empty = { geoapi: new Map(), bare: new Map(), before: null };
  if (!callgrindAvailable()) {
    print('instructions: skipped (valgrind is not installed: Debian package `valgrind`)');
    return empty;
  }
  const snapshotDir = options.snapshotDir ?? (await benchSnapshotDir());
  const routes = options.routes ?? (process.env['GEOAPI_BENCH_ROUTES'] ? process.env['GEOAPI_BENCH_ROUTES'].split(',') : DEFAULT_ROUTES);
  const requests = options.requests ?? Number(process.env['GEOAPI_BENCH_INSTR_REQUESTS'] ?? 2000);
  const warmRequests = options.warmRequests ?? WARM_REQUESTS;
  const distinct = options.distinct ?? Number(process.env['GEOAPI_BENCH_DISTINCT'] ?? 2000);
  const baselineCheckout = options.baselineCheckout !== undefined ? options.baselineCheckout : (process.env['GEOAPI_BENCH_BASELINE_CHECKOUT'] ?? null);
  const baselineSnapshot = (options.baselineSnapshot !== undefined ? options.baselineSnapshot : process.env['GEOAPI_BENCH_BASELINE_SNAPSHOT']) ?? snapshotDir;
  if (!Number.isInteger(requests) || requests < 1) throw new RangeError(`GEOAPI_BENCH_INSTR_REQUESTS: expected a whole number of requests, found ${requests}`);

  const rows: Row[] = routes.map((route) => ({ label: route, warm: Array<string>(warmRequests).fill(route), windows: [Array<string>(requests).fill(route), Array<string>(requests).fill(route)], repeated: true }));
  if (distinct >= 3) {
    const { loadStore } = await import('../runtime/store/index.js');
    const queries = await distinctSearchQueries(loadStore(snapshotDir).cities, distinct);
    for (const [operation, list] of Object.entries(queries)) {
      const targets = list.map((q) => `/v1/search/${operation}?q=${encodeURIComponent(q)}`);
      const third = Math.floor(targets.length / 3);
      rows.push({ label: `/v1/search/${operation} distinct ×${third}`, warm: targets.slice(0, third), windows: [targets.slice(third, 2 * third), targets.slice(2 * third, 3 * third)], repeated: false });
    }
  }

  const dir = mkdtempSync(join(tmpdir(), 'geoapi-instructions-'));
  try {
    const { key, keysFile } = writeBenchKey(dir);
    print(`snapshot ${snapshotDir}; each server under callgrind, one at a time; user-space instructions per request (every thread), the lower of two windows of ${requests} requests per repeated route after ${warmRequests}, of distinct searches a third of the queries each after a third`);
    const geoapi = await countGeoapi('geoapi', dir, CLI, snapshotDir, keysFile, key, rows);
    const bare = await countBare(dir, geoapi.sizes, rows);
    const before = baselineCheckout === null ? null : (await countGeoapi('before', dir, join(baselineCheckout, 'dist/runtime/cli/main.js'), baselineSnapshot, keysFile, key, rows)).counts;
    const int = (n: number | undefined): string => (n === undefined ? '–' : Math.round(n).toLocaleString('en-US'));
    const ratio = (other: number | undefined, ours: number): string => (other === undefined ? '–' : `${(other / ours).toFixed(2)}×`);
    const header = ['route', 'geoapi Ir/req', 'bare Ir/req', 'bare ÷ geoapi', ...(before ? ['before Ir/req', 'before ÷ geoapi'] : [])];
    printTable(
      header,
      rows.map((row) => {
        const ours = geoapi.counts.get(row.label)!;
        const cells = [row.label, int(ours), int(bare.get(row.label)), ratio(bare.get(row.label), ours)];
        return before ? [...cells, int(before.get(row.label)), ratio(before.get(row.label), ours)] : cells;
      }),
      print,
    );
    print('bare ÷ geoapi: the share of a repeated answer\'s user-space instructions that any uWS handler spends (uWS, Node, V8 calling the handler); before ÷ geoapi: the other build\'s count over this one\'s (above 1: this one executes fewer).');
    return { geoapi: geoapi.counts, bare, before };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
