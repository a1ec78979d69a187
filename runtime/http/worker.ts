// Worker thread entry: loads its code, then opens the store over the shared snapshot bytes the main
// thread sends ('start'), builds the uWS app and listens when told to. Each worker has its own uWS
// app on the same port (SO_REUSEPORT).
import { parentPort, workerData } from 'node:worker_threads';
import { KeyIndex, type KeySnapshot } from '../access/key-index.js';
import { parsePolicy } from '../access/policy.js';
import { createQuotaGate } from '../access/quota/index.js';
import { noQuotaGate, type QuotaGate } from '../access/quota-hook.js';
import { allOperations, configureOperations, preparationStepsFor } from '../routes/registry.js';
import { rowWritersCompileAtOnce } from '../render/row-json.js';
import type { Operation } from '../routes/types.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';
import { buildApp, checkOperations, workerStateOf, type BuiltApp, type PreparationStep, type WorkerState } from './app.js';
import { runInTurns } from './turns.js';
import { collectNow, collectSoon } from './collect.js';
import type { MainToWorker, OperationsModule, WorkerInit, WorkerStart, WorkerToMain } from './protocol.js';
import { createLogger, levelOf } from './log.js';
import { RequestObserver } from './observe.js';
import { threadMetrics } from './thread-metrics.js';
import { Rebalancer } from './rebalance.js';
import { loadUws, type UwsListenSocket } from './uws.js';

const port = parentPort!;
const init = workerData as WorkerInit;
let portOpen = true;

function post(message: WorkerToMain): void {
  if (portOpen) port.postMessage(message);
}

/** The server's plain messages: the main thread turns them into log events with this thread's index. */
function log(message: string): void {
  if (portOpen) post({ type: 'log', message });
  else requestLogger[levelOf(message)](message);
}

/** Request events (observe.ts) are formatted here and posted as finished lines; after the port closes (draining), written to stderr directly. */
const requestLogger = createLogger((line) => {
  if (portOpen) post({ type: 'log-line', line });
  else process.stderr.write(`${line}\n`);
}, { thread: init.threadIndex });

/** The operation registry and the snapshot's store, or what the test seam (OperationsModule) puts in their place. */
async function loadOperationsAndStore(start: WorkerStart): Promise<{ operations: Operation[]; store: Store }> {
  if (init.operationsModule === null) {
    if (start.snapshot === null) throw new Error('no snapshot bytes and no operations module to open a store');
    return { operations: allOperations(), store: openStore(start.snapshot) };
  }
  const seam = (await import(init.operationsModule)) as OperationsModule;
  let operations: Operation[];
  if (Array.isArray(seam.operations)) operations = [...seam.operations];
  else if (typeof seam.allOperations === 'function') operations = seam.allOperations();
  else throw new Error(`operations module ${init.operationsModule} exports neither "operations" nor "allOperations()"`);
  if (typeof seam.openStore === 'function') return { operations, store: seam.openStore(init.snapshotDir) };
  if (start.snapshot === null) throw new Error(`operations module ${init.operationsModule} opens no store and no snapshot was loaded`);
  return { operations, store: openStore(start.snapshot) };
}

// A store replaced by a swap is logged when it has been collected: proof that nothing (cache,
// closure, request in flight) holds the old snapshot any more. A collection is asked for shortly
// after the swap (collect.ts), so the memory goes back at once rather than at some later GC.
const released = new FinalizationRegistry<string>((dataVersion) => log(`snapshot: previous store (dataVersion ${dataVersion}) released`));
const GC_AFTER_SWAP_MS = 1000;

function createQuota(policy: WorkerState['policy'], shared: WorkerStart['quota']): QuotaGate {
  if (shared === null) return noQuotaGate;
  return createQuotaGate({ policy, shared, threadIndex: init.threadIndex, threadCount: init.threadCount, log });
}

async function main(): Promise<void> {
  const { uws, build } = loadUws(init.uwsCandidates);
  const policy = parsePolicy(init.policyText, init.policySource, init.aliasHeaders, init.compat);
  // Before any operation runs: cursor secrets from the configuration.
  configureOperations(init.operationSettings);
  // The first message: 'start' once the main thread has read the snapshot (messages wait in the
  // port until then), or 'stop' when it could not. Not a module-level promise: that would keep
  // the initial snapshot's bytes for good.
  const start = await new Promise<MainToWorker>((resolveFirst) => port.once('message', resolveFirst));
  if (start.type !== 'start') {
    // The main thread could not load the snapshot and is stopping.
    portOpen = false;
    port.close();
    return;
  }
  // `start` (with the initial snapshot's bytes) is not kept past this function: after a swap, nothing may hold them.
  const { operations, store } = await loadOperationsAndStore(start);
  checkOperations(operations, policy);
  let keySnapshot: KeySnapshot = init.keys;
  const state = workerStateOf(policy, new KeyIndex(keySnapshot, policy), createQuota(policy, start.quota), false, false);
  const observer = new RequestObserver(operations.map((op) => op.name), init.observe, (event, level, message) => requestLogger[level](event, message));
  const rebalancer = init.answerCounts === null ? Rebalancer.off() : new Rebalancer(init.answerCounts, init.threadIndex, init.threadCount);
  const built = buildApp({ uws, operations, store, state, fixedNowMs: init.fixedNowMs, threadIndex: init.threadIndex, responseCacheBytes: init.responseCacheBytes, warmUpRequests: init.warmUpRequests, compression: init.compression, log, console: init.console, observer, rebalancer });
  const { app, refreshPolicy, swapStore, responses } = built;
  let listenSocket: UwsListenSocket | null = null;
  /** The first store, waiting for the main thread's derived structures ('derived') before its preparation. */
  let awaitingDerived: Store | null = null;
  /** A second store over the first snapshot's bytes, prepared before the first and dropped (rehearsal in prepareInTurns). */
  let rehearsal: Store | null = null;
  /** The store opened by snapshot-prepare, waiting for its commit. */
  let prepared: { generation: number; store: Store } | null = null;

  port.on('message', (message: MainToWorker) => {
    try {
      switch (message.type) {
        case 'listen': {
          const onListen = (socket: UwsListenSocket | false): void => {
            if (socket === false) {
              post({ type: 'listen-failed', port: message.port });
              return;
            }
            listenSocket = socket;
            post({ type: 'listening', port: uws.us_socket_local_port(socket) });
          };
          if (init.host === null) app.listen(message.port, onListen);
          else app.listen(init.host, message.port, onListen);
          break;
        }
        case 'metrics':
          post({ type: 'metrics', id: message.id, metrics: [...(observer.metrics?.toJson() ?? []), ...threadMetrics(responses().stats(), { index: init.threadIndex, answered: observer.metrics?.answered ?? null, rebalanced: rebalancer.closed })] });
          break;
        case 'keys':
          keySnapshot = message.keys;
          state.keys = new KeyIndex(keySnapshot, state.policy);
          break;
        case 'policy': {
          const next = parsePolicy(message.text, message.source, init.aliasHeaders, init.compat);
          checkOperations(operations, next);
          state.policy = next;
          state.keys = new KeyIndex(keySnapshot, next);
          state.quota.setPolicy?.(next);
          refreshPolicy();
          break;
        }
        case 'snapshot-prepare': {
          prepared = null;
          built.dropPreparedStore();
          const { generation } = message;
          let next: Store;
          try {
            next = openStore(message.snapshot);
          } catch (error) {
            post({ type: 'snapshot-failed', generation, message: (error as Error).message });
            break;
          }
          const entry = { generation, store: next };
          prepared = entry;
          if (init.operationsModule !== null) {
            post({ type: 'snapshot-prepared', generation });
            break;
          }
          // The new store is prepared while this one still serves, paced, and only then said
          // prepared: its indexes built, its pages read, its list answers rendered into its response
          // cache and its pipeline warmed. Done after the commit, unpaced (as it was), this work
          // (0.6–1 s of CPU per thread on the full dataset) queued the requests on the new snapshot.
          built.prepareStore(next);
          const steps = [...preparationStepsFor(next, nowFunction()), ...built.prefillSteps(next, false)].map(compilingRowWriters);
          runInTurns(steps, {
            wanted: () => prepared === entry,
            done: () => post({ type: 'snapshot-prepared', generation }),
            failed: preparationFailed,
            pace: SWAP_PREPARATION_PACE,
            busy: answeringRequests(built),
          });
          break;
        }
        case 'snapshot-commit': {
          if (prepared === null || prepared.generation !== message.generation) {
            log(`snapshot: commit ${message.generation} without its prepare; keeping the current store`);
            break;
          }
          const previous = swapStore(prepared.store);
          prepared = null;
          // The new store was prepared before this commit (snapshot-prepare). The old store's first
          // preparation, if it had not ended, stops here (its closures would keep it alive), and the
          // thread is as ready as the prepared store.
          const unready = awaitingDerived !== null || preparing !== null;
          awaitingDerived = null;
          rehearsal = null;
          preparing = null;
          if (unready) post({ type: 'warmed', ms: performance.now() - threadStarted, warmUpRequests: built.warmUpRequestsSent() });
          released.register(previous, previous.manifest.dataVersion);
          collectSoon(GC_AFTER_SWAP_MS);
          break;
        }
        case 'warm':
          state.warm = true;
          break;
        case 'derived':
          if (awaitingDerived === null) break;
          if (message.derived !== null) {
            awaitingDerived.adoptDerived(message.derived);
            rehearsal?.adoptDerived(message.derived);
          }
          prepareInTurns(awaitingDerived, built, rehearsal);
          rehearsal = null;
          awaitingDerived = null;
          break;
        case 'snapshot-abort':
          if (prepared?.generation === message.generation) {
            prepared = null;
            built.dropPreparedStore();
          }
          break;
        case 'stop':
          // Stop accepting; requests already received were answered synchronously. Responses from
          // now on close their connection; idle keep-alive connections end at uWS's idle timeout,
          // and the thread exits when no socket is left.
          state.draining = true;
          // An open Redis connection would keep the thread alive; requests still waiting on it finish first.
          void state.quota.close?.().catch((error: Error) => log(`quota: closing: ${error.message}`));
          if (listenSocket !== null) uws.us_listen_socket_close(listenSocket);
          listenSocket = null;
          portOpen = false;
          port.close();
          break;
      }
    } catch (error) {
      log(`could not apply ${message.type}: ${(error as Error).message}; keeping the previous state`);
    }
  });

  // An exception no request's error path caught (a timer's, a promise's) would end this thread
  // with uWS's sockets still open, and libuv then aborts the whole process. Told instead, the
  // main thread stops every thread as on SIGTERM: requests in flight finish, quotas are saved.
  process.on('uncaughtException', (error: unknown) => {
    // Anything can be thrown, not only an Error.
    const message = error instanceof Error ? error.message : String(error);
    log(`failed: uncaught exception: ${error instanceof Error ? (error.stack ?? message) : message}`);
    post({ type: 'fatal', message: `uncaught exception: ${message}` });
  });
  post({
    type: 'loaded',
    build,
    store: { dataVersion: store.manifest.dataVersion, recordCounts: { ...store.manifest.recordCounts } },
    operations: operations.length,
    skippedKeys: state.keys.skipped,
  });
  // A test seam's store may lack sections the preparation reads: only the real one is prepared,
  // once the main thread has sent the structures it builds for every thread ('derived').
  if (init.operationsModule === null) {
    awaitingDerived = store;
    if (start.snapshot !== null) rehearsal = openStore(start.snapshot);
  }
  else post({ type: 'warmed', ms: 0, warmUpRequests: 0 });
}

const threadStarted = performance.now();

/** A preparation step that failed is not fatal: the request that needs what it builds builds it (and reports a real problem itself). */
function preparationFailed(error: Error): void {
  log(`preparing the engine: ${error.message}`);
}

/** The first store, while its preparation runs; a swap's commit ends it. */
let preparing: Store | null = null;

/** The clock the preparation's warm-up requests read (a test's fixed one). */
function nowFunction(): () => number {
  const fixedNowMs = init.fixedNowMs;
  return fixedNowMs === null ? Date.now : () => fixedNowMs;
}

/**
 * A swap's preparation rests this many times as long as each step took, while the thread answers
 * requests (an idle one does not rest), so it takes at most a fifth of its thread's time and the
 * requests on the current store keep theirs. Unpaced, its ~1 s of CPU per thread (full dataset)
 * ran in ~2 s beside the report's mix at 6,000 req/s and answers queued for ~0.5 s (README,
 * Updating the data: Under load).
 */
const SWAP_PREPARATION_PACE = 4;

/** A thread that has started no request for this long is idle: a paced preparation does not rest there. */
const IDLE_AFTER_MS = 50;

/** Whether the thread has started a request within the last IDLE_AFTER_MS (a paced preparation rests only then). */
function answeringRequests(built: Pick<BuiltApp, 'requestsStarted'>): () => boolean {
  let seen = built.requestsStarted();
  let seenAt = performance.now();
  return () => {
    const started = built.requestsStarted();
    const now = performance.now();
    if (started !== seen) {
      seen = started;
      seenAt = now;
    }
    return now - seenAt < IDLE_AFTER_MS;
  };
}

/**
 * The first store's preparation: the engine's preparation steps, the warm-up requests and the
 * prefilled answers in turns (runInTurns), then tells the main thread, which makes /readyz answer
 * ready once every thread has.
 */
function prepareInTurns(store: Store, built: Pick<BuiltApp, 'prefillSteps' | 'warmUpRequestsSent'>, rehearsal: Store | null): void {
  preparing = store;
  const started = performance.now();
  const steps: PreparationStep[] = [
    // First a rehearsal of a live swap: the same preparation on a second store over the same bytes
    // (dropped by the collection below). V8 records, per object shape, the kind of value each field
    // has held; the objects of a second store changed those records for dozens of fields (the
    // store's tables and relations, the search indexes, the postcode row groups), and every function
    // optimized on the first store's was thrown away at once, while the thread served: during a live
    // swap under load answers waited ~0.1–0.2 s ("code dependencies" in --trace-deopt). Rehearsed
    // here, before the code is optimized, a swap finds nothing left to change (README, Updating the
    // data: Under load). It costs ~0.5–1 s more before ready (full dataset), no memory once ready.
    ...(rehearsal === null ? [] : preparationStepsFor(rehearsal, nowFunction())),
    ...preparationStepsFor(store, nowFunction()),
    // Before the first ready, one full collection between the indexes and the requests: what
    // loading and building left behind goes back before ready. Not after the warm-up requests: a
    // full collection while no request is in flight frees what the code V8 optimized for them
    // holds weakly, and V8 then drops that code (80–100 functions per thread, among them
    // serveRequest, authorize, writeResponse and the searches: "weak objects" in --trace-deopt),
    // which the first real load compiled again while it queued (README: A replica just added).
    collectNow,
    ...built.prefillSteps(store, true),
  ];
  runInTurns(steps, {
    wanted: () => preparing === store,
    done: () => {
      preparing = null;
      // Serving from now on: a row writer first needed by a request interprets before it compiles
      // (render/row-json.ts COMPILE_AFTER_ROWS); those the preparation made are compiled and warm.
      rowWritersCompileAtOnce(false);
      post({ type: 'warmed', ms: performance.now() - started, warmUpRequests: built.warmUpRequestsSent() });
    },
    failed: preparationFailed,
  });
}

/**
 * `step` with row writers compiling at once while it runs: the writers a swap's preparation makes
 * for the new store are compiled and warmed by its warm-up, as the first store's are.
 */
function compilingRowWriters(step: PreparationStep): PreparationStep {
  return () => {
    const before = rowWritersCompileAtOnce(true);
    try {
      return step();
    } finally {
      rowWritersCompileAtOnce(before);
    }
  };
}

main().catch((error: unknown) => {
  post({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
  // "failed": logged at level error (log.ts levelOf), as the main thread's line about it.
  if (error instanceof Error && error.stack) log(`failed while starting: ${error.stack}`);
  portOpen = false;
  port.close();
});
