// The main thread: loads the snapshot bytes once, the policy and the key file, starts one worker
// thread per core (each its own uWS app on the same port), watches the key and policy files and
// broadcasts changes, and drains on close. Everything it is configured with arrives in one
// GeoapiConfig (runtime/config.ts); it reads no environment.
import { randomBytes } from 'node:crypto';
import { unwatchFile, watchFile } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { keySnapshotOf, type KeySnapshot } from '../access/key-index.js';
import { readKeyFile } from '../access/keys.js';
import { parsePolicy, readPolicyText, type Policy } from '../access/policy.js';
import { createQuotaShared, stopQuotaShared, type QuotaShared } from '../access/quota/index.js';
import type { QuotaMode } from '../access/quota/options.js';
import type { GeoapiConfig } from './config.js';
import { loadSnapshotBytes, type SnapshotBytes } from '../store/load.js';
import type { MainToWorker, OperationsModule, StoreSummary, WorkerInit, WorkerToMain } from './protocol.js';
import { loadUws, type UwsBuild } from './uws.js';

export interface ServerOptions {
  config: GeoapiConfig;
  /**
   * The one seam for tests: a module (path or file: URL) replacing the operation registry and,
   * optionally, the store (see OperationsModule in protocol.ts). Default: the registry.
   */
  operationsModule?: string;
  /** Fixed request time (ISO) for tests; default the real clock. */
  fixedNow?: string;
  /** How often the key and policy files are checked for changes; default 1000 ms. */
  watchIntervalMs?: number;
  /** Log sink; default stderr. */
  log?: (message: string) => void;
}

export interface RunningServer {
  port: number;
  /** http://host:port (localhost when listening on all interfaces). */
  url: string;
  threads: number;
  uws: UwsBuild;
  store: StoreSummary;
  /** The quota mode in force (from the configuration). */
  quota: QuotaMode;
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

function moduleUrl(specifier: string): string {
  return /^(file|data):/.test(specifier) ? specifier : pathToFileURL(resolve(specifier)).href;
}

const defaultLog = (message: string): void => {
  console.error(`geoapi: ${message}`);
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
}

/** Step 1: the snapshot bytes, read once and shared by every worker; none when the test seam opens its own store. */
async function loadSnapshot(config: GeoapiConfig, operationsModule: string | null): Promise<SnapshotBytes | null> {
  if (operationsModule !== null) {
    const seam = (await import(operationsModule)) as OperationsModule;
    if (typeof seam.openStore === 'function') return null;
  }
  return loadSnapshotBytes(config.snapshotDir);
}

/** Step 2: the shared quota counters when quotas are on (the configuration decides); null when off. */
function startQuota(config: GeoapiConfig, policy: Policy, log: (message: string) => void): { shared: QuotaShared | null; stop(): Promise<void> } {
  if (config.quota.mode === 'off') {
    log('quota: off (nothing is counted or limited)');
    return { shared: null, stop: async () => undefined };
  }
  let shared: QuotaShared;
  try {
    shared = createQuotaShared(policy, { options: { ...config.quota }, log });
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

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config } = options;
  const log = options.log ?? defaultLog;
  // Fail fast in the main thread, before any data is loaded, with the message naming every attempt.
  loadUws(config.uwsCandidates);

  const policyFile = config.policyFile;
  const aliasHeaders = config.keyHeaderAliases;
  let policyText = readPolicyText(policyFile);
  let policy: Policy = parsePolicy(policyText, policyFile, aliasHeaders);
  const keysFile = config.keysFile;
  let keys: KeySnapshot = keySnapshotOf(readKeyFile(keysFile));

  const threads = config.threads;
  if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new ServerStartError(`threads: expected an integer from 1 to 256, found ${threads}`);
  const fixedNowMs = options.fixedNow === undefined ? null : Date.parse(options.fixedNow);
  if (fixedNowMs !== null && !Number.isFinite(fixedNowMs)) throw new ServerStartError(`fixedNow: expected an ISO time, found ${JSON.stringify(options.fixedNow)}`);

  const operationsModule = options.operationsModule ? moduleUrl(options.operationsModule) : null;
  const snapshot = await loadSnapshot(config, operationsModule);
  const quota = startQuota(config, policy, log);

  const init: Omit<WorkerInit, 'threadIndex'> = {
    threadCount: threads,
    host: config.host,
    snapshotDir: config.snapshotDir,
    snapshot,
    operationsModule,
    quota: quota.shared,
    operationSettings: { ...config.operations, cursorSecret: cursorSecretOf(config, log) },
    responseCacheBytes: config.responseCacheBytes,
    policyText,
    policySource: policyFile,
    aliasHeaders,
    keys,
    uwsCandidates: config.uwsCandidates,
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

  for (let threadIndex = 0; threadIndex < threads; threadIndex++) {
    const worker = new Worker(WORKER_URL, { workerData: { ...init, threadIndex } satisfies WorkerInit });
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
    port = await reservePort(config.port, config.host).catch((error: Error) => fail(error.message));
    const answer = await ask(handles[0]!, { type: 'listen', port });
    if (answer.type === 'listening') break;
    if (config.port !== 0 || attempt >= 5) return fail(`uWS could not listen on port ${port}${config.host ? ` on ${config.host}` : ''} (taken between the check and the bind?)`);
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

  const exited = allExited().then(quota.stop);
  const host = config.host;
  const urlHost = host === null || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    port,
    url: `http://${urlHost}:${port}`,
    threads,
    uws: first.build,
    store: first.store,
    quota: config.quota.mode,
    reloadKeys,
    reloadPolicy,
    close: async () => {
      stop();
      await exited;
    },
    exited,
  };
}
