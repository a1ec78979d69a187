// The main thread: reads the policy and the key file, starts one worker thread per core (each its
// own uWS app on the same port; the first while it loads the snapshot bytes once, the others once
// the first answers), watches the key and policy files and broadcasts changes, and drains on
// close. Everything it is configured with arrives in one GeoapiConfig (runtime/config.ts); it
// reads no environment.
import { randomBytes } from 'node:crypto';
import { unwatchFile, watchFile } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CONSOLE_KEY_ID, keySnapshotOf, withMemoryKey, type KeySnapshot } from '../access/key-index.js';
import { generateKey, readKeyFile, type KeyFile } from '../access/keys.js';
import { parsePolicy, readPolicyText, type CompatMode, type Policy } from '../access/policy.js';
import { createQuotaShared, stopQuotaShared, type QuotaShared } from '../access/quota/index.js';
import type { QuotaMode } from '../access/quota/options.js';
import type { GeoapiConfig } from './config.js';
import { loadSnapshotBytesAsync, type SnapshotBytes } from '../store/load.js';
import { sharedStructures } from '../engine/shared.js';
import { createLogger, levelOf, messageLogger } from './log.js';
import type { MetricsListener } from './metrics-server.js';
import type { MetricJson } from './observe.js';
import type { MainToWorker, OperationsModule, StoreSummary, WorkerInit, WorkerToMain } from './protocol.js';
import { startSnapshotSwapper, type ReloadOutcome } from './snapshot-swap.js';
import { collectNow } from './collect.js';
import { socketShareOf } from './socket-soak.js';
import { planBackgroundPriority, type BackgroundPriority } from './background-priority.js';
import { applyScavenge, chooseScavenge, type ScavengeChoice } from './scavenge.js';
import { threadAnswerCounts } from './rebalance.js';
import { loadUws, type UwsBuild } from './uws.js';
import { chooseWorkerCode, TS_BUILD_INFO, type WorkerCode } from './worker-code.js';

export interface ServerOptions {
  config: GeoapiConfig;
  /**
   * The one seam for tests: a module (path or file: URL) replacing the operation registry and,
   * optionally, the store (see OperationsModule in protocol.ts). Default: the registry.
   */
  operationsModule?: string;
  /** Fixed request time (ISO) for tests; default the real clock. */
  fixedNow?: string;
  /** How often the key and policy files (and the snapshot's manifest.json) are checked for changes; default 1000 ms. */
  watchIntervalMs?: number;
  /** Sink for log lines (one JSON event per line, log.ts); default stderr. */
  log?: (line: string) => void;
  /** The read of config.snapshotDir, already started by the caller (runtime/cli/read-ahead.ts); default: read here. */
  snapshotRead?: Promise<SnapshotBytes>;
}

export interface RunningServer {
  port: number;
  /** http://host:port (localhost when listening on all interfaces). */
  url: string;
  threads: number;
  /** Whether V8's scavenges use helper threads, and why (scavenge.ts). */
  scavenge: ScavengeChoice;
  /** The nice value of V8's platform threads above the request threads' from ready on, and why (background-priority.ts). */
  background: BackgroundPriority;
  /** What the request threads run: their modules or their bundle, and why (worker-code.ts). */
  workerCode: WorkerCode;
  uws: UwsBuild;
  /** The snapshot served now (changes with each swap). */
  readonly store: StoreSummary;
  /** The quota mode in force (from the configuration). */
  quota: QuotaMode;
  /** The compat mode at start (configuration, else the policy file; a policy reload may change it). */
  readonly compat: CompatMode;
  /** http://host:port/metrics when the metrics listener is on (--metrics-port), else null. */
  metricsUrl: string | null;
  /** Re-reads the key file now (also happens on change and on SIGHUP in the CLI). */
  reloadKeys(): void;
  reloadPolicy(): void;
  /**
   * Loads the snapshot now in the configured directory, checks it and switches every worker to it
   * (snapshot-swap.ts); refused with one log line when a check fails. Also on SIGHUP in the CLI
   * and when manifest.json is replaced (config.snapshotWatch).
   */
  reloadSnapshot(reason?: string): Promise<ReloadOutcome>;
  /** Stops accepting, lets open connections finish, resolves when every worker has exited. */
  close(): Promise<void>;
  /** Resolves when every worker has exited (after close(), or if they all died). */
  readonly exited: Promise<void>;
}

export class ServerStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerStartError';
  }
}

/**
 * Each worker thread's V8 young generation, in MiB (two semi-spaces of a third each, and the
 * large-object part). V8 grows it to 48 MiB (16 MiB semi-spaces) under load; each worker then
 * keeps 32 MiB of it resident, which one process of several threads pays per thread. Requests
 * allocate short-lived objects only, so a smaller one collects more often but no longer (the
 * pause follows what survives, not the size): 12 MiB (4 MiB semi-spaces) saves ~25 MiB per thread
 * (bench/REPORT.md: Startup and memory, Garbage collection).
 */
const WORKER_YOUNG_GENERATION_MB = 12;

function moduleUrl(specifier: string): string {
  return /^(file|data):/.test(specifier) ? specifier : pathToFileURL(resolve(specifier)).href;
}

const stderrSink = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** Checks that `port` can be bound (0: asks the kernel for a free one) and returns it. */
async function reservePort(port: number, host: string | null): Promise<number> {
  const probe = createServer();
  return new Promise<number>((resolvePort, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(new ServerStartError(error.code === 'EADDRINUSE' ? `port ${port} is already in use${host ? ` on ${host}` : ''}` : `cannot listen on port ${port}: ${error.message}`));
    });
    probe.listen({ port, host: host ?? undefined, exclusive: true }, () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      probe.close(() => resolvePort(bound));
    });
  });
}

interface WorkerHandle {
  worker: Worker;
  exited: Promise<number>;
  /** Resolvers for the next 'loaded' / 'listening' answer. */
  waiting: ((message: WorkerToMain) => void) | null;
  /** The thread's first answer: 'loaded', or 'fatal' (also when it exits first), whenever it comes. */
  loaded: Promise<WorkerToMain>;
}

/** Step 1: the snapshot bytes, read once and shared by every worker; none when the test seam opens its own store. */
async function loadSnapshot(config: GeoapiConfig, operationsModule: string | null): Promise<SnapshotBytes | null> {
  if (operationsModule !== null) {
    const seam = (await import(operationsModule)) as OperationsModule;
    if (typeof seam.openStore === 'function') return null;
  }
  return loadSnapshotBytesAsync(config.snapshotDir);
}

/** Step 2: the shared quota counters when quotas are on (the configuration decides); null when off. */
function startQuota(config: GeoapiConfig, policy: Policy, log: (message: string) => void, fixedNowMs: number | null): { shared: QuotaShared | null; stop(): Promise<void> } {
  if (config.quota.mode === 'off') {
    log('quota: off (nothing is counted or limited)');
    return { shared: null, stop: async () => undefined };
  }
  let shared: QuotaShared;
  try {
    shared = createQuotaShared(policy, { options: { ...config.quota }, log, ...(fixedNowMs !== null ? { now: () => new Date(fixedNowMs) } : {}) });
  } catch (error) {
    throw new ServerStartError(`quota: ${(error as Error).message}`);
  }
  return {
    shared,
    // After every worker has exited, so the final counts are complete (state file, graceful stop).
    stop: async () => {
      try {
        await stopQuotaShared(shared);
      } catch (error) {
        log(`quota: final save failed: ${(error as Error).message}`);
      }
    },
  };
}

/** Step 3: the postcode cursor secret every thread signs with; one random secret for the process when none is configured. */
function cursorSecretOf(config: GeoapiConfig, log: (message: string) => void): string {
  if (config.operations.cursorSecret !== null) return config.operations.cursorSecret;
  log('GEOAPI_CURSOR_SECRET is not set: postcode cursors are signed with a random secret and stop working after a restart or on another replica');
  return randomBytes(32).toString('base64url');
}

/** The plan the console's key belongs to (decisions.md: Playground keys are issued only for the console). */
export const CONSOLE_PLAN = 'playground';

/**
 * Step 4: with --console, a Playground key generated now and held in memory only (never written to
 * the key file, gone at restart); the key snapshot every worker gets then includes it.
 */
function consoleKeyOf(config: GeoapiConfig, policy: Policy): string | null {
  if (!config.console) return null;
  if (!(CONSOLE_PLAN in policy.plans)) {
    throw new ServerStartError(`console: the policy ${config.policyFile} has no "${CONSOLE_PLAN}" plan for the console's key; add one (rank 0, tier basic, a shared quota bucket) or leave --console off`);
  }
  return generateKey();
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config } = options;
  const logger = createLogger(options.log ?? stderrSink);
  const log = messageLogger(logger);
  // Fail fast in the main thread, before any data is loaded, with the message naming every attempt.
  loadUws(config.uwsCandidates);

  const policyFile = config.policyFile;
  const aliasHeaders = config.keyHeaderAliases;
  let policyText = readPolicyText(policyFile);
  let policy: Policy = parsePolicy(policyText, policyFile, aliasHeaders, config.compat);
  const keysFile = config.keysFile;
  const consoleKey = consoleKeyOf(config, policy);
  const snapshotOfKeys = (file: KeyFile): KeySnapshot =>
    consoleKey === null ? keySnapshotOf(file) : withMemoryKey(keySnapshotOf(file), { id: CONSOLE_KEY_ID, plan: CONSOLE_PLAN, plaintext: consoleKey });
  let keys: KeySnapshot = snapshotOfKeys(readKeyFile(keysFile));

  const threads = config.threads;
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new ServerStartError(`threads: expected an integer from 1 to 256, found ${threads}`);
  // Before any thread starts, and before the snapshot's load makes garbage (scavenge.ts).
  const scavenge = chooseScavenge(threads, availableParallelism(), process.execArgv);
  applyScavenge(scavenge);
  // Before any request thread starts: the threads there now are V8's and Node's own.
  const background = planBackgroundPriority(config.backgroundNice);
  const fixedNowMs = options.fixedNow === undefined ? null : Date.parse(options.fixedNow);
  if (fixedNowMs !== null && !Number.isFinite(fixedNowMs)) throw new ServerStartError(`fixedNow: expected an ISO time, found ${JSON.stringify(options.fixedNow)}`);

  const operationsModule = options.operationsModule ? moduleUrl(options.operationsModule) : null;
  // '../http/': this module also runs from the command's bundle in dist/runtime/cli/ (worker-code.ts).
  const workerCode = chooseWorkerCode(new URL('../http/', import.meta.url), TS_BUILD_INFO, operationsModule === null ? null : 'a test seam replaces the operations');
  const loadStartedMs = performance.now();

  const init: Omit<WorkerInit, 'threadIndex'> = {
    threadCount: threads,
    host: config.host,
    snapshotDir: config.snapshotDir,
    operationsModule,
    operationSettings: { ...config.operations, cursorSecret: cursorSecretOf(config, log) },
    // One budget for the process: each thread's cache gets its share.
    responseCacheBytes: Math.floor(config.responseCacheBytes / threads),
    warmUpRequests: config.warmUpRequests,
    answerCounts: config.rebalanceConnections && threads > 1 ? threadAnswerCounts(threads) : null,
    compression: config.compression,
    policyText,
    policySource: policyFile,
    aliasHeaders,
    compat: config.compat,
    keys,
    uwsCandidates: config.uwsCandidates,
    fixedNowMs,
    console: consoleKey === null ? null : { playgroundKey: consoleKey },
    observe: { metrics: config.observability.metricsPort !== null, accessLog: config.observability.accessLog, slowMs: config.observability.slowMs },
  };

  const handles: WorkerHandle[] = [];
  let swapper: ReturnType<typeof startSnapshotSwapper> | null = null;
  /** Scrapes waiting for workers' counters, by scrape id. */
  const metricsReplies = new Map<number, (metrics: MetricJson[]) => void>();
  let metricsListener: MetricsListener | null = null;
  let stopping = false;
  /** Started: a thread's 'fatal' from now on stops the server (before, it fails the start). */
  let serving = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    unwatchFile(keysFile);
    unwatchFile(policyFile);
    swapper?.stop();
    void metricsListener?.close();
    for (const handle of handles) handle.worker.postMessage({ type: 'stop' } satisfies MainToWorker);
  };
  const allExited = (): Promise<void> => Promise.all(handles.map((handle) => handle.exited)).then(() => undefined);

  // Readiness: /readyz answers ready once every thread has run its preparation steps.
  const warmThreads = new Set<number>();
  let fewestWarmUpRequests = Infinity;
  const warmed = (threadIndex: number, ms: number, warmUpRequests: number): void => {
    if (warmThreads.size === threads) return; // a swap's preparation: the server stays ready
    warmThreads.add(threadIndex);
    fewestWarmUpRequests = Math.min(fewestWarmUpRequests, warmUpRequests);
    if (warmThreads.size < threads) return;
    // This thread serves no requests: what loading and the shared structures left behind goes back
    // now, before the threads say ready. Run after, this ~7 ms collection (full dataset) took a core
    // from the threads answering the first requests on a 2-core machine.
    collectNow();
    // From now on compiling (and marking) waits for the request threads (background-priority.ts).
    background.apply();
    const overSocket = socketShareOf(config.warmUpRequests);
    const sent = fewestWarmUpRequests > 0 ? ` and sent ${fewestWarmUpRequests.toLocaleString('en-US')}${fewestWarmUpRequests < config.warmUpRequests ? ` of ${config.warmUpRequests.toLocaleString('en-US')} (cut short)` : ''} warm-up requests through its pipeline${overSocket > 0 ? `, ${overSocket.toLocaleString('en-US')} of them over a loopback socket` : ''}` : '';
    if (ms > 0) log(`warm: every thread has prepared its indexes${sent} (the last in ${Math.round(ms)} ms); /readyz answers ready`);
    for (const handle of handles) handle.worker.postMessage({ type: 'warm' } satisfies MainToWorker);
  };

  // Thread 0 starts first and loads its code while this thread reads the snapshot, then waits for
  // it ('start' below). The others start once it answers (Phase 3): the start is bound by the CPU,
  // and their code loaded beside the read kept the first answer waiting (README, Startup: full
  // dataset, 2 threads on 2 cores, spawn → first answer median 1.15 → 1.00 s).
  const spawnThread = (threadIndex: number): WorkerHandle => {
    const worker = new Worker(workerCode.url, { workerData: { ...init, threadIndex } satisfies WorkerInit, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    let resolveLoaded!: (message: WorkerToMain) => void;
    const loaded = new Promise<WorkerToMain>((resolve) => {
      resolveLoaded = resolve;
    });
    // Waiting for its first answer from the start, so that one sent (or an exit) before it is asked for is not lost.
    const handle: WorkerHandle = { worker, waiting: resolveLoaded, loaded, exited: new Promise<number>((resolveExit) => worker.once('exit', resolveExit)) };
    worker.on('message', (message: WorkerToMain) => {
      if (message.type === 'warmed') warmed(threadIndex, message.ms, message.warmUpRequests);
      else if (message.type === 'log') logger[levelOf(message.message)]({ thread: threadIndex }, message.message);
      else if (message.type === 'log-line') (options.log ?? stderrSink)(message.line);
      else if (message.type === 'metrics') metricsReplies.get(message.id)?.(message.metrics);
      else {
        if (message.type === 'fatal' && serving) {
          // Serving, then failed (worker.ts: an uncaught exception): stop all of it as on SIGTERM.
          log(`thread ${threadIndex} failed: ${message.message}; stopping every thread`);
          stop();
        }
        if (handle.waiting) {
          const deliver = handle.waiting;
          handle.waiting = null;
          deliver(message);
        }
      }
    });
    worker.on('error', (error) => log(`thread ${threadIndex} failed: ${error.stack ?? error.message}`));
    void handle.exited.then((code) => {
      if (!stopping) log(`thread ${threadIndex} exited unexpectedly (code ${code})`);
      if (handle.waiting) handle.waiting({ type: 'fatal', message: `thread ${threadIndex} exited (code ${code}) while starting` });
    });
    handles.push(handle);
    return handle;
  };
  spawnThread(0);

  const ask = (handle: WorkerHandle, message: MainToWorker | null): Promise<WorkerToMain> =>
    new Promise((resolveAnswer) => {
      handle.waiting = resolveAnswer;
      if (message) handle.worker.postMessage(message);
    });

  const fail = async (message: string): Promise<never> => {
    stop();
    await allExited();
    throw new ServerStartError(message);
  };

  let snapshot: SnapshotBytes | null;
  let quota: ReturnType<typeof startQuota>;
  try {
    snapshot = await (options.snapshotRead ?? loadSnapshot(config, operationsModule));
    quota = startQuota(config, policy, log, fixedNowMs);
  } catch (error) {
    // The thread waiting for its start ends now.
    stop();
    await Promise.all(handles.map((handle) => handle.worker.terminate()));
    throw error;
  }
  const startMessage: MainToWorker = { type: 'start', snapshot, quota: quota.shared };
  /** A thread's 'loaded', or the start fails with what it answered instead. */
  const loadedBy = async (handle: WorkerHandle): Promise<Extract<WorkerToMain, { type: 'loaded' }>> => {
    const answer = await handle.loaded;
    if (answer.type === 'loaded') return answer;
    return fail(answer.type === 'fatal' ? answer.message : `thread ${handles.indexOf(handle)} answered ${answer.type} while loading`);
  };

  // Phase 1: thread 0 loads everything; errors in the snapshot or the code surface before anything is bound.
  handles[0]!.worker.postMessage(startMessage);
  const first = await loadedBy(handles[0]!);
  const snapshotLoadSeconds = (performance.now() - loadStartedMs) / 1000;
  if (first.skippedKeys.length > 0) log(`keys: ${first.skippedKeys.length} key(s) have a plan the policy does not define and are refused: ${first.skippedKeys.join(', ')}`);

  // Phase 2: bind. Ports other than 0 are shared by the workers' sockets (uSockets sets SO_REUSEPORT
  // for them); port 0 is not, so a free port is picked here first. The probe also turns a port
  // already in use into a clear error instead of silently sharing it with another process.
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await reservePort(config.port, config.host).catch((error: Error) => fail(error.message));
    const answer = await ask(handles[0]!, { type: 'listen', port });
    if (answer.type === 'listening') break;
    if (config.port !== 0 || attempt >= 5) return fail(`uWS could not listen on port ${port}${config.host ? ` on ${config.host}` : ''} (taken between the check and the bind?)`);
  }

  // Phase 3: thread 0 answers. The other threads start now and load their code while this thread
  // builds the structures every thread would otherwise build, once, to share, then listen beside
  // thread 0. A thread prepares its store once these arrive; a request that needs one before that
  // (none reach a replica its balancer does not see ready) builds that thread's own. Built before
  // 'start', they kept the first answer waiting (3 runs alternated: 2.10–2.15 → 1.65–1.93 s).
  const others = Array.from({ length: threads - 1 }, (_, i) => spawnThread(i + 1));
  for (const handle of others) handle.worker.postMessage(startMessage);
  const derived = snapshot === null ? null : sharedStructures(snapshot, log);
  handles[0]!.worker.postMessage({ type: 'derived', derived } satisfies MainToWorker);
  for (const handle of others) {
    await loadedBy(handle);
    const answer = await ask(handle, { type: 'listen', port });
    if (answer.type !== 'listening') return fail(`thread ${handles.indexOf(handle)} could not listen on port ${port} beside thread 0 (no SO_REUSEPORT on this system?)`);
    handle.worker.postMessage({ type: 'derived', derived } satisfies MainToWorker);
  }

  if (config.observability.metricsPort !== null) {
    // Imported only when configured: prom-client takes ~25 ms to load, on the way to the first answer.
    const { startMetricsListener } = await import('./metrics-server.js');
    metricsListener = await startMetricsListener(config.observability.metricsHost, config.observability.metricsPort, {
      collectWorkers: () => collectWorkerMetrics(handles.map((handle) => handle.worker), metricsReplies),
      dataVersion: first.store.dataVersion,
      snapshotLoadSeconds,
      snapshotLoadedAtMs: Date.now(),
    }, log).catch((error: Error) => fail(error.message));
  }

  const broadcast = (message: MainToWorker): void => {
    for (const handle of handles) handle.worker.postMessage(message);
  };

  // A reload whose keys or policy equal the ones served changes nothing and sends nothing: a new
  // copy in every thread would make V8 drop the request path's optimized code that relied on the
  // old objects' fields (authorize, serveRequest: "code dependencies"), for the same answers.
  const reloadKeys = (): void => {
    if (stopping) return;
    try {
      const next = snapshotOfKeys(readKeyFile(keysFile));
      const unchanged = JSON.stringify(next) === JSON.stringify(keys);
      if (!unchanged) {
        keys = next;
        broadcast({ type: 'keys', keys });
      }
      const inFile = keys.entries.filter((entry) => entry.id !== CONSOLE_KEY_ID);
      log(`keys: ${unchanged ? 'unchanged' : 'reloaded'} ${keysFile} (${inFile.filter((entry) => !entry.revoked).length} not revoked of ${inFile.length})`);
    } catch (error) {
      log(`keys: keeping the previous keys: ${(error as Error).message}`);
    }
  };
  const reloadPolicy = (): void => {
    if (stopping) return;
    try {
      const text = readPolicyText(policyFile);
      if (text === policyText) {
        log(`policy: unchanged ${policyFile} (compat: ${policy.compat})`);
        return;
      }
      policy = parsePolicy(text, policyFile, aliasHeaders, config.compat);
      policyText = text;
      broadcast({ type: 'policy', text, source: policyFile });
      log(`policy: reloaded ${policyFile} (compat: ${policy.compat})`);
    } catch (error) {
      log(`policy: keeping the previous policy: ${(error as Error).message}`);
    }
  };
  const interval = options.watchIntervalMs ?? 1000;
  watchFile(keysFile, { interval, persistent: false }, (current, previous) => {
    if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino || current.size !== previous.size) reloadKeys();
  });
  watchFile(policyFile, { interval, persistent: false }, (current, previous) => {
    if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino || current.size !== previous.size) reloadPolicy();
  });

  // The initial bytes are the workers' now: this thread keeps only the snapshot's identity, so that
  // after a swap nothing here holds the old SharedArrayBuffers.
  swapper = startSnapshotSwapper({
    snapshotDir: config.snapshotDir,
    initial: { ...first.store, builtAt: snapshot?.manifest.builtAt ?? '' },
    swappable: snapshot !== null,
    askAll: (message) => Promise.all(handles.map((handle) => ask(handle, message))),
    broadcast,
    log,
    watchIntervalMs: config.snapshotWatch ? interval : null,
  });
  const liveSwapper = swapper;
  snapshot = null;

  const exited = allExited().then(quota.stop);
  serving = true;
  const host = config.host;
  const urlHost = host === null || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    port,
    url: `http://${urlHost}:${port}`,
    threads,
    scavenge,
    background,
    workerCode,
    uws: first.build,
    get store() {
      return liveSwapper.current;
    },
    quota: config.quota.mode,
    get compat() {
      return policy.compat;
    },
    metricsUrl: metricsListener?.url ?? null,
    reloadKeys,
    reloadPolicy,
    reloadSnapshot: (reason = 'reload requested') => (stopping ? Promise.resolve({ status: 'unavailable', dataVersion: liveSwapper.current.dataVersion }) : liveSwapper.reload(reason)),
    close: async () => {
      stop();
      await exited;
    },
    exited,
  };
}

let nextScrapeId = 0;

/** One scrape: every worker's counters, each waited for at most 2 s (a busy or dead thread is left out of this scrape). */
function collectWorkerMetrics(workers: Worker[], replies: Map<number, (metrics: MetricJson[]) => void>): Promise<MetricJson[][]> {
  return Promise.all(workers.map((worker) => new Promise<MetricJson[]>((resolveMetrics) => {
    const id = ++nextScrapeId;
    const timer = setTimeout(() => {
      replies.delete(id);
      resolveMetrics([]);
    }, 2000);
    replies.set(id, (metrics) => {
      clearTimeout(timer);
      replies.delete(id);
      resolveMetrics(metrics);
    });
    try {
      worker.postMessage({ type: 'metrics', id } satisfies MainToWorker);
    } catch {
      replies.get(id)?.([]);
    }
  })));
}
