// The contract between runtime/http (the only code touching uWebSockets.js) and the operations.
// An operation is data (path pattern, feature gate, error shape) plus a synchronous handler that
// turns a parsed request into a Reply. Handlers never see uWS objects. The vocabulary both sides
// share (Caller, Tier, ApiError, ErrorShape) lives in runtime/contract.
import type { Caller, ErrorShape, UsageReport } from '../contract/index.js';
import type { Engine } from '../engine/index.js';
import type { Store } from '../store/types.js';

export interface RequestContext {
  /** Path parameters by name, percent-decoded. */
  params: Record<string, string>;
  /** Strictly parsed query: one value per name (duplicates were already refused with a 400). */
  query: ReadonlyMap<string, string>;
  /** Lower-cased request header lookup. */
  header(name: string): string | undefined;
  caller: Caller;
  /** The engine over `store` (engineFor(store)): the lookups and searches handlers ask. */
  engine: Engine;
  store: Store;
  /** Request time (injectable clock for tests). */
  now: Date;
  /** Checks the caller's plan for a policy feature (e.g. 'fieldsFiltering'); throws the operation's 403 when missing. */
  requireFeature(feature: string): void;
  /** True when the caller's plan includes the feature (for silently ignored parameters). */
  hasFeature(feature: string): boolean;
  /** The caller's quota usage after counting this request (GET /v1/usage). */
  usage(): UsageReport;
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
