// The seam between the HTTP layer and quota counting. The HTTP layer calls `consume` once per
// request after authentication and the operation gate succeeded and before `operation.handle`,
// so a 401 or a gate 403 never counts (the spec: "A 401 or 429 does not count"; whether a 429
// counts is the gate's own logic).
//
// Plugging in: a quota module exports
//   createQuotaShared?(policy: Policy): unknown            — main thread, once; the value (e.g. a
//                                                           SharedArrayBuffer) is posted to workers
//   createQuotaGate(init: QuotaGateInit): QuotaGate       — in each worker thread
// The server loads `runtime/access/quota/index.js` by default (ServerOptions.quotaModule
// overrides it); when that module does not exist, quotas are off (noQuotaGate) and the server
// says so at start.
import type { Caller } from '../routes/types.js';
import type { Policy } from './policy.js';

export interface QuotaDecision {
  allowed: boolean;
  /** Usage headers for the response (X-GEOAPI-Daily-Used, RateLimit, …), refused or not. */
  headers: Record<string, string>;
  /** Set when refused. */
  status?: 429;
  /** JSON body of the refusal (shape B, see decisions.md). */
  body?: string;
}

export interface QuotaGate {
  /**
   * Synchronous when counters live in memory shared between threads; a Promise when they live in
   * Redis (scale-out): the HTTP layer then copies the request out of uWS, registers onAborted and
   * writes the response (corked) when the decision arrives.
   */
  consume(caller: Caller, now: Date): QuotaDecision | Promise<QuotaDecision>;
  /** Called when the policy file is reloaded; new limits apply from the next request. */
  setPolicy?(policy: Policy): void;
  /** Worker shutdown: releases connections (a Redis socket would keep the thread alive). */
  close?(): Promise<void>;
  /**
   * The usage headers without counting, for keyed answers refused before counting (a plan's 403):
   * every keyed response carries them (decisions.md). Asynchronous when counters live in Redis.
   */
  peek?(caller: Caller, now: Date): Record<string, string> | Promise<Record<string, string>>;
}

/** Main-thread settings for createQuotaShared (command-line flags such as --redis <url>). */
export interface QuotaSharedInit {
  /** Overrides of the quota module's settings (runtime/access/quota/options.ts), e.g. {redisUrl}. */
  options?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  log?(message: string): void;
}

export interface QuotaGateInit {
  policy: Policy;
  /** What `createQuotaShared` returned in the main thread (undefined when it is not exported). */
  shared: unknown;
  /** 0-based index of this worker thread. */
  threadIndex: number;
  threadCount: number;
  log(message: string): void;
}

export interface QuotaModule {
  createQuotaShared?(policy: Policy, init?: QuotaSharedInit): unknown;
  createQuotaGate(init: QuotaGateInit): QuotaGate;
  /** Main thread, after every worker has exited: final persistence (graceful shutdown). */
  stopQuotaShared?(shared: unknown): Promise<void>;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const ALLOW: QuotaDecision = Object.freeze({ allowed: true, headers: NO_HEADERS }) as QuotaDecision;

/** Counts nothing, refuses nothing. */
export const noQuotaGate: QuotaGate = {
  consume: () => ALLOW,
};
