// The seam between the HTTP layer and quota counting. The HTTP layer calls `consume` once per
// request after authentication and the operation gate succeeded and before `operation.handle`,
// so a 401 or a gate 403 never counts (the spec: "A 401 or 429 does not count"; whether a 429
// counts is the gate's own logic).
//
// The counting itself is runtime/access/quota/index.ts: createQuotaShared in the main thread
// (its value is posted to the workers), createQuotaGate in each worker. Whether quotas count at
// all is configuration (GeoapiConfig.quota.mode, runtime/config.ts): when off, the server uses
// noQuotaGate and creates nothing.
import type { Caller } from '../contract/index.js';
import type { Policy } from './policy.js';

export interface QuotaDecision {
  allowed: boolean;
  /** Usage headers for the response (X-GEOAPI-Daily-Used, RateLimit, …), refused or not. */
  headers: Record<string, string>;
  /** Set when refused. */
  status?: 429;
  /** JSON body of the refusal (shape B, see decisions.md). */
  body?: string;
  /** Set when counted on this replica because Redis was unreachable (fail-open; a metrics label). */
  failOpen?: true;
  /** The counts behind the headers (GET /v1/usage); absent when the caller is not counted. */
  counts?: QuotaCounts;
}

/** Used and allowed requests of the caller's bucket in the current windows, and when they reset. */
export interface QuotaCounts {
  dayUsed: number;
  monthUsed: number;
  dailyLimit: number;
  monthlyLimit: number;
  dayResetMs: number;
  monthResetMs: number;
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
  /**
   * A gate of the same kind over counters of its own, no plan limited: the warm-up's (app.ts).
   * Its decisions take the real ones' code and shapes, so what V8 compiles for the warm-up's
   * requests holds for real ones, and the warm-up leaves no count behind. Absent where the
   * decisions are asynchronous (Redis) or nothing counts.
   */
  forWarmUp?(): QuotaGate;
}

/** Main-thread settings for createQuotaShared. */
export interface QuotaSharedInit {
  /** The quota settings (runtime/access/quota/options.ts; the server passes GeoapiConfig.quota), over the defaults. */
  options?: Record<string, unknown>;
  log?(message: string): void;
  /**
   * The clock whose month decides which saved counts a restart restores: the server's fixed time
   * when it runs on one (tests), else the wall clock.
   */
  now?(): Date;
}

export interface QuotaGateInit {
  policy: Policy;
  /** What `createQuotaShared` returned in the main thread. */
  shared: unknown;
  /** 0-based index of this worker thread. */
  threadIndex: number;
  threadCount: number;
  log(message: string): void;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const ALLOW: QuotaDecision = Object.freeze({ allowed: true, headers: NO_HEADERS }) as QuotaDecision;

/** Counts nothing, refuses nothing. */
export const noQuotaGate: QuotaGate = {
  consume: () => ALLOW,
};
