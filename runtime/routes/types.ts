// The contract between runtime/http (the only code touching uWebSockets.js) and the operations.
// An operation is data (path pattern, feature gate, error shape) plus a synchronous handler that
// turns a parsed request into a Reply. Handlers never see uWS objects. The vocabulary both sides
// share (Caller, Tier, ApiError, ErrorShape) lives in runtime/contract.
import type { Caller, ErrorShape, Tier, UsageReport } from '../contract/index.js';
import type { Engine } from '../engine/index.js';
import type { Store } from '../store/types.js';

export interface RequestContext {
  /** Path parameters by name, percent-decoded. */
  params: Record<string, string>;
  /** Strictly parsed query: one value per name (duplicates were already refused with a 400). */
  query: ReadonlyMap<string, string>;
  /** Lower-cased request header lookup. A body that depends on a header must be a BodyReply (the cache does not key on headers). */
  header(name: string): string | undefined;
  caller: Caller;
  /** The engine over `store` (engineFor(store)): the lookups and searches handlers ask. */
  engine: Engine;
  store: Store;
  /** Request time (injectable clock for tests). */
  now: Date;
  /** Checks the caller's plan for a policy feature (e.g. 'fieldsFiltering'); throws the operation's 403 when missing. */
  requireFeature(feature: string): void;
  /** True when the caller's plan includes the feature (for silently ignored parameters). The answers are part of the response cache key. */
  hasFeature(feature: string): boolean;
  /** The caller's quota usage after counting this request (GET /v1/usage). */
  usage(): UsageReport;
}

/** An answer whose body the handler has already written (errors, time-dependent or per-key bodies). */
export interface BodyReply {
  status: number;
  /** JSON text or prepared bytes. */
  body: string | Uint8Array;
  /** Operation headers (Cache-Control, …). ETag, X-Cache and 304s belong to the HTTP layer. */
  headers?: Record<string, string>;
}

/**
 * A 200 whose body depends only on the store and the request's inputs: path parameters, query,
 * the caller's field tiers and the features the handler asked about with hasFeature. The HTTP
 * layer keys its response cache on exactly those, and calls render() only on a miss; a handler
 * whose body depends on anything else (the clock, the key's usage) returns a BodyReply.
 */
export interface RenderedReply {
  status: 200;
  /**
   * JSON text, or its UTF-8 bytes (the row writers of runtime/render/row-json.ts). Bytes may be
   * borrowed, valid until the next render on the thread: use them (or copy them) at once.
   */
  render(): string | Uint8Array;
  headers?: Record<string, string>;
  /** How long a rendered body may be served from the cache (ms); default: as long as the store. */
  maxAgeMs?: number;
}

export type Reply = BodyReply | RenderedReply;

/** A 200 rendered on demand (and cached by the HTTP layer). */
export function rendered(render: () => string | Uint8Array, headers?: Record<string, string>, maxAgeMs?: number): RenderedReply {
  const reply: RenderedReply = { status: 200, render };
  if (headers !== undefined) reply.headers = headers;
  if (maxAgeMs !== undefined) reply.maxAgeMs = maxAgeMs;
  return reply;
}

/** The body of a reply, rendering it if needed (tests, benchmarks, tools that call handlers directly); rendered bytes are copied out. */
export function bodyOf(reply: Reply): string | Uint8Array {
  if (!('render' in reply)) return reply.body;
  const body = reply.render();
  return typeof body === 'string' ? body : Buffer.from(body);
}

/**
 * One parameter an operation reads, as data: the handler's parsing and the OpenAPI document
 * (runtime/routes/openapi.ts) both come from it (the parsers take their bounds from the same
 * constants; test/routes/openapi checks that every name a handler reads is declared and that the
 * declared bounds and enums are the ones parsing enforces).
 */
export interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  /** `list`: comma-separated values (fields=a,b), each one of `enum`. */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'list';
  description: string;
  required?: boolean;
  minimum?: number;
  maximum?: number;
  default?: string | number | boolean;
  enum?: readonly string[];
  minLength?: number;
  maxLength?: number;
  /** ECMAScript regex the (trimmed) value must match. */
  pattern?: string;
  /** Policy feature the parameter needs: below it, a 403 (or, with `ignoredBelow`, silently not honoured). */
  feature?: string;
  ignoredBelow?: boolean;
  /** A value that works on the fixture and full datasets (documentation, console, replay tests). */
  example?: string;
}

/** The 200 body: a schema of schemas/http per field tier (the caller's plan picks one), or one for all. */
export type ResponseDoc =
  | { schema: string; list?: boolean }
  | { tierOf: 'tier' | 'countryTier'; schemas: Readonly<Partial<Record<Tier, string>>>; list?: boolean };

/** What the OpenAPI document says of an operation besides its parameters. */
export interface OperationDoc {
  summary: string;
  description?: string;
  tag: string;
  response: ResponseDoc;
  /** Statuses besides 200, 401, 403, 429 and 500: 400, 404, 304 (conditional requests). */
  statuses: readonly number[];
}

export interface Operation {
  /** Stable name, also the key into the policy file's `operations`. */
  name: string;
  /** uWS route pattern, e.g. '/v1/countries/:ciso/states'. */
  path: string;
  errorShape: ErrorShape;
  /** Every path and query parameter the handler reads (optional only for test operations). */
  params?: readonly ParamSpec[];
  doc?: OperationDoc;
  handle(ctx: RequestContext): Reply;
}
