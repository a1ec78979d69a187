// The scale-out quota: every decision is one atomic script in the Redis all replicas share, so
// they enforce one exact quota. The decision is asynchronous (one round trip); the HTTP layer
// awaits it before running the handler.
//
// When Redis is unreachable (not connected, error, or no reply within the timeout) the replica
// keeps answering (fail-open, never a 5xx): it counts in its own in-memory table (shared by its
// worker threads) against each plan's limit divided by the expected replica count, logs once per
// interval, and goes back to Redis as soon as the client has reconnected (ioredis reconnects by
// itself). Requests answered during an outage are not added to Redis afterwards.
import type { Caller } from '../../contract/index.js';
import { decide, usageHeaders, type QuotaDecision } from './decision.js';
import type { MemoryQuotaGate } from './memory-gate.js';
import { bucketKeyOf, LimitsCache, type PlanQuota, type QuotaPolicy } from './plans.js';
import type { RedisQuotaCounter } from './redis-counter.js';
import type { ThrottledLog } from './throttled-log.js';
import { windowsAt } from './windows.js';

export class RedisQuotaGate {
  private degraded = false;
  private readonly limits = new LimitsCache();
  /** Pending until the first connection (or its timeout): early requests wait for it. */
  private startup: Promise<boolean> | undefined;

  constructor(
    private readonly counter: RedisQuotaCounter,
    /** Per-replica counters with limits already divided by the replica count. */
    private readonly fallback: MemoryQuotaGate,
    private policy: QuotaPolicy,
    private readonly outageLog: ThrottledLog,
    private readonly describeRedis: string,
    private readonly replicas: number,
    /** How long requests arriving before the first connection wait for it. */
    connectWaitMs: number,
  ) {
    if (!counter.ready && connectWaitMs > 0) {
      this.startup = counter.whenReady(connectWaitMs).finally(() => {
        this.startup = undefined;
      });
    }
  }

  setPolicy(policy: QuotaPolicy): void {
    this.policy = policy;
    this.fallback.setPolicy(policy);
  }

  /** Called by the counter when the client (re)connected. */
  noteReady(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.outageLog.reset();
    this.outageLog.write(`quota: Redis at ${this.describeRedis} is reachable again; counting in Redis`);
    this.outageLog.reset();
  }

  consume(caller: Caller, now: Date): QuotaDecision | Promise<QuotaDecision> {
    const quota = this.policy.plans[caller.plan];
    if (!quota) return { allowed: true, headers: { 'X-GEOAPI-Plan': caller.plan } };
    const nowMs = now.getTime();
    const bucketKey = bucketKeyOf(caller, quota);
    if (!this.counter.ready) {
      if (this.startup) {
        return this.startup.then((connected) =>
          connected && this.counter.ready ? this.viaRedis(caller, quota, bucketKey, nowMs) : this.fallBack(caller, quota, bucketKey, nowMs, 'no connection at start'),
        );
      }
      return this.fallBack(caller, quota, bucketKey, nowMs, 'not connected');
    }
    return this.viaRedis(caller, quota, bucketKey, nowMs);
  }

  /** The usage headers without counting (a plan's 403); from the fallback counters when Redis is away. */
  peek(caller: Caller, now: Date): Record<string, string> | Promise<Record<string, string>> {
    const quota = this.policy.plans[caller.plan];
    if (!quota) return { 'X-GEOAPI-Plan': caller.plan };
    const nowMs = now.getTime();
    const bucketKey = bucketKeyOf(caller, quota);
    if (!this.counter.ready) return this.fallback.peekBucket(caller, quota, bucketKey, nowMs);
    const windows = windowsAt(nowMs);
    const limits = this.limits.limitsOf(caller.plan, quota);
    return this.counter.peek(bucketKey, windows).then(
      ([dayUsed, monthUsed]) => usageHeaders(limits, windows, nowMs, dayUsed, monthUsed),
      () => this.fallback.peekBucket(caller, quota, bucketKey, nowMs),
    );
  }

  private viaRedis(caller: Caller, quota: PlanQuota, bucketKey: string, nowMs: number): Promise<QuotaDecision> {
    const windows = windowsAt(nowMs);
    const limits = this.limits.limitsOf(caller.plan, quota);
    const { upgradeUrl, flatRefusal } = this.policy;
    return this.counter.consume(bucketKey, windows, quota.daily, quota.monthly).then(
      ([outcome, dayUsed, monthUsed]) => decide(outcome, limits, windows, nowMs, dayUsed, monthUsed, caller.tierName, upgradeUrl, flatRefusal),
      (error: Error) => this.fallBack(caller, quota, bucketKey, nowMs, error.message),
    );
  }

  private fallBack(caller: Caller, quota: PlanQuota, bucketKey: string, nowMs: number, reason: string): QuotaDecision {
    this.degraded = true;
    this.outageLog.write(
      `quota: Redis at ${this.describeRedis} unavailable (${reason}); answering from this replica's counters at 1/${this.replicas} of each quota until it is back`,
    );
    return { ...this.fallback.consumeBucket(caller, quota, bucketKey, nowMs), failOpen: true };
  }
}

/** host:port of a Redis URL, without credentials, for logs. */
export function describeRedisUrl(url: string): string {
  if (url.startsWith('unix://')) return decodeURIComponent(url.slice('unix://'.length));
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}${parsed.pathname && parsed.pathname !== '/' ? parsed.pathname : ''}`;
  } catch {
    return '(unparsable URL)';
  }
}
