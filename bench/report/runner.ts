// Runs the whole comparison in one go: builds geoapi snapshots and loads PostgreSQL from the same
// dataset, starts the three servers, checks that the baselines answer like geoapi, then drives
// every operation and the mix (saturation, then a fixed rate of half geoapi's peak) and the
// growth benchmark, interleaving the systems so that machine noise hits them alike.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addKey, newKeyFile, writeKeyFile } from '../../runtime/access/keys.js';
import { MMAP_THRESHOLD_VARIABLE, PINNED_MMAP_THRESHOLD } from '../../runtime/cli/allocator.js';
import { DEFAULT_POLICY_FILE } from '../../runtime/access/policy.js';
import { readDataset, writeSampledDataset, allCities, type RawDataset } from './dataset.js';
import { BROWSER_ACCEPT_ENCODING, makeDriver, runNodeLoad, wrkAvailable, type Driver, type SaturationResult } from './load/drivers.js';
import type { LoadResult } from './load/loadgen.js';
import { describeMachine, loadAverage, type Machine } from './machine.js';
import { clusterPids, postgresUnavailable, startCluster, type PgCluster } from './postgres/cluster.js';
import { loadSchema, settleDatabase } from './postgres/load.js';
import { cpuSeconds, fileRssBytes, freePort, get, machineBusySeconds, processTree, pssBytes, serviceTimes, startServer, stealSeconds, stopServer, tcpRetransmits, treeRssBytes, waitReady, type RunningServer, type ServiceTimes } from './processes.js';
import { summarizeGc, type GcSummary } from './gc.js';
import { compareBodies } from './validate.js';
import { generateWorkload, OPERATION_PATH_PATTERNS, OPERATIONS, SEARCH_OPERATIONS, type Operation, type SearchOperation, type Workload } from './workload.js';
import { BARE_SCRIPT, type BareSizes } from '../http-bare.js';
import { startChild, stopChild, type Server } from '../http.bench.js';
import { GEOAPI_SLOW_LOG_MS, loggedSlowAnswers } from './slow-log.js';

const CLI = fileURLToPath(new URL('../../runtime/cli/main.js', import.meta.url));
const NAIVE = fileURLToPath(new URL('./baselines/naive.js', import.meta.url));
const PG_SERVER = fileURLToPath(new URL('./postgres/server.js', import.meta.url));
/** Length of each run from ready on (ReportData.afterReady), in 1-s windows. */
const AFTER_READY_SECONDS = 8;

export const SYSTEMS = ['geoapi', 'postgres', 'naive'] as const;
export type SystemName = (typeof SYSTEMS)[number];
export type WorkloadName = Operation | 'mix';
export const GROWTH_SIZES = [10, 50, 100] as const;

export interface RunnerOptions {
  smoke: boolean;
  dataDir: string;
  /** A built snapshot of dataDir to reuse (skips the build; no build time then). */
  snapshotDir: string | null;
  postgres: boolean;
  /** Saturation run length per operation per system. */
  seconds: number;
  /** Fixed-rate run length. */
  fixedSeconds: number;
  growthSeconds: number;
  /** Unmeasured load before each saturation (wrk) or fixed-rate run. */
  warmupSeconds: number;
  connections: number;
  /** Worker threads (geoapi) / processes (baselines): every core. */
  workers: number;
  requestsPerOperation: number;
  mixSize: number;
  validationSample: number;
  /** Requests per operation timed one at a time on geoapi. */
  serviceSample: number;
  /** wrk for saturation when installed (never in smoke mode: it counts whole seconds). */
  useWrk: boolean;
  seed: number;
  log: (line: string) => void;
}

export interface RunStats {
  saturation: SaturationResult;
  /** CPU cores the server (all its processes; PostgreSQL's too) used during the saturation run. */
  serverCores: number;
  /** Busy cores of the whole machine during the run (server, load generator, anything else). */
  machineCores: number;
  fixed: LoadResult | null;
  /** Cores used during the fixed-rate run: by the server, and by the whole machine. */
  fixedServerCores: number | null;
  fixedMachineCores: number | null;
  /** TCP retransmissions on the machine during the saturation and the fixed-rate run (a dropped loopback segment costs its request ≥ 200 ms). */
  saturationRetransmits: number;
  fixedRetransmits: number | null;
  /** CPU stolen by the hypervisor during the fixed-rate run (ms, every core). */
  fixedStealMs: number | null;
  /** Why there is no fixed-rate run (the system's peak is below the rate). */
  fixedSkipped: string | null;
  /** geoapi: share of the run's requests answered from its response cache (null: not read). */
  saturationCacheHits: number | null;
  fixedCacheHits: number | null;
  /** geoapi: the busiest request thread's share of the fixed-rate run's requests (its metrics; null: not read). */
  fixedBusiestThreadShare: number | null;
}

export interface WorkloadResult {
  name: WorkloadName;
  targetRate: number;
  bySystem: Partial<Record<SystemName, RunStats>>;
  /**
   * The machine's floor: the same fixed-rate run against a bare uWS handler (bench/http-bare.ts, one
   * thread) writing bodies of geoapi's mean answer size for the operation; null when not run.
   */
  floor: LoadResult | null;
}

export interface SystemSummary {
  name: SystemName;
  startupMs: number;
  /** geoapi: spawn → /readyz 200 (every thread has prepared its indexes), median like startupMs; null for the baselines. */
  readyMs: number | null;
  /** Resident memory after start and after the load phase (bytes; all processes of the server). */
  rssAfterStart: number;
  rssAfterLoad: number;
  /** Of rssAfterLoad, the pages mapped from files (the node binary and libraries: shared with every other process running them). */
  fileRssAfterLoad: number;
  /** PostgreSQL's own processes (proportional set size, after the load phase). */
  databasePss: number | null;
}

export interface ParityResult {
  name: Operation;
  system: Exclude<SystemName, 'geoapi'>;
  sampled: number;
  same: number;
  sameShape: number;
  example: string | null;
}

export interface GrowthPoint {
  percent: number;
  cities: number;
  bySystem: Partial<Record<SystemName, Partial<Record<SearchOperation, SaturationResult>>>>;
}

export interface ReportData {
  smoke: boolean;
  startedAt: string;
  durationMs: number;
  machine: Machine;
  loadAverageBefore: string;
  loadAverageAfter: string;
  options: Omit<RunnerOptions, 'log'>;
  driver: Driver['tool'];
  datasetCounts: { countries: number; states: number; cities: number; postcodes: number };
  systems: SystemName[];
  postgresVersion: string | null;
  postgresSkipped: string | null;
  setup: { snapshotBuildMs: number | null; postgresLoadMs: number | null; postgresStartMs: number | null; postgresRows: number | null; snapshotBytes: number };
  summaries: SystemSummary[];
  results: WorkloadResult[];
  parity: ParityResult[];
  responseBytes: Partial<Record<Operation, { mean: number; max: number }>>;
  /** geoapi, one request at a time on cold caches: the first requests of each list. */
  serviceTimes: Partial<Record<Operation, ServiceTimes>>;
  /** The same requests, one at a time, against the bare uWS handler: what the loopback and the machine alone cost a single answer. */
  floorServiceTimes: Partial<Record<Operation, ServiceTimes>>;
  /**
   * A new geoapi given the mix at half its peak from the moment /readyz says ready, as shipped (the
   * whole rate at once, and ramped up) and without the warm-up soak and background priorities
   * (AFTER_READY_VARIANTS), then the bare handler given the same run (the generator starts cold
   * too); null without a mix run.
   */
  afterReady: { rate: number; seconds: number; runs: AfterReadyRun[]; floor: LoadResult } | null;
  /** geoapi's garbage collection pauses (--trace-gc, every thread) during the mix's saturation and fixed-rate runs. */
  gc: { saturation: GcSummary; saturationSeconds: number; fixed: GcSummary | null; fixedSeconds: number } | null;
  /** geoapi's response caches after the load runs (its metrics listener): budget, bytes held, lookups. */
  responseCache: { budgetBytes: number; bytes: number; entries: number; hits: number; misses: number } | null;
  /** geoapi's worker threads after the load runs (its metrics listener), summed: V8 heaps and the memory their objects hold outside them. */
  workerMemory: { heapTotalBytes: number; externalBytes: number } | null;
  /** geoapi at saturation with a browser's Accept-Encoding, each run beside the same run without it. */
  browser: { acceptEncoding: string; runs: BrowserRun[] } | null;
  growth: GrowthPoint[];
  errors: string[];
}

/** One start of geoapi measured from ready on (ReportData.afterReady). */
export interface AfterReadyRun {
  label: string;
  /** `geoapi serve` flags added to the report's. */
  args: string[];
  /** The load's rate grew from 0 over this many seconds (LoadConfig.rampSeconds); 0: the whole rate at once. */
  rampSeconds: number;
  /** spawn → /readyz 200, ms. */
  readyMs: number;
  /** The open-loop run from ready on: one window per second. */
  run: LoadResult;
}

/**
 * geoapi started as shipped; as shipped with the load ramped up as a balancer's slow start sends
 * it (README, Running several replicas); and with its warm-up requests before ready and its
 * background threads' lower priority turned off (runtime/http/app.ts soakStep, background-priority.ts).
 */
const AFTER_READY_VARIANTS: readonly { label: string; args: string[]; rampSeconds: number }[] = [
  { label: 'as shipped', args: [], rampSeconds: 0 },
  { label: 'as shipped', args: [], rampSeconds: 5 },
  { label: 'no warm-up requests, background threads at the same priority', args: ['--warm-up-requests', '0', '--background-nice', '0'], rampSeconds: 0 },
];

/** The workloads run again with a browser's Accept-Encoding (answers of 1 KiB or more compressed). */
export const BROWSER_WORKLOADS: readonly WorkloadName[] = ['stateCities', 'autocomplete', 'fuzzy', 'nearby', 'mix'];

export interface BrowserRun {
  name: WorkloadName;
  /** Without Accept-Encoding, then with it: the same list and warm-up, one run after the other. */
  plain: SaturationResult;
  plainCores: number;
  browser: SaturationResult;
  browserCores: number;
}

interface LiveSystem {
  name: SystemName;
  server: RunningServer;
  pids(): number[];
  /** spawn → ready (geoapi: /readyz answers 200), ms. */
  readyMs: number;
  /** geoapi's metrics listener. */
  metricsUrl: string | null;
}

/** One sample of a Prometheus text exposition, summed over the label sets that contain `labels`. */
function sampleSum(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name} `) && !line.startsWith(`${name}{`)) continue;
    if (labels !== '' && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** geoapi's response cache lookups so far, [hits, misses] by operation (its metrics); null for the baselines. */
async function cacheLookups(system: LiveSystem, key: string): Promise<Map<string, [number, number]> | null> {
  if (system.metricsUrl === null) return null;
  const counts = new Map<string, [number, number]>();
  for (const line of (await get(system.metricsUrl, key)).body.split('\n')) {
    if (!line.startsWith('geoapi_cache_lookups_total{')) continue;
    const cache = /cache="([^"]+)"/.exec(line)?.[1];
    const result = /result="([^"]+)"/.exec(line)?.[1];
    if (cache === undefined || result === undefined) continue;
    const entry = counts.get(cache) ?? [0, 0];
    entry[result === 'hit' ? 0 : 1] += Number(line.slice(line.lastIndexOf(' ') + 1));
    counts.set(cache, entry);
  }
  return counts;
}

/** Requests answered so far by each of geoapi's request threads (its metrics), or null. */
async function threadRequests(system: LiveSystem, key: string): Promise<number[] | null> {
  if (system.metricsUrl === null) return null;
  const counts: number[] = [];
  for (const line of (await get(system.metricsUrl, key)).body.split('\n')) {
    const thread = /^geoapi_thread_requests_total\{thread="(\d+)"\} (\S+)$/.exec(line);
    if (thread !== null) counts[Number(thread[1])] = Number(thread[2]);
  }
  return counts.length > 0 ? counts : null;
}

/** The busiest thread's share of the requests answered between two readings. */
function busiestShare(before: number[] | null, after: number[] | null): number | null {
  if (before === null || after === null) return null;
  const answered = after.map((count, thread) => count - (before[thread] ?? 0));
  const total = answered.reduce((sum, n) => sum + n, 0);
  return total > 0 ? Math.max(...answered) / total : null;
}

/** Hits ÷ lookups between two readings, for one workload's operation (the mix: all of them). */
function hitRatio(before: Map<string, [number, number]> | null, after: Map<string, [number, number]> | null, name: WorkloadName): number | null {
  if (before === null || after === null) return null;
  let hits = 0;
  let lookups = 0;
  for (const [cache, [h, m]] of after) {
    if (name !== 'mix' && cache !== GEOAPI_OPERATION[name]) continue;
    const [h0, m0] = before.get(cache) ?? [0, 0];
    hits += h - h0;
    lookups += h - h0 + (m - m0);
  }
  return lookups === 0 ? null : hits / lookups;
}

/** geoapi's own name for each operation of the workload (its metrics' `operation` label). */
const GEOAPI_OPERATION: Record<Operation, string> = {
  countryList: 'countriesList',
  countryStates: 'countryStates',
  stateCities: 'stateCities',
  countryDetail: 'countryDetail',
  postcodeLookup: 'postcodeLookup',
  postcodePage: 'postcodeSearch',
  autocomplete: 'autocomplete',
  fuzzy: 'fuzzySearch',
  nearby: 'nearbySearch',
  phoneParse: 'phoneParse',
};

/**
 * From two scrapes of geoapi's latency histogram, how many answers of `operation` in between took
 * the server over 5 ms (from the request's arrival in its handler to the written answer).
 */
function slowAnswers(before: string, after: string, operation: string): { over5ms: number } {
  const over5ms = (text: string): number => {
    let all = 0;
    let within = 0;
    for (const line of text.split('\n')) {
      if (!line.startsWith('geoapi_request_duration_seconds_bucket{') || !line.includes(`operation="${operation}"`)) continue;
      const le = /le="([^"]+)"/.exec(line)?.[1];
      const count = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (le === '+Inf') all += count;
      else if (le === '0.005') within += count;
    }
    return all - within;
  };
  return { over5ms: over5ms(after) - over5ms(before) };
}

/**
 * Keeps only the system being measured running: every other server's processes are stopped
 * (SIGSTOP) until another system runs or the report ends. An idle server is not idle — naive's
 * gigabyte heaps go on collecting after its run — and on a 2-core machine whatever it does comes
 * out of the measured system's share (an earlier report showed ~0.5 cores of "other processes"
 * during one of geoapi's fixed-rate runs). Only the HTTP servers' own processes are stopped, not
 * PostgreSQL's cluster: its backends work only for its (stopped) server, it forks a backend per
 * new connection, and the clusters of the growth runs' servers are the same one.
 */
class OnlyRunning {
  private readonly stopped = new Set<number>();

  /** Stops the servers of `systems` except `running` (null: all of them) and continues `running`. */
  only(running: LiveSystem | null, systems: readonly LiveSystem[]): void {
    if (running !== null) for (const pid of serverPids(running)) if (this.stopped.has(pid)) this.signal(pid, 'SIGCONT');
    for (const system of systems) {
      if (system === running) continue;
      for (const pid of serverPids(system)) if (!this.stopped.has(pid)) this.signal(pid, 'SIGSTOP');
    }
  }

  /** Continues every stopped process. */
  resumeAll(): void {
    for (const pid of [...this.stopped]) this.signal(pid, 'SIGCONT');
  }

  private signal(pid: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
    if (signal === 'SIGSTOP') this.stopped.add(pid);
    else this.stopped.delete(pid);
  }
}

/** A system's HTTP server: its process and the processes it forked (node:cluster workers). */
function serverPids(system: LiveSystem): number[] {
  return processTree(system.server.child.pid!);
}

/**
 * Waits until a server has worked off what earlier runs left queued (a naive search backlog can
 * outlive the load generator by seconds and would eat into the next system's run). New
 * connections are spread over the workers (node:cluster round-robin, uWS threads), so a few
 * concurrent probes reach each one and answer only after its backlog.
 */
async function drain(system: LiveSystem, workers: number, probePath: string, key: string): Promise<void> {
  await Promise.all(Array.from({ length: workers * 2 }, () => get(`${system.server.url}${probePath}`, key, 300_000)));
}

function snapshotBytes(dir: string): number {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { sections: Record<string, { bytes: number }> };
  return Object.values(manifest.sections).reduce((sum, section) => sum + section.bytes, 0);
}

function buildSnapshot(source: string, out: string): number {
  const t = performance.now();
  const run = spawnSync(process.execPath, [CLI, 'build', '--source', source, '--out', out], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`geoapi build --source ${source} failed (${run.status}): ${run.stderr}`);
  return performance.now() - t;
}

export async function runReport(options: RunnerOptions): Promise<ReportData> {
  const log = options.log;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const tmp = mkdtempSync(join(tmpdir(), 'geoapi-report-'));
  const live: LiveSystem[] = [];
  const running = new OnlyRunning();
  let bare: Server | null = null;
  let cluster: PgCluster | null = null;
  const errors: string[] = [];
  try {
    const machine = describeMachine();
    const loadAverageBefore = loadAverage();
    log(`machine: ${machine.cpuModel}, ${machine.cores} cores; load average ${loadAverageBefore}`);

    // ---- data, workload, snapshots, PostgreSQL --------------------------------------------------
    let dataset: RawDataset | null = readDataset(options.dataDir, { postcodes: true });
    const datasetCounts = {
      countries: dataset.countries.length,
      states: dataset.states.length,
      cities: allCities(dataset).length,
      postcodes: [...dataset.postcodesByCountry.values()].reduce((sum, list) => sum + list.length, 0),
    };
    const samples = new Map<number, string>();
    for (const percent of GROWTH_SIZES) {
      if (percent === 100) samples.set(percent, options.dataDir);
      else samples.set(percent, writeSampledDataset(options.dataDir, join(tmp, `data-${percent}`), percent));
    }
    const smallest = readDataset(samples.get(GROWTH_SIZES[0])!, { postcodes: false });
    const workload: Workload = generateWorkload(dataset, allCities(smallest), {
      seed: options.seed,
      perOperation: options.requestsPerOperation,
      mixSize: options.mixSize,
    });
    const pathsDir = join(tmp, 'paths');
    mkdirSync(pathsDir);
    const pathsFile = (name: string): string => join(pathsDir, `${name}.txt`);
    for (const op of OPERATIONS) writeFileSync(pathsFile(op), `${workload.perOperation[op].join('\n')}\n`);
    writeFileSync(pathsFile('mix'), `${workload.mix.join('\n')}\n`);
    // wrk's unmeasured warm-up takes the list from its end: from the start, it would leave the
    // measured run's first answers in geoapi's response cache and inflate its peak (and so the
    // fixed rate, half of it, which then starts on answers the cache no longer holds).
    for (const name of [...OPERATIONS, 'mix'] as const) {
      writeFileSync(pathsFile(`${name}-warmup`), `${[...(name === 'mix' ? workload.mix : workload.perOperation[name])].reverse().join('\n')}\n`);
    }
    for (const op of SEARCH_OPERATIONS) writeFileSync(pathsFile(`growth-${op}`), `${workload.growth[op].join('\n')}\n`);
    const probePath = `/v1/countries/${dataset.countries[0]!.iso2}`;
    log(`workload: ${options.requestsPerOperation} requests per operation, mix of ${workload.mix.length} (seed ${options.seed})`);

    const snapshots = new Map<number, string>();
    let snapshotBuildMs: number | null = null;
    if (options.snapshotDir) snapshots.set(100, options.snapshotDir);
    else {
      snapshots.set(100, join(tmp, 'snapshot-100'));
      snapshotBuildMs = buildSnapshot(options.dataDir, snapshots.get(100)!);
      log(`geoapi build (full dataset): ${(snapshotBuildMs / 1000).toFixed(1)} s`);
    }
    for (const percent of GROWTH_SIZES) {
      if (percent !== 100) {
        snapshots.set(percent, join(tmp, `snapshot-${percent}`));
        buildSnapshot(samples.get(percent)!, snapshots.get(percent)!);
      }
    }

    let postgresSkipped: string | null = options.postgres ? postgresUnavailable() : 'disabled (--no-postgres)';
    let postgresLoadMs: number | null = null;
    let postgresRows: number | null = null;
    if (!postgresSkipped) {
      try {
        cluster = await startCluster();
        log(`PostgreSQL ${cluster.version} started in ${cluster.startMs.toFixed(0)} ms`);
        const connection = { host: cluster.host, port: cluster.port, user: cluster.user };
        const full = await loadSchema(connection, 'ds100', dataset);
        postgresLoadMs = full.ms;
        postgresRows = full.rows;
        log(`PostgreSQL: loaded and indexed the dataset in ${(full.ms / 1000).toFixed(1)} s`);
        for (const percent of GROWTH_SIZES) {
          if (percent !== 100) await loadSchema(connection, `ds${percent}`, readDataset(samples.get(percent)!, { postcodes: false }));
        }
        log(`PostgreSQL: vacuumed, checkpointed and synced in ${((await settleDatabase(connection)) / 1000).toFixed(1)} s`);
      } catch (error) {
        postgresSkipped = `could not start or load PostgreSQL: ${error instanceof Error ? error.message : String(error)}`;
        errors.push(postgresSkipped);
        cluster?.stop();
        cluster = null;
      }
    }
    const systems: SystemName[] = SYSTEMS.filter((s) => s !== 'postgres' || cluster !== null);
    dataset = null; // the servers hold their own copies from here on

    // ---- geoapi keys and policy (quotas counted, but never reached) ------------------------------
    const keyFile = newKeyFile();
    const { key } = addKey(keyFile, { plan: 'business', name: 'bench report' });
    const keysFile = join(tmp, 'keys.json');
    writeKeyFile(keysFile, keyFile);
    const policy = JSON.parse(readFileSync(DEFAULT_POLICY_FILE, 'utf8')) as { plans: Record<string, { quota: { daily: number; monthly: number } }> };
    policy.plans['business']!.quota = { ...policy.plans['business']!.quota, daily: 0x7fffffff, monthly: 0x7fffffff };
    const policyFile = join(tmp, 'policy.json');
    writeFileSync(policyFile, JSON.stringify(policy, null, 2));

    const startSystem = async (name: SystemName, percent: number, extraArgs: readonly string[] = []): Promise<LiveSystem> => {
      const port = await freePort();
      let server: RunningServer;
      if (name === 'geoapi') {
        const metricsPort = await freePort();
        // --trace-gc: every thread's collections on stdout (gc.ts reads the mix's). Its allocator
        // set as npm start and the systemd unit set it (runtime/cli/allocator.ts).
        server = await startServer(
          'geoapi',
          ['--trace-gc', CLI, 'serve', '--snapshot', snapshots.get(percent)!, '--keys', keysFile, '--policy', policyFile, '--port', String(port), '--threads', String(options.workers), '--host', '127.0.0.1', '--metrics-port', String(metricsPort), '--slow-ms', String(GEOAPI_SLOW_LOG_MS), ...extraArgs],
          port,
          probePath,
          key,
          { [MMAP_THRESHOLD_VARIABLE]: PINNED_MMAP_THRESHOLD, ...process.env, GEOAPI_QUOTA: 'memory', GEOAPI_QUOTA_STATE_FILE: join(tmp, `quota-${percent}-${port}.json`) },
        );
        // Measured runs start once it is ready: every thread has prepared its indexes.
        const readyMs = await waitReady(server, '/readyz');
        return { name, server, pids: () => processTree(server.child.pid!), readyMs, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
      }
      if (name === 'naive') {
        server = await startServer('naive', [NAIVE, samples.get(percent)!, String(port), String(options.workers)], port, probePath, key);
        return { name, server, pids: () => processTree(server.child.pid!), readyMs: server.startupMs, metricsUrl: null };
      }
      const pg = cluster!;
      server = await startServer('postgres', [PG_SERVER, '-', String(port), String(options.workers), pg.host, String(pg.port), pg.user, `ds${percent}`], port, probePath, key);
      return { name, server, pids: () => [...processTree(server.child.pid!), ...clusterPids(pg.postmasterPid())], readyMs: server.startupMs, metricsUrl: null };
    };

    // ---- the three servers on the full dataset -------------------------------------------------
    const summaries: SystemSummary[] = [];
    for (const name of systems) {
      // geoapi's startup is a target: the median of three starts (the others start once).
      const runs = name === 'geoapi' && !options.smoke ? 3 : 1;
      const startups: number[] = [];
      const readies: number[] = [];
      let system: LiveSystem | null = null;
      for (let i = 0; i < runs; i++) {
        if (system) await stopServer(system.server);
        system = await startSystem(name, 100);
        startups.push(system.server.startupMs);
        readies.push(system.readyMs);
      }
      live.push(system!);
      startups.sort((a, b) => a - b);
      readies.sort((a, b) => a - b);
      await new Promise((resolve) => setTimeout(resolve, 500));
      summaries.push({
        name,
        startupMs: startups[startups.length >> 1]!,
        readyMs: name === 'geoapi' ? readies[readies.length >> 1]! : null,
        rssAfterStart: treeRssBytes(system!.server.child.pid!),
        rssAfterLoad: 0,
        fileRssAfterLoad: 0,
        databasePss: null,
      });
      log(`${name}: first answer ${startups.map((ms) => ms.toFixed(0)).join(' / ')} ms after spawn${name === 'geoapi' ? `, ready ${readies.map((ms) => ms.toFixed(0)).join(' / ')} ms` : ''}`);
    }
    const byName = (name: SystemName): LiveSystem => live.find((s) => s.name === name)!;

    // ---- parity: the baselines answer like geoapi ----------------------------------------------
    const parity: ParityResult[] = [];
    const responseBytes: ReportData['responseBytes'] = {};
    for (const op of OPERATIONS) {
      const sample = workload.perOperation[op].slice(0, options.validationSample);
      const expected: unknown[] = [];
      let bytes = 0;
      let maxBytes = 0;
      for (const path of sample) {
        const reply = await get(`${byName('geoapi').server.url}${path}`, key);
        if (reply.status !== 200) errors.push(`geoapi answers ${path} with ${reply.status}: ${reply.body.slice(0, 200)}`);
        const size = Buffer.byteLength(reply.body);
        bytes += size;
        maxBytes = Math.max(maxBytes, size);
        expected.push(JSON.parse(reply.body));
      }
      responseBytes[op] = { mean: bytes / sample.length, max: maxBytes };
      for (const system of live) {
        if (system.name === 'geoapi') continue;
        const result: ParityResult = { name: op, system: system.name, sampled: sample.length, same: 0, sameShape: 0, example: null };
        for (let i = 0; i < sample.length; i++) {
          const reply = await get(`${system.server.url}${sample[i]}`, key);
          if (reply.status !== 200) errors.push(`${system.name} answers ${sample[i]} with ${reply.status}: ${reply.body.slice(0, 200)}`);
          const comparison = compareBodies(expected[i], JSON.parse(reply.body));
          if (comparison.same) result.same++;
          if (comparison.sameShape) result.sameShape++;
          if (!comparison.same && result.example === null) result.example = `${sample[i]}: ${comparison.difference}`;
        }
        parity.push(result);
      }
      log(`parity ${op}: ${parity.filter((p) => p.name === op).map((p) => `${p.system} ${p.same}/${p.sampled}`).join(', ')}`);
    }

    // ---- geoapi's cost per answer, one at a time (caches still cold for these requests) ---------
    const geoapiServiceTimes: ReportData['serviceTimes'] = {};
    const geoapiMetrics = byName('geoapi').metricsUrl;
    running.only(byName('geoapi'), live);
    for (const op of OPERATIONS) {
      const before = geoapiMetrics === null ? null : (await get(geoapiMetrics, key)).body;
      const logMark = byName('geoapi').server.output().length;
      const pathsById = new Map<string, string>();
      const times = await serviceTimes(byName('geoapi').server.url, key, workload.perOperation[op].slice(0, options.serviceSample), pathsById);
      if (before !== null) {
        const histogram = slowAnswers(before, (await get(geoapiMetrics!, key)).body, GEOAPI_OPERATION[op]);
        times.server = { ...histogram, loggedFromMs: GEOAPI_SLOW_LOG_MS, slowest: loggedSlowAnswers(byName('geoapi').server.output().slice(logMark), pathsById) };
      }
      geoapiServiceTimes[op] = times;
    }
    log(`geoapi service times measured (${options.serviceSample} requests per operation, one at a time)`);

    // ---- the machine's floor: a bare uWS handler writing bodies of geoapi's mean answer sizes ----
    const bareSizes: BareSizes = { byTarget: {}, byPath: {}, byPattern: OPERATIONS.map((op) => ({ pattern: OPERATION_PATH_PATTERNS[op], size: Math.round(responseBytes[op]?.mean ?? 0) })) };
    writeFileSync(join(tmp, 'bare-sizes.json'), JSON.stringify(bareSizes));
    bare = await startChild('bare', [BARE_SCRIPT, join(tmp, 'bare-sizes.json')], /listening (\d+)/);
    const barePort = Number(new URL(bare.url).port);
    // The single answers' floor: the same requests one at a time against the bare handler.
    const floorServiceTimes: ReportData['floorServiceTimes'] = {};
    running.only(null, live);
    for (const op of OPERATIONS) floorServiceTimes[op] = await serviceTimes(bare.url, key, workload.perOperation[op].slice(0, options.serviceSample));

    // ---- per operation and the mix: saturation, then half of geoapi's peak ----------------------
    const driver = makeDriver({ useWrk: options.useWrk, connections: options.connections, warmupSeconds: options.warmupSeconds, scriptDir: tmp });
    const results: WorkloadResult[] = [];
    let gc: ReportData['gc'] = null;
    const names: WorkloadName[] = [...OPERATIONS, 'mix'];
    for (const [index, name] of names.entries()) {
      // Rotate who goes first, so no system always runs right after another's heaviest load.
      const order = live.map((_, i) => live[(i + index) % live.length]!);
      const result: WorkloadResult = { name, targetRate: 0, bySystem: {}, floor: null };
      for (const system of order) {
        running.only(system, live);
        if (options.useWrk && options.warmupSeconds > 0) await driver.saturate(system.server.port, key, pathsFile(`${name}-warmup`), options.warmupSeconds);
        await drain(system, options.workers, probePath, key);
        const pids = system.pids();
        const cpuBefore = cpuSeconds(pids);
        const busyBefore = machineBusySeconds();
        const retransmitsBefore = tcpRetransmits();
        const t = performance.now();
        const traceFrom = system.server.output().length;
        const lookupsBefore = await cacheLookups(system, key);
        const saturation = await driver.saturate(system.server.port, key, pathsFile(name), options.seconds);
        const wall = (performance.now() - t) / 1000;
        const saturationCacheHits = hitRatio(lookupsBefore, await cacheLookups(system, key), name);
        if (name === 'mix' && system.name === 'geoapi') {
          gc = { saturation: summarizeGc(system.server.output().slice(traceFrom)), saturationSeconds: wall, fixed: null, fixedSeconds: 0 };
        }
        const saturationRetransmits = tcpRetransmits() - retransmitsBefore;
        result.bySystem[system.name] = {
          saturation,
          serverCores: (cpuSeconds(pids) - cpuBefore) / wall,
          machineCores: (machineBusySeconds() - busyBefore) / wall,
          fixed: null,
          fixedServerCores: null,
          fixedMachineCores: null,
          saturationRetransmits,
          fixedRetransmits: null,
          fixedStealMs: null,
          fixedSkipped: null,
          saturationCacheHits,
          fixedCacheHits: null,
          fixedBusiestThreadShare: null,
        };
        await drain(system, options.workers, probePath, key);
      }
      result.targetRate = Math.max(1, Math.round(result.bySystem.geoapi!.saturation.requestsPerSecond / 2));
      for (const system of order) {
        const stats = result.bySystem[system.name]!;
        if (stats.saturation.requestsPerSecond < result.targetRate) {
          stats.fixedSkipped = `peak ${Math.round(stats.saturation.requestsPerSecond).toLocaleString('en-US')} req/s is below the rate`;
          continue;
        }
        running.only(system, live);
        const pids = system.pids();
        const cpuBefore = cpuSeconds(pids);
        const busyBefore = machineBusySeconds();
        const retransmitsBefore = tcpRetransmits();
        const stealBefore = stealSeconds();
        const t = performance.now();
        const traceFrom = system.server.output().length;
        const lookupsBefore = await cacheLookups(system, key);
        const threadsBefore = await threadRequests(system, key);
        stats.fixed = await driver.fixedRate(system.server.port, key, pathsFile(name), options.fixedSeconds, result.targetRate);
        const wall = (performance.now() - t) / 1000;
        stats.fixedCacheHits = hitRatio(lookupsBefore, await cacheLookups(system, key), name);
        stats.fixedBusiestThreadShare = busiestShare(threadsBefore, await threadRequests(system, key));
        if (name === 'mix' && system.name === 'geoapi' && gc !== null) {
          gc.fixed = summarizeGc(system.server.output().slice(traceFrom));
          gc.fixedSeconds = wall;
        }
        stats.fixedRetransmits = tcpRetransmits() - retransmitsBefore;
        stats.fixedServerCores = (cpuSeconds(pids) - cpuBefore) / wall;
        stats.fixedMachineCores = (machineBusySeconds() - busyBefore) / wall;
        stats.fixedStealMs = (stealSeconds() - stealBefore) * 1000;
        await drain(system, options.workers, probePath, key);
      }
      // The same fixed rate, generator and request list against the bare handler: what the machine
      // and the generator alone add to every answer's latency while this report runs.
      running.only(null, live);
      if (result.bySystem.geoapi?.fixed) result.floor = await driver.fixedRate(barePort, key, pathsFile(name), options.fixedSeconds, result.targetRate);
      results.push(result);
      log(
        `${name}: ${live.map((s) => `${s.name} ${Math.round(result.bySystem[s.name]!.saturation.requestsPerSecond)} req/s`).join(', ')}; ` +
          `at ${result.targetRate} req/s geoapi p99 ${result.bySystem.geoapi!.fixed?.p99.toFixed(2) ?? '–'} ms (bare floor ${result.floor?.p99.toFixed(2) ?? '–'} ms)`,
      );
    }
    // ---- browsers: geoapi with the Accept-Encoding every browser sends, beside the same run without ----
    let browser: ReportData['browser'] = null;
    const geoapiSystem = live.find((system) => system.name === 'geoapi');
    if (geoapiSystem !== undefined) {
      running.only(geoapiSystem, live);
      const runs: BrowserRun[] = [];
      for (const name of BROWSER_WORKLOADS) {
        const measured: { saturation: SaturationResult; cores: number }[] = [];
        for (const acceptEncoding of ['', BROWSER_ACCEPT_ENCODING]) {
          const port = geoapiSystem.server.port;
          if (options.useWrk && options.warmupSeconds > 0) await driver.saturate(port, key, pathsFile(`${name}-warmup`), options.warmupSeconds, acceptEncoding);
          await drain(geoapiSystem, options.workers, probePath, key);
          const pids = geoapiSystem.pids();
          const cpuBefore = cpuSeconds(pids);
          const t = performance.now();
          const saturation = await driver.saturate(port, key, pathsFile(name), options.seconds, acceptEncoding);
          measured.push({ saturation, cores: (cpuSeconds(pids) - cpuBefore) / ((performance.now() - t) / 1000) });
        }
        runs.push({ name, plain: measured[0]!.saturation, plainCores: measured[0]!.cores, browser: measured[1]!.saturation, browserCores: measured[1]!.cores });
        log(`browser ${name}: ${Math.round(measured[0]!.saturation.requestsPerSecond)} → ${Math.round(measured[1]!.saturation.requestsPerSecond)} req/s with Accept-Encoding`);
      }
      browser = { acceptEncoding: BROWSER_ACCEPT_ENCODING, runs };
    }

    running.resumeAll();
    let responseCache: ReportData['responseCache'] = null;
    let workerMemory: ReportData['workerMemory'] = null;
    for (const system of live) {
      const summary = summaries.find((s) => s.name === system.name)!;
      summary.rssAfterLoad = treeRssBytes(system.server.child.pid!);
      summary.fileRssAfterLoad = fileRssBytes(system.pids());
      if (system.metricsUrl !== null) {
        try {
          const text = (await get(system.metricsUrl, key)).body;
          responseCache = {
            budgetBytes: sampleSum(text, 'geoapi_response_cache_budget_bytes'),
            bytes: sampleSum(text, 'geoapi_response_cache_bytes'),
            entries: sampleSum(text, 'geoapi_response_cache_entries'),
            hits: sampleSum(text, 'geoapi_cache_lookups_total', 'result="hit"'),
            misses: sampleSum(text, 'geoapi_cache_lookups_total', 'result="miss"'),
          };
          workerMemory = { heapTotalBytes: sampleSum(text, 'geoapi_worker_heap_total_bytes'), externalBytes: sampleSum(text, 'geoapi_worker_external_bytes') };
        } catch (error) {
          errors.push(`geoapi metrics: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (system.name === 'postgres' && cluster) summary.databasePss = pssBytes(clusterPids(cluster.postmasterPid()));
    }

    // ---- right after ready: a new geoapi given the mix at half its peak from the moment it is ready ----
    // The first seconds of a replica a balancer has just added: code the warm-up left unoptimized
    // is compiled then, beside the requests (README, Memory: Compiling after ready).
    let afterReady: ReportData['afterReady'] = null;
    const mix = results.find((result) => result.name === 'mix');
    if (systems.includes('geoapi') && mix !== undefined) {
      const seconds = options.smoke ? 2 : AFTER_READY_SECONDS;
      const openLoop = (port: number, rampSeconds = 0): Promise<LoadResult> =>
        runNodeLoad({ port, key, pathsFile: pathsFile('mix'), mode: 'open', connections: options.connections, seconds, warmupSeconds: 0, rate: mix.targetRate, windows: seconds, rampSeconds });
      const runs: AfterReadyRun[] = [];
      try {
        running.only(null, live);
        for (const { label, args, rampSeconds } of AFTER_READY_VARIANTS) {
          const fresh = await startSystem('geoapi', 100, args);
          try {
            runs.push({ label, args: [...args], rampSeconds, readyMs: fresh.readyMs, run: await openLoop(fresh.server.port, rampSeconds) });
          } finally {
            await stopServer(fresh.server);
          }
          log(`after ready (${label}${rampSeconds > 0 ? `, ramped up over ${rampSeconds} s` : ''}): ready ${fresh.readyMs.toFixed(0)} ms, p99 per second ${runs.at(-1)!.run.windows.map((w) => w.p99.toFixed(1)).join(' ')} ms`);
        }
        afterReady = { rate: mix.targetRate, seconds, runs, floor: await openLoop(barePort) };
      } finally {
        running.resumeAll();
      }
    }

    // ---- growth: the search operations on 10 %, 50 %, 100 % of the cities ----------------------
    const growth: GrowthPoint[] = [];
    for (const percent of GROWTH_SIZES) {
      const sized = percent === 100 ? live : [];
      try {
        if (percent !== 100) for (const name of systems) sized.push(await startSystem(name, percent));
        const cities = percent === 100 ? datasetCounts.cities : allCities(readDataset(samples.get(percent)!, { postcodes: false })).length;
        const point: GrowthPoint = { percent, cities, bySystem: {} };
        for (const [index, op] of SEARCH_OPERATIONS.entries()) {
          const order = sized.map((_, i) => sized[(i + index) % sized.length]!);
          for (const system of order) {
            running.only(system, [...live, ...sized]);
            if (options.useWrk && options.warmupSeconds > 0) await driver.saturate(system.server.port, key, pathsFile(`growth-${op}`), options.warmupSeconds);
            await drain(system, options.workers, probePath, key);
            const saturation = await driver.saturate(system.server.port, key, pathsFile(`growth-${op}`), options.growthSeconds);
            await drain(system, options.workers, probePath, key);
            (point.bySystem[system.name] ??= {})[op] = saturation;
          }
        }
        growth.push(point);
        log(`growth ${percent} % (${cities} cities) done`);
      } finally {
        running.resumeAll();
        if (percent !== 100) await Promise.all(sized.map((s) => stopServer(s.server)));
      }
    }

    return {
      smoke: options.smoke,
      startedAt,
      durationMs: performance.now() - started,
      machine,
      loadAverageBefore,
      loadAverageAfter: loadAverage(),
      options: { ...options, log: undefined } as unknown as Omit<RunnerOptions, 'log'>,
      driver: driver.tool,
      datasetCounts,
      systems,
      postgresVersion: cluster?.version ?? null,
      postgresSkipped,
      setup: { snapshotBuildMs, postgresLoadMs, postgresStartMs: cluster?.startMs ?? null, postgresRows, snapshotBytes: snapshotBytes(snapshots.get(100)!) },
      summaries,
      results,
      parity,
      responseBytes,
      serviceTimes: geoapiServiceTimes,
      floorServiceTimes,
      gc,
      afterReady,
      responseCache,
      workerMemory,
      browser,
      growth,
      errors,
    };
  } finally {
    running.resumeAll();
    await Promise.all(live.map((s) => stopServer(s.server)));
    if (bare !== null) await stopChild(bare);
    cluster?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export { wrkAvailable };
