// The embedded quota: counters in the process-wide SharedArrayBuffer table, so all worker threads
// enforce one exact quota. Synchronous: the decision is a few atomics.
import type { Caller } from '../../contract/index.js';
import { ALLOWED, CounterTable, TABLE_FULL } from './counter-table.js';
import { decide, usageHeaders, type QuotaDecision } from './decision.js';
import { bucketKeyOf, LimitsCache, type PlanQuota, type QuotaPolicy } from './plans.js';
import { windowsAt } from './windows.js';

export interface LocalQuotaOptions {
  /**
   * Each limit is divided by this (rounded up) before it is enforced: the Redis fallback uses the
   * expected replica count so that N replicas deciding alone stay near one plan's quota.
   */
  limitDivisor?: number;
  /** Called once when the shared table is full and a bucket is counted in this thread only. */
  onTableFull?: (capacity: number) => void;
}

export class MemoryQuotaGate {
  private readonly counts = new Int32Array(2);
  private readonly limits: LimitsCache;
  /** Per-thread overflow when the shared table is full (inexact across threads; logged). */
  private overflow: CounterTable | undefined;

  constructor(
    private readonly table: CounterTable,
    private policy: QuotaPolicy,
    private readonly options: LocalQuotaOptions = {},
  ) {
    this.limits = new LimitsCache(Math.max(1, options.limitDivisor ?? 1));
  }

  /** Policy hot reload: new limits apply from the next request; counts are kept. */
  setPolicy(policy: QuotaPolicy): void {
    this.policy = policy;
  }

  consume(caller: Caller, now: Date): QuotaDecision {
    const quota = this.policy.plans[caller.plan];
    if (!quota) return { allowed: true, headers: { 'X-GEOAPI-Plan': caller.plan } };
    return this.consumeBucket(caller, quota, bucketKeyOf(caller, quota), now.getTime());
  }

  /** The usage headers without counting (answers refused before counting, e.g. a plan's 403). */
  peek(caller: Caller, now: Date): Record<string, string> {
    const quota = this.policy.plans[caller.plan];
    if (!quota) return { 'X-GEOAPI-Plan': caller.plan };
    return this.peekBucket(caller, quota, bucketKeyOf(caller, quota), now.getTime());
  }

  peekBucket(caller: Caller, quota: PlanQuota, bucketKey: string, nowMs: number): Record<string, string> {
    const windows = windowsAt(nowMs);
    const limits = this.limits.limitsOf(caller.plan, quota);
    let slot = this.table.slotOf(bucketKey);
    let table = this.table;
    if (slot === TABLE_FULL && this.overflow) {
      table = this.overflow;
      slot = table.slotOf(bucketKey);
    }
    if (slot === TABLE_FULL) return usageHeaders(limits, windows, nowMs, 0, 0);
    table.peek(slot, windows.dayId, windows.monthId, this.counts);
    return usageHeaders(limits, windows, nowMs, this.counts[0]!, this.counts[1]!);
  }

  /** Counts `bucketKey` against `quota` (limits divided by limitDivisor). */
  consumeBucket(caller: Caller, quota: PlanQuota, bucketKey: string, nowMs: number): QuotaDecision {
    const windows = windowsAt(nowMs);
    const limits = this.limits.limitsOf(caller.plan, quota);
    let table = this.table;
    let slot = table.slotOf(bucketKey);
    if (slot === TABLE_FULL) {
      if (!this.overflow) {
        this.options.onTableFull?.(this.table.capacity);
        this.overflow = CounterTable.create(this.table.capacity);
      }
      table = this.overflow;
      slot = table.slotOf(bucketKey);
      // Both tables full: answer without counting rather than refuse paying callers.
      if (slot === TABLE_FULL) return decide(ALLOWED, limits, windows, nowMs, 0, 0, caller.tierName, this.policy.upgradeUrl, this.policy.flatRefusal);
    }
    const outcome = table.consume(slot, windows.dayId, windows.monthId, limits.daily, limits.monthly, this.counts);
    return decide(outcome, limits, windows, nowMs, this.counts[0]!, this.counts[1]!, caller.tierName, this.policy.upgradeUrl, this.policy.flatRefusal);
  }
}
