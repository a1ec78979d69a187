// A RequestContext for calling operation handlers directly (unit tests of the routes, without
// HTTP). Plans and features come from the real policy file, so gates behave as in the server;
// contract tests use the real server instead (test/support/server.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageReportOf } from '../../../../runtime/access/usage.js';
import { engineFor } from '../../../../runtime/engine/index.js';
import { ApiError, type Caller, type PlanName, type Tier } from '../../../../runtime/contract/index.js';
import { bodyOf, type BodyReply, type Operation, type RequestContext } from '../../../../runtime/routes/types.js';
import type { Store } from '../../../../runtime/store/types.js';

interface PolicyFile {
  upgradeUrl: string;
  forbiddenMessage: string;
  plans: Record<string, { rank: number; tier: Tier; countryTier: 'basic' | 'full' }>;
  features: Record<string, string>;
  operations: Record<string, { feature: string | null; featureOverrides?: Record<string, string> }>;
}

import { repoRoot } from '../../../support/paths.js';
export { repoRoot };
const policy = JSON.parse(readFileSync(resolve(repoRoot, 'data/policy.json'), 'utf8')) as PolicyFile;

export function callerOf(plan: PlanName): Caller {
  const p = policy.plans[plan]!;
  return { keyId: `test-${plan}`, plan, tierName: plan, tier: p.tier, countryTier: p.countryTier, rank: p.rank };
}

function minPlan(operation: Operation, feature: string): string {
  return policy.operations[operation.name]?.featureOverrides?.[feature] ?? policy.features[feature] ?? 'business';
}

export interface CallOptions {
  plan?: PlanName;
  params?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  now?: Date;
}

export function contextFor(store: Store, operation: Operation, options: CallOptions = {}): RequestContext {
  const caller = callerOf(options.plan ?? 'business');
  const has = (feature: string) => caller.rank >= policy.plans[minPlan(operation, feature)]!.rank;
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    params: options.params ?? {},
    query: new Map(Object.entries(options.query ?? {})),
    header: (name) => headers[name.toLowerCase()],
    caller,
    engine: engineFor(store),
    store,
    now: options.now ?? new Date(),
    requireFeature(feature) {
      if (!has(feature)) {
        const details = operation.errorShape === 'A'
          ? { feature, upgradeUrl: policy.upgradeUrl }
          : { feature, currentTier: caller.tierName, requiredTier: minPlan(operation, feature), upgradeUrl: policy.upgradeUrl };
        throw new ApiError(403, policy.forbiddenMessage, details, operation.errorShape);
      }
    },
    hasFeature: has,
    usage: () => usageReportOf(caller.plan, undefined, (options.now ?? new Date()).getTime()),
  };
}

export interface Called {
  status: number;
  body: unknown;
  /** The reply with its body rendered (a RenderedReply's render() called once). */
  reply?: BodyReply;
  error?: ApiError;
}

/** Runs the handler (operation gate included); an ApiError becomes {status, body: {error|message}}. */
export function call(store: Store, operation: Operation, options: CallOptions = {}): Called {
  const ctx = contextFor(store, operation, options);
  try {
    const gate = policy.operations[operation.name]?.feature;
    if (gate) ctx.requireFeature(gate);
    const handled = operation.handle(ctx);
    const reply: BodyReply = { status: handled.status, body: bodyOf(handled) };
    if (handled.headers !== undefined) reply.headers = handled.headers;
    const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8');
    return { status: reply.status, body: text === '' ? null : JSON.parse(text), reply };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const shape = err.shape ?? operation.errorShape;
    const body = shape === 'A' ? { error: err.message, ...err.details } : { status: 'error', message: err.message, ...(err.details ? { details: err.details } : {}) };
    return { status: err.status, body, error: err };
  }
}
