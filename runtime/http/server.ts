// The main thread: loads the snapshot bytes once, the policy and the key file, starts one worker
// thread per core (each its own uWS app on the same port), watches the key and policy files and
// broadcasts changes, and drains on close.
import { randomBytes } from 'node:crypto';
import { existsSync, unwatchFile, watchFile } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { keySnapshotOf, type KeySnapshot } from '../access/key-index.js';
import { readKeyFile } from '../access/keys.js';
import { aliasHeadersFromEnv, DEFAULT_POLICY_FILE, parsePolicy, readPolicyText, type Policy } from '../access/policy.js';
import type { QuotaModule } from '../access/quota-hook.js';
import type { MainToWorker, StoreSummary, WorkerInit, WorkerToMain } from './protocol.js';
import { loadUws, uwsCandidates, type UwsBuild } from './uws.js';

export interface ServerOptions {
  /** Snapshot directory (manifest.json + section files). */
  snapshotDir: string;
  /** Key store JSON file (geoapi keys add). */
  keysFile: string;
  /** Policy file; default data/policy.json. */
  policyFile?: string;
  /** 0 picks a free port. Default 8080. */
  port?: number;
  /** Listen address; default all interfaces. */
  host?: string;
  /** Worker threads; default os.availableParallelism(). */
  threads?: number;
  /** Module (path or file: URL) exporting `operations` or `allOperations()`; default the operation registry. */
  operationsModule?: string;
  /** Module exporting loadSnapshotBytes(dir) and openStore(bytes); default runtime/store/load.js + open.js. */
  storeModule?: string;
  /**
   * Quota module (see runtime/access/quota-hook.ts); default runtime/access/quota/index.js when it
   * exists; null turns quotas off.
   */
  quotaModule?: string | null;
  /** Quota settings from command-line flags (e.g. {redisUrl} from --redis), passed to createQuotaShared. */
  quotaOptions?: Record<string, unknown>;
  /** Fixed request time (ISO) for tests; default the real clock. */
  fixedNow?: string;
  /** How often the key and policy files are checked for changes; default 1000 ms. */
  watchIntervalMs?: number;
  /** Log sink; default stderr. */
  log?: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface RunningServer {
  port: number;
  /** http://host:port (localhost when listening on all interfaces). */
  url: string;
  threads: number;
  uws: UwsBuild;
  store: StoreSummary;
  /** 'off', or 'on' (the quota module logs its mode: in memory or Redis). */
  quota: string;
  /** Re-reads the key file now (also happens on change and on SIGHUP in the CLI). */
  reloadKeys(): void;
  reloadPolicy(): void;
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

const WORKER_URL = new URL('./worker.js', import.meta.url);
const DEFAULT_OPERATIONS = new URL('../routes/registry.js', import.meta.url).href;
const DEFAULT_LOAD_STORE = new URL('../store/load.js', import.meta.url).href;
const DEFAULT_OPEN_STORE = new URL('../store/open.js', import.meta.url).href;
const DEFAULT_QUOTA = new URL('../access/quota/index.js', import.meta.url);

function moduleUrl(specifier: string): string {
  return /^(file|data):/.test(specifier) ? specifier : pathToFileURL(resolve(specifier)).href;
}

const defaultLog = (message: string): void => {
  console.error(`geoapi: ${message}`);
};

/** Checks that `port` can be bound (0: asks the kernel for a free one) and returns it. */
async function reservePort(port: number, host: string | undefined): Promise<number> {
  const probe = createServer();
  return new Promise<number>((resolvePort, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(new ServerStartError(error.code === 'EADDRINUSE' ? `port ${port} is already in use${host ? ` on ${host}` : ''}` : `cannot listen on port ${port}: ${error.message}`));
    });
    probe.listen({ port, host, exclusive: true }, () => {
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
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const log = options.log ?? defaultLog;
  const candidates = uwsCandidates(env);
  // Fail fast in the main thread, before any data is loaded, with the message naming every attempt.
  loadUws(candidates);

  const policyFile = resolve(options.policyFile ?? DEFAULT_POLICY_FILE);
  const aliasHeaders = aliasHeadersFromEnv(env);
  let policyText = readPolicyText(policyFile);
  let policy: Policy = parsePolicy(policyText, policyFile, aliasHeaders);
  const keysFile = resolve(options.keysFile);
  let keys: KeySnapshot = keySnapshotOf(readKeyFile(keysFile));

  const threads = options.threads ?? availableParallelism();
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new ServerStartError(`threads: expected an integer from 1 to 256, found ${threads}`);
  const fixedNowMs = options.fixedNow === undefined ? null : Date.parse(options.fixedNow);
  if (fixedNowMs !== null && !Number.isFinite(fixedNowMs)) throw new ServerStartError(`fixedNow: expected an ISO time, found ${JSON.stringify(options.fixedNow)}`);

  const loadStoreModule = options.storeModule ? moduleUrl(options.storeModule) : DEFAULT_LOAD_STORE;
  const openStoreModule = options.storeModule ? moduleUrl(options.storeModule) : DEFAULT_OPEN_STORE;
  const { loadSnapshotBytes } = (await import(loadStoreModule)) as { loadSnapshotBytes?: (dir: string) => unknown };
  if (typeof loadSnapshotBytes !== 'function') throw new ServerStartError(`store module ${loadStoreModule} does not export loadSnapshotBytes(dir)`);
  const snapshotDir = resolve(options.snapshotDir);
  const snapshot = await loadSnapshotBytes(snapshotDir);

  let quotaModule: string | null;
  if (options.quotaModule === null) quotaModule = null;
  else if (options.quotaModule !== undefined) quotaModule = moduleUrl(options.quotaModule);
  else quotaModule = existsSync(fileURLToPath(DEFAULT_QUOTA)) ? DEFAULT_QUOTA.href : null;
  let quotaShared: unknown;
  let stopQuota: () => Promise<void> = async () => undefined;
  if (quotaModule !== null) {
    const mod = (await import(quotaModule)) as Partial<QuotaModule>;
    try {
      quotaShared = mod.createQuotaShared?.(policy, { options: options.quotaOptions ?? {}, env, log });
    } catch (error) {
      throw new ServerStartError(`quota: ${(error as Error).message}`);
    }
    // After every worker has exited, so the final counts are complete (state file, graceful stop).
    stopQuota = async () => {
      try {
        await mod.stopQuotaShared?.(quotaShared);
      } catch (error) {
        log(`quota: final save failed: ${(error as Error).message}`);
      }
    };
  }

  const init: Omit<WorkerInit, 'threadIndex'> = {
    threadCount: threads,
    host: options.host ?? null,
    snapshot,
    openStoreModule,
    operationsModule: options.operationsModule ? moduleUrl(options.operationsModule) : DEFAULT_OPERATIONS,
    quotaModule,
    quotaShared,
    policyText,
    policySource: policyFile,
    aliasHeaders,
    keys,
    uwsCandidates: candidates,
    fixedNowMs,
  };

  const handles: WorkerHandle[] = [];
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    unwatchFile(keysFile);
    unwatchFile(policyFile);
    for (const handle of handles) handle.worker.postMessage({ type: 'stop' } satisfies MainToWorker);
  };
  const allExited = (): Promise<void> => Promise.all(handles.map((handle) => handle.exited)).then(() => undefined);

  // Every thread must verify the postcode cursors any other thread signed: without a configured
  // secret, one random secret for the whole process (cursors then end with the process).
  const workerEnv = { ...process.env };
  if (!workerEnv['GEOAPI_CURSOR_SECRET']?.trim()) {
    workerEnv['GEOAPI_CURSOR_SECRET'] = randomBytes(32).toString('base64url');
    log('GEOAPI_CURSOR_SECRET is not set: postcode cursors are signed with a random secret and stop working after a restart or on another replica');
  }
  for (let threadIndex = 0; threadIndex < threads; threadIndex++) {
    const worker = new Worker(WORKER_URL, { workerData: { ...init, threadIndex } satisfies WorkerInit, env: workerEnv });
    const handle: WorkerHandle = {
      worker,
      waiting: null,
      exited: new Promise<number>((resolveExit) => worker.once('exit', resolveExit)),
    };
    worker.on('message', (message: WorkerToMain) => {
      if (message.type === 'log') log(message.message);
      else if (handle.waiting) {
        const deliver = handle.waiting;
        handle.waiting = null;
        deliver(message);
      }
    });
    worker.on('error', (error) => log(`thread ${threadIndex} failed: ${error.stack ?? error.message}`));
    void handle.exited.then((code) => {
      if (!stopping) log(`thread ${threadIndex} exited unexpectedly (code ${code})`);
      if (handle.waiting) handle.waiting({ type: 'fatal', message: `thread ${threadIndex} exited (code ${code}) while starting` });
    });
    handles.push(handle);
  }

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

  // Phase 1: every worker loads everything; errors surface before anything is bound.
  const loaded = await Promise.all(handles.map((handle) => ask(handle, null)));
  const firstFatal = loaded.find((message) => message.type === 'fatal');
  if (firstFatal?.type === 'fatal') return fail(firstFatal.message);
  const first = loaded[0]!;
  if (first.type !== 'loaded') return fail(`thread 0 answered ${first.type} while loading`);
  if (first.skippedKeys.length > 0) log(`keys: ${first.skippedKeys.length} key(s) have a plan the policy does not define and are refused: ${first.skippedKeys.join(', ')}`);

  // Phase 2: bind. Ports other than 0 are shared by the workers' sockets (uSockets sets SO_REUSEPORT
  // for them); port 0 is not, so a free port is picked here first. The probe also turns a port
  // already in use into a clear error instead of silently sharing it with another process.
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await reservePort(options.port ?? 8080, options.host).catch((error: Error) => fail(error.message));
    const answer = await ask(handles[0]!, { type: 'listen', port });
    if (answer.type === 'listening') break;
    if (options.port !== 0 || attempt >= 5) return fail(`uWS could not listen on port ${port}${options.host ? ` on ${options.host}` : ''} (taken between the check and the bind?)`);
  }
  for (const handle of handles.slice(1)) {
    const answer = await ask(handle, { type: 'listen', port });
    if (answer.type !== 'listening') return fail(`thread ${handles.indexOf(handle)} could not listen on port ${port} beside thread 0 (no SO_REUSEPORT on this system?)`);
  }

  const broadcast = (message: MainToWorker): void => {
    for (const handle of handles) handle.worker.postMessage(message);
  };

  const reloadKeys = (): void => {
    if (stopping) return;
    try {
      const next = keySnapshotOf(readKeyFile(keysFile));
      keys = next;
      broadcast({ type: 'keys', keys });
      log(`keys: reloaded ${keysFile} (${keys.entries.filter((entry) => !entry.revoked).length} not revoked of ${keys.entries.length})`);
    } catch (error) {
      log(`keys: keeping the previous keys: ${(error as Error).message}`);
    }
  };
  const reloadPolicy = (): void => {
    if (stopping) return;
    try {
      const text = readPolicyText(policyFile);
      policy = parsePolicy(text, policyFile, aliasHeaders);
      policyText = text;
      broadcast({ type: 'policy', text, source: policyFile });
      log(`policy: reloaded ${policyFile}`);
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

  const exited = allExited().then(stopQuota);
  const host = options.host ?? null;
  const urlHost = host === null || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    port,
    url: `http://${urlHost}:${port}`,
    threads,
    uws: first.build,
    store: first.store,
    quota: quotaModule === null ? 'off' : 'on',
    reloadKeys,
    reloadPolicy,
    close: async () => {
      stop();
      await exited;
    },
    exited,
  };
}
