// Turns counter values into what the client sees: the usage headers on every keyed response and
// the 429 (shape B) with Retry-After when a window is exhausted.
//
// RateLimit fields follow draft-ietf-httpapi-ratelimit-headers-11 (May 2026): both fields are
// Structured-Field Lists of String items with parameters, one item per policy:
//   RateLimit-Policy: "daily";q=100;w=86400, "monthly";q=3000;w=2592000
//   RateLimit: "daily";r=57;t=3600, "monthly";r=2943;t=1900800
// q = quota, w = window length in seconds (the calendar month's own length: 28–31 days),
// r = remaining, t = seconds until the window resets (its calendar end, so Retry-After on a 429
// never points earlier than the effective window, as the draft asks).
import { ALLOWED, DAILY_EXCEEDED, MONTHLY_EXCEEDED } from './counter-table.js';
import { monthLengthSeconds, secondsUntil, type QuotaWindows } from './windows.js';
import { integerText } from '../../text/number-text.js';

import type { QuotaCounts, QuotaDecision } from '../quota-hook.js';

export type { QuotaDecision };

/** Limits applying to one caller; keep one object per plan and policy (header parts are cached by it). */
export interface BucketLimits {
  /** Lowercase plan name shown in X-GEOAPI-Plan and details.tier. */
  plan: string;
  daily: number;
  monthly: number;
}

export const DAILY_MESSAGE = 'Daily usage limit exceeded. Please try again tomorrow or contact support for higher limits.';
export const MONTHLY_MESSAGE = 'Monthly usage limit exceeded. Please upgrade for higher limits.';

/** The parts of the headers that change only with the limits or the month (cached per limits object). */
interface StaticParts {
  monthId: number;
  dailyLimit: string;
  monthlyLimit: string;
  policy: string;
}
const staticParts = new WeakMap<BucketLimits, StaticParts>();

function staticPartsOf(limits: BucketLimits, monthId: number): StaticParts {
  let parts = staticParts.get(limits);
  if (parts === undefined || parts.monthId !== monthId) {
    parts = {
      monthId,
      dailyLimit: String(limits.daily),
      monthlyLimit: String(limits.monthly),
      policy: `"daily";q=${limits.daily};w=86400, "monthly";q=${limits.monthly};w=${monthLengthSeconds(monthId)}`,
    };
    staticParts.set(limits, parts);
  }
  return parts;
}

export function usageHeaders(limits: BucketLimits, windows: QuotaWindows, nowMs: number, dayUsed: number, monthUsed: number): Record<string, string> {
  const parts = staticPartsOf(limits, windows.monthId);
  const dayReset = secondsUntil(nowMs, windows.dayResetMs);
  const monthReset = secondsUntil(nowMs, windows.monthResetMs);
  return {
    'X-GEOAPI-Plan': limits.plan,
    'X-GEOAPI-Daily-Used': integerText(dayUsed),
    'X-GEOAPI-Daily-Limit': parts.dailyLimit,
    'X-GEOAPI-Monthly-Used': integerText(monthUsed),
    'X-GEOAPI-Monthly-Limit': parts.monthlyLimit,
    'RateLimit-Policy': parts.policy,
    // integerText, not String() or `${}`: new counts every request (runtime/text/number-text.ts).
    RateLimit: `"daily";r=${integerText(Math.max(0, limits.daily - dayUsed))};t=${integerText(dayReset)}, "monthly";r=${integerText(Math.max(0, limits.monthly - monthUsed))};t=${integerText(monthReset)}`,
  };
}

/**
 * The decision for an outcome of CounterTable.consume / the Redis script.
 * `tier` is the caller's plan as 403 details name it; `upgradeUrl` comes from the policy file.
 * `flatRefusal` (compat "csc"): the 429 body also carries {error, limit, period, tier, upgradeUrl}
 * at the top level, as the public service's clients read it (decisions.md).
 */
export function decide(
  outcome: number,
  limits: BucketLimits,
  windows: QuotaWindows,
  nowMs: number,
  dayUsed: number,
  monthUsed: number,
  tier: string,
  upgradeUrl: string,
  flatRefusal = false,
): QuotaDecision {
  const headers = usageHeaders(limits, windows, nowMs, dayUsed, monthUsed);
  const counts: QuotaCounts = { dayUsed, monthUsed, dailyLimit: limits.daily, monthlyLimit: limits.monthly, dayResetMs: windows.dayResetMs, monthResetMs: windows.monthResetMs };
  if (outcome === ALLOWED) return { allowed: true, headers, counts };
  const monthly = outcome === MONTHLY_EXCEEDED;
  if (!monthly && outcome !== DAILY_EXCEEDED) throw new Error(`quota: expected an outcome 0, 1 or 2, found ${outcome}`);
  const resetMs = monthly ? windows.monthResetMs : windows.dayResetMs;
  // Cache-Control: no-store is the HTTP layer's: it sets it on every error response.
  headers['Retry-After'] = String(secondsUntil(nowMs, resetMs));
  const message = monthly ? MONTHLY_MESSAGE : DAILY_MESSAGE;
  const limit = monthly ? limits.monthly : limits.daily;
  const period = monthly ? 'monthly' : 'daily';
  const details = { limit, period, resetAt: new Date(resetMs).toISOString(), upgradeUrl, tier };
  const shapeB = { status: 'error', message, details };
  const body = JSON.stringify(flatRefusal ? { ...shapeB, error: message, limit, period, tier, upgradeUrl } : shapeB);
  return { allowed: false, headers, status: 429, body, counts };
}
