// Plan checks: who the caller is (plan → tiers and rank) and the 403 in the operation's shape.
import { ApiError, type Caller, type ErrorShape, type PlanName } from '../contract/index.js';
import type { FeatureRequirement, Policy } from './policy.js';

/** The Caller for a key of `plan` (one frozen object per key, built when keys load). */
export function callerFor(keyId: string, plan: PlanName, policy: Policy): Caller {
  const planPolicy = policy.plans[plan];
  // Key files are checked against the policy when loaded; a plan missing here is a bug, not input.
  if (planPolicy === undefined) throw new Error(`key ${keyId}: plan ${JSON.stringify(plan)} is not in the policy`);
  return Object.freeze({
    keyId,
    plan,
    tierName: plan,
    tier: planPolicy.tier,
    countryTier: planPolicy.countryTier,
    rank: planPolicy.rank,
  });
}

/**
 * The 403 for a missing feature. Shape A carries feature and upgradeUrl beside `error`;
 * shape B carries {feature, currentTier, requiredTier, upgradeUrl} as details (spec "Errors").
 */
export function forbidden(policy: Policy, shape: ErrorShape, requirement: FeatureRequirement, caller: Caller): ApiError {
  const details =
    shape === 'A'
      ? { feature: requirement.feature, upgradeUrl: policy.upgradeUrl }
      : { feature: requirement.feature, currentTier: caller.tierName, requiredTier: requirement.minPlan, upgradeUrl: policy.upgradeUrl };
  return new ApiError(403, policy.forbiddenMessage, details, shape);
}
