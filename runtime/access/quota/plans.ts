// Which bucket a caller's requests count in, and its limits. Quotas are data (data/policy.json,
// plans.<plan>.quota, checked by runtime/access/policy.ts): each plan has daily/monthly limits; a
// plan with `sharedBucket` (playground) counts every key of the plan in one bucket, other plans
// count per key. A plan without a quota is neither limited nor counted.
import { planQuota, type Policy } from '../policy.js';
import type { Caller } from '../../contract/index.js';
import type { BucketLimits } from './decision.js';

export interface PlanQuota {
  daily: number;
  monthly: number;
  /** All keys of the plan share one bucket (the playground plan). */
  sharedBucket: boolean;
}

/** The part of the policy the quota reads. */
export interface QuotaPolicy {
  /** Quotas by lowercase plan name; null/absent = not limited. */
  plans: Readonly<Record<string, PlanQuota | null | undefined>>;
  /** Shown in 429 details. */
  upgradeUrl: string;
  /** Compat "csc": 429 bodies also carry the flat fields (decision.ts). */
  flatRefusal: boolean;
}

/** More requests than any warm-up sends (a small integer for V8, as the policy's limits are). */
const WARM_UP_LIMIT = 1_000_000_000;

/**
 * The quota part of `policy`. `warmUp`: every limited plan's limits raised beyond what a warm-up
 * sends (the warm-up's gate, quota/index.ts), the objects made as the policy's are.
 */
export function quotaPolicyOf(policy: Policy, warmUp = false): QuotaPolicy {
  const plans: Record<string, PlanQuota | null> = {};
  for (const [name, plan] of Object.entries(policy.plans)) {
    plans[name] = warmUp && plan.quota !== null ? planQuota(WARM_UP_LIMIT, WARM_UP_LIMIT, plan.quota.sharedBucket) : plan.quota;
  }
  return { plans, upgradeUrl: policy.upgradeUrl, flatRefusal: policy.compat === 'csc' };
}

/** The bucket key: `key:<keyId>`, or `plan:<plan>` for a plan with one shared bucket. */
export function bucketKeyOf(caller: Caller, quota: PlanQuota): string {
  return quota.sharedBucket ? `plan:${caller.plan}` : `key:${caller.keyId}`;
}

/**
 * One BucketLimits object per (plan quota, plan, divisor), reused across requests so the
 * headers' fixed parts are built once (decision.ts caches them by this object).
 */
export class LimitsCache {
  private readonly byQuota = new WeakMap<PlanQuota, BucketLimits>();

  constructor(private readonly divisor = 1) {}

  limitsOf(plan: string, quota: PlanQuota): BucketLimits {
    const found = this.byQuota.get(quota);
    if (found !== undefined && found.plan === plan) return found;
    const limits: BucketLimits = {
      plan,
      daily: this.divisor === 1 ? quota.daily : Math.ceil(quota.daily / this.divisor),
      monthly: this.divisor === 1 ? quota.monthly : Math.ceil(quota.monthly / this.divisor),
    };
    this.byQuota.set(quota, limits);
    return limits;
  }
}
