// The contract between runtime/http (the only code touching uWebSockets.js) and the operations.
// An operation is data (path pattern, feature gate, error shape) plus a synchronous handler that
// turns a parsed request into a Reply. Handlers never see uWS objects.
import type { Store } from '../store/types.js';

/** Shape A: {error}; shape B: {status: 'error', message, details?}. */
export type ErrorShape = 'A' | 'B';

export type PlanName = 'community' | 'starter' | 'supporter' | 'professional' | 'business' | 'legacy' | 'playground';
/** Field-access tier (spec "Data-access tiers"). */
export type Tier = 'basic' | 'coordinates' | 'full';

export interface Caller {
  keyId: string;
  plan: PlanName;
  /** Plan name as shown in 403 details (`currentTier`): lowercase plan name. */
  tierName: string;
  /** Field tier for entities other than countries. */
  tier: Tier;
  /** Countries have two tiers only (basic, full). */
  countryTier: 'basic' | 'full';
  /** Rank for gates: community/playground 0, starter/legacy 1, supporter 2, professional 3, business 4. */
  rank: number;
}

export interface RequestContext {
  /** Path parameters by name, percent-decoded. */
  params: Record<string, string>;
  /** Strictly parsed query: one value per name (duplicates were already refused with a 400). */
  query: ReadonlyMap<string, string>;
  /** Lower-cased request header lookup. */
  header(name: string): string | undefined;
  caller: Caller;
  store: Store;
  /** Request time (injectable clock for tests). */
  now: Date;
  /** Checks the caller's plan for a policy feature (e.g. 'fieldsFiltering'); throws the operation's 403 when missing. */
  requireFeature(feature: string): void;
  /** True when the caller's plan includes the feature (for silently ignored parameters). */
  hasFeature(feature: string): boolean;
}

export interface Reply {
  status: number;
  /** JSON text or prepared bytes. Empty for 304. */
  body: string | Uint8Array;
  headers?: Record<string, string>;
  /** Prepared compressed variants of `body` (large bodies prepared once). */
  gzip?: Uint8Array;
  br?: Uint8Array;
}

export interface Operation {
  /** Stable name, also the key into the policy file's `operations`. */
  name: string;
  /** uWS route pattern, e.g. '/v1/countries/:ciso/states'. */
  path: string;
  errorShape: ErrorShape;
  handle(ctx: RequestContext): Reply;
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
