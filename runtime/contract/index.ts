// The API's shared vocabulary: who is calling (plan, field tier), how errors are shaped, and the
// error handlers throw. A leaf module (imports nothing of ours), so access/, engine/, render/,
// routes/ and http/ can all name these without importing one another.

/** Shape A: {error}; shape B: {status: 'error', message, details?}. */
export type ErrorShape = 'A' | 'B';

/** A plan's name, as declared by the policy file's `plans` (data/policy.json). */
export type PlanName = string;

/** Field-access tier (spec "Data-access tiers"). */
export type Tier = 'basic' | 'coordinates' | 'full';

/** Countries have two tiers only. */
export type CountryTier = 'basic' | 'full';

export interface Caller {
  keyId: string;
  plan: PlanName;
  /** Plan name as shown in 403 details (`currentTier`): lowercase plan name. */
  tierName: string;
  /** Field tier for entities other than countries. */
  tier: Tier;
  /** Countries have two tiers only (basic, full). */
  countryTier: CountryTier;
  /** The plan's rank for gates (policy file: a feature open at rank r is open to every plan of rank >= r). */
  rank: number;
}

/**
 * The calling key's quota usage (GET /v1/usage, decisions.md). Counts include the request asking.
 * A limit is null when nothing limits the caller (quotas off, or a plan without a quota).
 */
export interface UsageReport {
  plan: PlanName;
  dailyUsed: number;
  dailyLimit: number | null;
  monthlyUsed: number;
  monthlyLimit: number | null;
  /** ISO times when the daily / monthly windows start again (00:00 UTC; the 1st of the month). */
  resetDaily: string;
  resetMonthly: string;
}

/** Thrown by handlers and helpers; the HTTP layer renders it in the operation's shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Shape B `details`; in shape A its keys become siblings of `error` (403: feature, upgradeUrl). */
    readonly details?: Record<string, unknown>,
    /** Overrides the operation's shape where the spec mixes them within one operation. */
    readonly shape?: ErrorShape,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
