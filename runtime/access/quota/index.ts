// Quota counting (see ../quota-hook.ts): the main thread creates the shared
// counter table (and, in memory mode, loads and persists it); each worker thread opens a gate.
//   memory: synchronous decisions over the SharedArrayBuffer table, persisted to a state file
//   redis:  one atomic script per decision in the shared Redis; the table is the outage fallback
//   off:    no counting, no usage headers
import type { Caller } from '../../contract/index.js';
import { callerFor } from '../gate.js';
import type { Policy } from '../policy.js';
import type { QuotaDecision, QuotaGate, QuotaGateInit, QuotaSharedInit } from '../quota-hook.js';
import { CounterTable } from './counter-table.js';
import { MemoryQuotaGate } from './memory-gate.js';
import { quotaOptionsFrom, type QuotaOptions } from './options.js';
import { quotaPolicyOf } from './plans.js';
import { RedisQuotaCounter } from './redis-counter.js';
import { describeRedisUrl, RedisQuotaGate } from './redis-gate.js';
import { QuotaStateFile } from './state-file.js';
import { ThrottledLog } from './throttled-log.js';

export { quotaOptionsFrom, type QuotaOptions } from './options.js';

/** Posted to every worker (structured clone keeps the SharedArrayBuffer shared). */
export interface QuotaShared {
  options: QuotaOptions;
  table: SharedArrayBuffer;
}

/** A worker's gate; `consume` is asynchronous in redis mode only. */
export interface WorkerQuotaGate extends QuotaGate {
  peek(caller: Caller, now: Date): Record<string, string> | Promise<Record<string, string>>;
  setPolicy(policy: Policy): void;
  /** Closes the Redis connection (worker shutdown). */
  close(): Promise<void>;
}

const stateFiles = new Map<SharedArrayBuffer, QuotaStateFile>();

/**
 * Main thread, once: creates the table and, in memory mode, restores the state file and starts
 * persisting it every `persistIntervalMs`. `init.options` are the settings (the server passes
 * its whole GeoapiConfig.quota) over the defaults; they are checked again here.
 */
export function createQuotaShared(_policy: Policy, init: QuotaSharedInit = {}): QuotaShared {
  const options = quotaOptionsFrom({}, (init.options ?? {}) as Partial<QuotaOptions>);
  const log = init.log ?? ((message: string) => console.error(`geoapi: ${message}`));
  const table = CounterTable.create(options.capacity);
  if (options.mode === 'memory' && options.stateFile) {
    const stateFile = new QuotaStateFile(options.stateFile, table, { intervalMs: options.persistIntervalMs, log, ...(init.now ? { now: init.now } : {}) });
    const restored = stateFile.load();
    log(`quota: in memory, ${restored} bucket(s) restored from ${options.stateFile}, saved every ${options.persistIntervalMs} ms`);
    stateFile.start();
    stateFiles.set(table.buffer, stateFile);
  } else if (options.mode === 'memory') {
    log('quota: in memory, not persisted (no state file)');
  } else if (options.mode === 'redis') {
    log(`quota: in Redis at ${describeRedisUrl(options.redisUrl!)} (fallback when unreachable: 1/${options.replicas} of each quota per replica)`);
  } else {
    log('quota: off (nothing is counted or limited)');
  }
  return { options, table: table.buffer };
}

/** Main thread, at graceful shutdown (after the workers exited): writes the final counts. */
export async function stopQuotaShared(shared: unknown): Promise<void> {
  const table = (shared as QuotaShared | undefined)?.table;
  const stateFile = table && stateFiles.get(table);
  if (!stateFile) return;
  stateFiles.delete(table);
  await stateFile.stop();
}

export function createQuotaGate(init: QuotaGateInit): WorkerQuotaGate {
  const shared = init.shared as QuotaShared | undefined;
  if (!shared?.table || !shared.options) {
    throw new Error(`quota: expected the value of createQuotaShared() in the worker, found ${typeof init.shared}`);
  }
  const { options } = shared;
  const table = CounterTable.from(shared.table);
  const policy = quotaPolicyOf(init.policy);
  // Separate throttles: the client's connection errors must not hide the "answering locally" notice.
  const problems = new ThrottledLog(options.logIntervalMs, init.log);
  const connectionErrors = new ThrottledLog(options.logIntervalMs, init.log);
  const tableFull = (capacity: number): void => {
    init.log(`quota: the counter table is full (${capacity} buckets); new keys are counted per thread. Raise GEOAPI_QUOTA_SLOTS.`);
  };

  if (options.mode === 'off') {
    return { consume: allowAll, peek: () => NO_HEADERS, setPolicy: () => undefined, close: async () => undefined };
  }
  if (options.mode === 'memory') return new MemoryModeGate(new MemoryQuotaGate(table, policy, { onTableFull: tableFull }), init.policy);

  const fallback = new MemoryQuotaGate(table, policy, { limitDivisor: options.replicas, onTableFull: tableFull });
  let gate: RedisQuotaGate | undefined;
  const counter = new RedisQuotaCounter({
    url: options.redisUrl!,
    keyPrefix: options.redisKeyPrefix,
    timeoutMs: options.redisTimeoutMs,
    batch: options.redisBatch,
    onError: (error) => connectionErrors.write(`quota: Redis at ${describeRedisUrl(options.redisUrl!)}: ${error.message}`),
    onReady: () => {
      connectionErrors.reset();
      gate?.noteReady();
    },
  });
  gate = new RedisQuotaGate(counter, fallback, policy, problems, describeRedisUrl(options.redisUrl!), options.replicas, options.redisConnectWaitMs);
  const redisGate = gate;
  return {
    consume: (caller, now) => redisGate.consume(caller, now),
    peek: (caller, now) => redisGate.peek(caller, now),
    setPolicy: (next) => redisGate.setPolicy(quotaPolicyOf(next)),
    close: () => counter.close(),
  };
}

/** Buckets of the warm-up gate's own table: the warm-up counts one key. */
const WARM_UP_SLOTS = 64;
/**
 * Rounds of first requests forWarmUp sends, each through a gate of its own (its own limits cache,
 * so new limits, header parts and buckets for every limited plan): enough for V8 to have allocated
 * the functions' feedback before the last rounds, which record what a real key's first request runs.
 */
const FIRST_REQUEST_ROUNDS = 8;

/**
 * The memory mode's gate. A class, and the warm-up's gate (forWarmUp) another instance of it over
 * a table of its own: authorize's call and the decisions it gets back meet in real requests the
 * hidden classes and call targets they met in the warm-up. With the warm-up on noQuotaGate, the
 * first real requests deoptimized authorize and afterQuota ("wrong map") and, with them,
 * serveRequest, which the first load then waited on V8 to compile again.
 */
class MemoryModeGate implements WorkerQuotaGate {
  constructor(
    private readonly gate: MemoryQuotaGate,
    private policy: Policy,
  ) {}

  consume(caller: Caller, now: Date): QuotaDecision {
    return this.gate.consume(caller, now);
  }

  peek(caller: Caller, now: Date): Record<string, string> {
    return this.gate.peek(caller, now);
  }

  setPolicy(next: Policy): void {
    this.policy = next;
    this.gate.setPolicy(quotaPolicyOf(next));
  }

  async close(): Promise<void> {}

  /**
   * First, in throwaway counters, the first request of a key of every limited plan, a few rounds:
   * what a real key's first request runs (a new bucket; the plan's limits and header parts made),
   * which the warm-up's one key runs once, before V8 records any feedback. Code compiled without
   * it deoptimized at the first real request ("insufficient type feedback").
   */
  forWarmUp(): QuotaGate {
    const now = new Date();
    const unlimited = quotaPolicyOf(this.policy, true);
    const firstRequests = CounterTable.create(WARM_UP_SLOTS * FIRST_REQUEST_ROUNDS);
    for (let round = 0; round < FIRST_REQUEST_ROUNDS; round++) {
      const gate = new MemoryQuotaGate(firstRequests, unlimited, { onTableFull: () => undefined });
      for (const [name, plan] of Object.entries(this.policy.plans)) if (plan.quota !== null) gate.consume(callerFor(`warm-up-first-${round}`, name, this.policy), now);
    }
    return new MemoryModeGate(new MemoryQuotaGate(CounterTable.create(WARM_UP_SLOTS), unlimited, { onTableFull: () => undefined }), this.policy);
  }
}

const NO_HEADERS = Object.freeze({}) as Record<string, string>;
const ALLOW: QuotaDecision = Object.freeze({ allowed: true, headers: NO_HEADERS }) as QuotaDecision;
function allowAll(): QuotaDecision {
  return ALLOW;
}
