// One worker's uWS app: every operation path registered natively, and the per-request pipeline
// key → gate → quota → path/query parsing → operation.handle → one corked write.
// Handlers answer synchronously, so no request outlives its callback; res.end() buffers whatever
// the socket cannot take at once. Every handler still registers a (shared, no-op) onAborted first:
// uWS aborts the whole process when a handler returns without having answered and without an
// abort handler, so a bug that skips the answer costs one connection, not the server.
import { randomBytes } from 'node:crypto';
import type { QuotaDecision, QuotaGate } from '../access/quota-hook.js';
import { forbidden } from '../access/gate.js';
import type { KeyIndex } from '../access/key-index.js';
import type { FeatureRequirement, OperationPolicy, Policy } from '../access/policy.js';
import { ApiError, type Caller, type ErrorShape } from '../contract/index.js';
import { engineFor, type Engine } from '../engine/index.js';
import type { Operation, Reply, RequestContext } from '../routes/types.js';
import type { Store } from '../store/types.js';
import { CompressionCache } from './encoding.js';
import { decodePathParam, parseQuery, QueryError } from './query.js';
import { errorBody, negotiatesEncoding, UNAUTHORIZED_BODY, writeResponse, type Outgoing, type ResponseSettings } from './respond.js';
import type { UwsApp, UwsHttpRequest, UwsHttpResponse, UwsModule } from './uws.js';

export const NOT_FOUND_MESSAGE = 'Not found.';
export const METHOD_NOT_ALLOWED_MESSAGE = 'Method not allowed. Every geoapi operation is a GET.';
export const INTERNAL_ERROR_MESSAGE = 'Internal server error.';
const KEY_HEADER = 'x-geoapi-key';

/** What can change while the worker runs (key file and policy reloads, shutdown). */
export interface WorkerState {
  policy: Policy;
  keys: KeyIndex;
  quota: QuotaGate;
  draining: boolean;
}

export interface AppOptions {
  uws: UwsModule;
  operations: readonly Operation[];
  store: Store;
  state: WorkerState;
  /** Fixed request time for tests (ms since epoch), or null for the real clock. */
  fixedNowMs: number | null;
  threadIndex: number;
  log(message: string): void;
}

interface Route {
  op: Operation;
  paramNames: string[];
  policy: OperationPolicy;
}

/** Path parameter names of a uWS pattern, in order: '/v1/countries/:ciso/states/:siso' → ['ciso', 'siso']. */
export function paramNamesOf(pattern: string): string[] {
  return pattern.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
}

/** Checks operations against the policy: unique names and paths, an entry for each. Throws naming the problem. */
export function checkOperations(operations: readonly Operation[], policy: Policy): void {
  const names = new Set<string>();
  const paths = new Set<string>();
  for (const op of operations) {
    if (names.has(op.name)) throw new Error(`two operations are named ${op.name}`);
    if (paths.has(op.path)) throw new Error(`two operations use the path ${op.path}`);
    if (!op.path.startsWith('/')) throw new Error(`operation ${op.name}: path must start with "/", found ${JSON.stringify(op.path)}`);
    if (op.errorShape !== 'A' && op.errorShape !== 'B') throw new Error(`operation ${op.name}: errorShape must be "A" or "B", found ${JSON.stringify(op.errorShape)}`);
    if (!policy.operations.has(op.name)) throw new Error(`operation ${op.name} (${op.path}) has no entry in the policy's "operations"; add one (feature: null opens it to every plan)`);
    names.add(op.name);
    paths.add(op.path);
  }
}

class Context implements RequestContext {
  constructor(
    readonly params: Record<string, string>,
    readonly query: ReadonlyMap<string, string>,
    readonly caller: Caller,
    readonly engine: Engine,
    readonly store: Store,
    readonly now: Date,
    private readonly req: UwsHttpRequest,
    private readonly route: Route,
    private readonly policy: Policy,
  ) {}

  header(name: string): string | undefined {
    const value = this.req.getHeader(name.toLowerCase());
    return value === '' ? undefined : value;
  }

  private requirement(feature: string): FeatureRequirement {
    const found = this.route.policy.features.get(feature);
    if (found === undefined) throw new Error(`operation ${this.route.op.name} asked for feature ${JSON.stringify(feature)}, which the policy does not declare`);
    return found;
  }

  requireFeature(feature: string): void {
    const requirement = this.requirement(feature);
    if (this.caller.rank < requirement.minRank) throw forbidden(this.policy, this.route.op.errorShape, requirement, this.caller);
  }

  hasFeature(feature: string): boolean {
    return this.caller.rank >= this.requirement(feature).minRank;
  }
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const ignoreAbort = (): void => {};

function isReply(value: unknown): value is Reply {
  if (typeof value !== 'object' || value === null) return false;
  const reply = value as Reply;
  return Number.isInteger(reply.status) && reply.status >= 200 && reply.status <= 599 && (typeof reply.body === 'string' || reply.body instanceof Uint8Array);
}

/** Builds the worker's app; returns it with a function re-reading route policies after a policy reload. */
export function buildApp(options: AppOptions): { app: UwsApp; refreshPolicy(): void } {
  const { uws, store, state, log } = options;
  const engine = engineFor(store);
  const app = uws.App();
  const idPrefix = `${randomBytes(4).toString('hex')}-${options.threadIndex.toString(36)}-`;
  let requestCount = 0;
  const settings: ResponseSettings = {
    dataVersion: store.manifest.dataVersion,
    privateMaxAgeSeconds: state.policy.privateMaxAgeSeconds,
    compression: new CompressionCache(),
    corsExposeHeaders: '*',
    vary: 'Accept-Encoding',
    log,
  };

  const routes: Route[] = options.operations.map((op) => ({ op, paramNames: paramNamesOf(op.path), policy: state.policy.operations.get(op.name)! }));

  function refreshPolicy(): void {
    for (const route of routes) {
      const policy = state.policy.operations.get(route.op.name);
      // checkOperations ran on the new policy before it was installed, so this always exists.
      if (policy) route.policy = policy;
    }
    settings.privateMaxAgeSeconds = state.policy.privateMaxAgeSeconds;
    settings.vary = state.policy.corsOrigins.length > 0 ? 'Accept-Encoding, Origin' : 'Accept-Encoding';
  }
  refreshPolicy();

  const nextRequestId = (): string => idPrefix + (++requestCount).toString(36);

  function corsOriginFor(req: UwsHttpRequest): string | undefined {
    const allowed = state.policy.corsOrigins;
    if (allowed.length === 0) return undefined;
    const origin = req.getHeader('origin');
    if (origin === '') return undefined;
    if (allowed.includes('*')) return '*';
    return allowed.includes(origin) ? origin : undefined;
  }

  function presentedKey(req: UwsHttpRequest): string {
    const key = req.getHeader(KEY_HEADER);
    if (key !== '') return key;
    for (const alias of state.policy.aliasKeyHeaders) {
      const value = req.getHeader(alias);
      if (value !== '') return value;
    }
    return '';
  }

  function send(res: UwsHttpResponse, req: UwsHttpRequest, out: Outgoing, requestId: string): void {
    try {
      // Small bodies without prepared variants go out as they are: no need to read Accept-Encoding.
      writeResponse(res, out, requestId, negotiatesEncoding(out) ? req.getHeader('accept-encoding') : '', settings, state.draining);
    } catch (error) {
      // A response left unanswered would make uWS terminate the process: answer plainly, or drop the connection.
      log(`request ${requestId}: writing the response failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      try {
        res.cork(() => res.writeStatus('500 Internal Server Error').end(errorBody('A', INTERNAL_ERROR_MESSAGE, { requestId }), true));
      } catch {
        try {
          res.close();
        } catch {
          // Already answered: nothing left to do.
        }
      }
    }
  }

  function internalError(route: Route | null, req: UwsHttpRequest, requestId: string, error: unknown): Outgoing {
    const where = route ? `${route.op.name} ` : '';
    log(`500 request ${requestId} ${where}${safeUrl(req)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return { status: 500, body: errorBody(route?.op.errorShape ?? 'A', INTERNAL_ERROR_MESSAGE, { requestId }) };
  }

  function answer(route: Route, req: UwsHttpRequest): Outgoing | Deferred {
    const nowMs = options.fixedNowMs ?? Date.now();
    const caller = state.keys.lookup(presentedKey(req), nowMs);
    if (caller === null) return { status: 401, body: UNAUTHORIZED_BODY };
    const shape: ErrorShape = route.op.errorShape;
    const gate = route.policy.gate;
    if (gate !== null && caller.rank < gate.minRank) {
      // Not counted, but a keyed answer: it carries the caller's usage headers all the same.
      const refusal = apiErrorOut(forbidden(state.policy, shape, gate, caller), shape, caller, undefined);
      const usage = state.quota.peek?.(caller, new Date(nowMs));
      if (usage instanceof Promise) {
        return { pending: usage.then((usageHeaders) => ({ ...refusal, usageHeaders }), () => refusal), req: detachRequest(req, route.paramNames.length) };
      }
      refusal.usageHeaders = usage;
      return refusal;
    }

    const now = new Date(nowMs);
    const decision = state.quota.consume(caller, now);
    if (decision instanceof Promise) {
      // Quota in Redis: uWS's req is only valid during this callback, so copy what the rest needs.
      const detached = detachRequest(req, route.paramNames.length);
      return { pending: decision.then((settled) => afterQuota(route, detached, caller, now, settled)), req: detached };
    }
    return afterQuota(route, req, caller, now, decision);
  }

  function afterQuota(route: Route, req: UwsHttpRequest, caller: Caller, now: Date, decision: QuotaDecision): Outgoing {
    const shape: ErrorShape = route.op.errorShape;
    const usageHeaders = decision.headers;
    if (!decision.allowed) {
      return {
        status: decision.status ?? 429,
        body: decision.body ?? errorBody('B', 'Usage limit exceeded.'),
        usageHeaders,
        plan: caller.plan,
      };
    }

    try {
      let params = NO_PARAMS;
      if (route.paramNames.length > 0) {
        params = {};
        for (let i = 0; i < route.paramNames.length; i++) {
          const name = route.paramNames[i]!;
          params[name] = decodePathParam(req.getParameter(i), name);
        }
      }
      const query = parseQuery(req.getQuery());
      const reply = route.op.handle(new Context(params, query, caller, engine, store, now, req, route, state.policy));
      if (!isReply(reply)) throw new Error(`operation ${route.op.name} returned ${JSON.stringify(reply)?.slice(0, 200)} instead of a Reply {status, body}`);
      return { status: reply.status, body: reply.body, gzip: reply.gzip, br: reply.br, headers: reply.headers, usageHeaders, plan: caller.plan };
    } catch (error) {
      if (error instanceof ApiError) return apiErrorOut(error, shape, caller, usageHeaders);
      if (error instanceof QueryError) return { status: 400, body: errorBody(shape, error.message), usageHeaders, plan: caller.plan };
      throw error;
    }
  }

  /** Writes a deferred answer when it settles, unless the client went away (replaces the no-op onAborted). */
  function answerLater(res: UwsHttpResponse, route: Route, deferred: Deferred, requestId: string): void {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    void deferred.pending
      .catch((error: unknown) => internalError(route, deferred.req, requestId, error))
      .then((out) => {
        if (aborted) return;
        out.corsOrigin = corsOriginFor(deferred.req);
        send(res, deferred.req, out, requestId);
      });
  }

  function apiErrorOut(error: ApiError, shape: ErrorShape, caller: Caller, usageHeaders: Record<string, string> | undefined): Outgoing {
    const status = Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : 500;
    return { status, body: errorBody(error.shape ?? shape, error.message, error.details), usageHeaders, plan: caller.plan };
  }

  for (const route of routes) {
    app.get(route.op.path, (res, req) => {
      res.onAborted(ignoreAbort);
      const requestId = nextRequestId();
      let out: Outgoing | Deferred;
      try {
        out = answer(route, req);
      } catch (error) {
        out = internalError(route, req, requestId, error);
      }
      if ('pending' in out) {
        answerLater(res, route, out, requestId);
        return;
      }
      out.corsOrigin = corsOriginFor(req);
      send(res, req, out, requestId);
    });

    // CORS preflight when origins are configured; otherwise OPTIONS is one more method not allowed.
    app.options(route.op.path, (res, req) => {
      res.onAborted(ignoreAbort);
      const requestId = nextRequestId();
      const origin = corsOriginFor(req);
      if (origin === undefined) {
        send(res, req, methodNotAllowed(route.op.errorShape), requestId);
        return;
      }
      const allowHeaders = [KEY_HEADER, ...state.policy.aliasKeyHeaders].join(', ');
      send(res, req, {
        status: 204,
        body: '',
        corsOrigin: origin,
        headers: { 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Allow-Headers': allowHeaders, 'Access-Control-Max-Age': '600', 'Cache-Control': 'no-store' },
      }, requestId);
    });

    app.any(route.op.path, (res, req) => {
      res.onAborted(ignoreAbort);
      send(res, req, methodNotAllowed(route.op.errorShape), nextRequestId());
    });
  }

  app.any('/*', (res, req) => {
    res.onAborted(ignoreAbort);
    send(res, req, { status: 404, body: errorBody('A', NOT_FOUND_MESSAGE) }, nextRequestId());
  });

  return { app, refreshPolicy };
}

/** An answer waiting for an asynchronous quota decision, with the request copied out of uWS. */
interface Deferred {
  pending: Promise<Outgoing>;
  req: UwsHttpRequest;
}

/** A copy of everything the pipeline reads from a uWS request (headers keep their first value, as getHeader does). */
function detachRequest(req: UwsHttpRequest, paramCount: number): UwsHttpRequest {
  const headers = new Map<string, string>();
  req.forEach((name, value) => {
    if (!headers.has(name)) headers.set(name, value);
  });
  const params: string[] = [];
  for (let i = 0; i < paramCount; i++) params.push(req.getParameter(i));
  const url = req.getUrl();
  const method = req.getMethod();
  const query = req.getQuery();
  return {
    getHeader: (lowerCaseKey) => headers.get(lowerCaseKey) ?? '',
    getParameter: (index) => params[index] ?? '',
    getUrl: () => url,
    getMethod: () => method,
    getQuery: () => query,
    forEach: (cb) => headers.forEach((value, name) => cb(name, value)),
  };
}

function methodNotAllowed(shape: ErrorShape): Outgoing {
  return { status: 405, body: errorBody(shape, METHOD_NOT_ALLOWED_MESSAGE), headers: { Allow: 'GET' } };
}

function safeUrl(req: UwsHttpRequest): string {
  try {
    const url = req.getUrl();
    return JSON.stringify(url.length > 200 ? `${url.slice(0, 200)}…` : url);
  } catch {
    return '(url unavailable)';
  }
}
