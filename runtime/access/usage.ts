// GET /v1/usage's answer (decisions.md): the calling key's counts after this request, from the
// quota decision the HTTP layer already has. When the caller is not counted (quotas off, or a plan
// without a quota) the counts are 0 and the limits null (nothing limits the caller); the reset
// times are still the calendar windows' ends.
import type { PlanName, UsageReport } from '../contract/index.js';
import type { QuotaCounts } from './quota-hook.js';
import { windowsAt } from './quota/windows.js';

export function usageReportOf(plan: PlanName, counts: QuotaCounts | undefined, nowMs: number): UsageReport {
  if (counts === undefined) {
    const windows = windowsAt(nowMs);
    return {
      plan,
      dailyUsed: 0,
      dailyLimit: null,
      monthlyUsed: 0,
      monthlyLimit: null,
      resetDaily: new Date(windows.dayResetMs).toISOString(),
      resetMonthly: new Date(windows.monthResetMs).toISOString(),
    };
  }
  return {
    plan,
    dailyUsed: counts.dayUsed,
    dailyLimit: counts.dailyLimit,
    monthlyUsed: counts.monthUsed,
    monthlyLimit: counts.monthlyLimit,
    resetDaily: new Date(counts.dayResetMs).toISOString(),
    resetMonthly: new Date(counts.monthResetMs).toISOString(),
  };
}
