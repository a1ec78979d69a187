// GET /v1/usage (decisions.md, every plan, counted like any request): the calling key's quota
// usage, this request included. The numbers are the quota decision's (the HTTP layer hands them
// over as ctx.usage()); with quotas off, or for a plan without a quota, the counts are 0 and the
// limits null.
import type { Operation } from '../types.js';
import { cacheControlHeaders, NO_STORE } from '../reference/common.js';

// Changes with every request: never stored by a cache.
const HEADERS = cacheControlHeaders(NO_STORE);

export const usageOperation: Operation = {
  name: 'usage',
  path: '/v1/usage',
  errorShape: 'A',
  params: [],
  doc: {
    tag: 'Account',
    summary: "The calling key's usage: requests counted today and this month, the limits, when they reset",
    description: 'Counted like any request; no-store. With quotas off, or for a plan without a quota, the counts are 0 and the limits null.',
    response: { schema: 'usage' },
    statuses: [],
  },
  handle(ctx) {
    const usage = ctx.usage();
    const body = JSON.stringify({
      plan: usage.plan,
      dailyUsed: usage.dailyUsed,
      dailyLimit: usage.dailyLimit,
      monthlyUsed: usage.monthlyUsed,
      monthlyLimit: usage.monthlyLimit,
      resetDaily: usage.resetDaily,
      resetMonthly: usage.resetMonthly,
    });
    return { status: 200, body, headers: HEADERS };
  },
};
