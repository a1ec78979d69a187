// One worker's uWS app: every operation path registered natively, and the per-request pipeline
// key → gate → quota → path/query parsing → operation.handle → body (response cache, ETag) →
// one corked write, as named
// top-level steps read top to bottom (serveRequest onwards), with one error path (failure).
// Handlers answer synchronously, so no request outlives its callback; res.end() buffers whatever
// the socket cannot take at once. Every handler still registers a (shared, no-op) onAborted first:
// uWS aborts the whole process when a handler returns without having answered and without an
// abort handler, so a bug that skips the answer costs one connection, not the server.
import { randomBytes } from 'node:crypto';
import { noQuotaGate, type QuotaDecision, type QuotaGate } from '../access/quota-hook.js';
import { callerFor, forbidden } from '../access/gate.js';
import type { KeyIndex } from '../access/key-index.js';
import type { FeatureRequirement, OperationPolicy, Policy } from '../access/policy.js';
import { ApiError, type Caller, type ErrorShape, type UsageReport } from '../contract/index.js';
import { usageReportOf } from '../access/usage.js';
import { engineFor, type Engine } from '../engine/index.js';
import type { Operation, Reply, RequestContext } from '../routes/types.js';
import { sampleRequests, socketWarmUpRequests, warmUpRequests, type WarmUpRequest } from '../routes/warm-up.js';
import type { Store } from '../store/types.js';
import { docRoutes, type ConsoleSettings } from './docs.js';
import { DEFAULT_COMPRESSION, type CompressionSettings } from './encoding.js';
import { decodePathParam, parseQuery, QueryError } from './query.js';
import { NO_OPERATION, redactedTarget, type RequestObserver } from './observe.js';
import { StandInRequest, StandInResponse, targetOf, warmUpKeys } from './pipeline-warm-up.js';
import { ANSWER, CONTEXT, Keepsakes, REPLY } from './keepsakes.js';
import { Rebalancer } from './rebalance.js';
import { registerProbes } from './probes.js';
import { errorBody, negotiatesEncoding, UNAUTHORIZED_BODY, writeResponse, type Outgoing, type ResponseSettings } from './respond.js';
import { bodyEtag, exerciseResponseCache, PreparedBody, ResponseCache, responseKey } from './response-cache.js';
import { socketShareOf, socketSoak } from './socket-soak.js';
import { trimSharedJsonBytes } from '../render/row-json.js';
import type { UwsApp, UwsHttpRequest, UwsHttpResponse, UwsModule } from './uws.js';

export const NOT_FOUND_MESSAGE = 'Not found.';
export const METHOD_NOT_ALLOWED_MESSAGE = 'Method not allowed. Every geoapi operation is a GET.';
export const INTERNAL_ERROR_MESSAGE = 'Internal server error.';
export const BODY_ON_GET_MESSAGE = 'A GET request carries no body (Content-Length > 0, Transfer-Encoding or two Content-Length headers); the connection is closed.';
const KEY_HEADER = 'x-geoapi-key';

/** What can change while the worker runs (key file and policy reloads, shutdown). */
export interface WorkerState {
  policy: Policy;
  keys: KeyIndex;
  quota: QuotaGate;
  draining: boolean;
  /** Every thread has run its preparation steps (the main thread says so): /readyz answers ready from then on. */
  warm: boolean;
}

export interface AppOptions {
  uws: UwsModule;
  operations: readonly Operation[];
  store: Store;
  state: WorkerState;
  /** Fixed request time for tests (ms since epoch), or null for the real clock. */
  fixedNowMs: number | null;
  threadIndex: number;
  /** Budget of the worker's response cache in bytes (0: off). */
  responseCacheBytes: number;
  /** Requests sent through the pipeline before the first ready (soakStep); default 0. */
  warmUpRequests?: number;
  /** Closes a keep-alive connection now and then while this thread answers more than its share (rebalance.ts); default: never. */
  rebalancer?: Rebalancer;
  /** Whether and how answers are compressed (default DEFAULT_COMPRESSION). */
  compression?: CompressionSettings;
  log(message: string): void;
  /** The console's settings when --console is on; null: /console is a 404. */
  console?: ConsoleSettings | null;
  /** Request counters and request log events (observe.ts). */
  observer: RequestObserver;
}

interface Route {
  op: Operation;
  /** The operation's index in the observer's counters. */
  index: number;
  paramNames: string[];
  policy: OperationPolicy;
  /**
   * Per plan, the start of the keys its answers of this route are kept under by request target
   * (targetKey): none while the response cache is off.
   */
  targetPrefixes: ReadonlyMap<string, string>;
  /**
   * This route's answers in a row that could not be kept by target (targetKeeps): from
   * TARGET_MISFITS on, its requests skip the target lookup, which would only miss (phone parse's
   * no-store answers, postcode pages), until an answer that can be kept comes.
   */
  targetMisfits: number;
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
  /** hasFeature's answers, in order: part of the response key (they silently change bodies). */
  honoured = '';
  /** The handler read the clock, the caller's usage or a header: its answer may depend on more than the request target (targetKeeps). */
  readBeyondTarget = false;

  constructor(
    readonly params: Record<string, string>,
    readonly query: ReadonlyMap<string, string>,
    readonly caller: Caller,
    readonly engine: Engine,
    readonly store: Store,
    private readonly time: Date,
    private readonly req: UwsHttpRequest,
    private readonly route: Route,
    private readonly policy: Policy,
    private readonly decision: QuotaDecision,
  ) {}

  get now(): Date {
    this.readBeyondTarget = true;
    return this.time;
  }

  usage(): UsageReport {
    this.readBeyondTarget = true;
    return usageReportOf(this.caller.plan, this.decision.counts, this.time.getTime());
  }

  header(name: string): string | undefined {
    this.readBeyondTarget = true;
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
    const has = this.caller.rank >= this.requirement(feature).minRank;
    this.honoured += has ? `${feature}=1;` : `${feature}=0;`;
    return has;
  }
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const ignoreAbort = (): void => {};

function isReply(value: unknown): value is Reply {
  if (typeof value !== 'object' || value === null) return false;
  const reply = value as Reply;
  if ('render' in reply) return reply.status === 200 && typeof reply.render === 'function';
  return Number.isInteger(reply.status) && reply.status >= 200 && reply.status <= 599 && (typeof reply.body === 'string' || reply.body instanceof Uint8Array);
}

/**
 * The snapshot a request is answered from, with what belongs to it: its engine, and the response
 * settings carrying its data version, and the responses rendered from it (the one response
 * cache; it starts empty with each snapshot, and its ETags name the data version). A request reads
 * `scope.serving` once, when it starts; a swap replaces the whole object (swapStore), so requests
 * in flight (a quota decision awaited in Redis) finish on the snapshot they started on.
 */
interface Serving {
  store: Store;
  engine: Engine;
  responses: ResponseCache;
  settings: ResponseSettings;
}

/** What every step of the pipeline reads: the worker's state and the snapshot being served. */
interface Scope {
  serving: Serving;
  state: WorkerState;
  fixedNowMs: number | null;
  log(message: string): void;
  /** The X-Request-ID of each request, in order. */
  requestIds: RequestIds;
  observer: RequestObserver;
  /** The last request's objects per route, held so V8 keeps the code made for them (keepsakes.ts). */
  keepsakes: Keepsakes;
  /** Says which answers close their connection to even out the threads' shares (the warm-up's counts and never closes one). */
  rebalancer: Rebalancer;
}

// The pipeline's objects are made by these alone, the warm-up's as the real ones: one hidden class
// each, so the code V8 optimizes for the warm-up's requests stays valid for the first real ones. A
// copy made by spreading one and replacing some fields got a class of its own, and the first real
// requests deoptimized prepareBody and observe ("wrong map", 2–3 per start; none now, 3 starts).
function servingOf(store: Store, engine: Engine, responses: ResponseCache, settings: ResponseSettings): Serving {
  return { store, engine, responses, settings };
}

/** A store a thread serves or is about to (BuiltApp.prepareStore), and what serves it: null once neither. */
interface ServingTarget {
  readonly store: Store;
  serving(): Serving | null;
}

function targetFor(scope: Scope, pending: { serving: Serving | null }, store: Store): ServingTarget {
  return { store, serving: () => (scope.serving.store === store ? scope.serving : pending.serving?.store === store ? pending.serving : null) };
}

/** `settings` for another data version: a copy of one hidden class with the first (a spread made a class of its own, "wrong map" in writeResponse after a swap). */
function settingsFor(dataVersion: string, settings: ResponseSettings): ResponseSettings {
  const { privateMaxAgeSeconds, corsExposeHeaders, vary, cscHeaders, compression, log } = settings;
  return { dataVersion, privateMaxAgeSeconds, corsExposeHeaders, vary, cscHeaders, compression, log };
}

function scopeOf(serving: Serving, state: WorkerState, fixedNowMs: number | null, log: (message: string) => void, requestIds: RequestIds, observer: RequestObserver, keepsakes: Keepsakes, rebalancer: Rebalancer): Scope {
  return { serving, state, fixedNowMs, log, requestIds, observer, keepsakes, rebalancer };
}

/**
 * Request ids: `prefix` and a count in base 36. A class, not a closure: the warm-up's and the
 * thread's then share one `next` (see servingOf). With a closure each, serveRequest's code
 * optimized during the warm-up called the warm-up's, and the first real request deoptimized it
 * ("wrong call target").
 */
class RequestIds {
  private count = 0;

  constructor(private readonly prefix: string) {}

  next(): string {
    return this.prefix + (++this.count).toString(36);
  }

  /** How many ids were drawn: one per request the thread has started. */
  get issued(): number {
    return this.count;
  }
}

/** A WorkerState (see servingOf): the worker's, and the warm-up's own. */
export function workerStateOf(policy: Policy, keys: KeyIndex, quota: QuotaGate, draining: boolean, warm: boolean): WorkerState {
  return { policy, keys, quota, draining, warm };
}

/** What buildApp returns: the app, and the two changes it takes while running. */
export interface BuiltApp {
  app: UwsApp;
  /** Re-reads route policies after a policy reload. */
  refreshPolicy(): void;
  /**
   * Makes what serving `store` takes besides the store (its engine, an empty response cache) ahead
   * of a swap to it, so that prefillSteps(store) can run while the current store still serves.
   * Replaces any store prepared before.
   */
  prepareStore(store: Store): void;
  /** Forgets the store prepareStore made ready (a swap called off). */
  dropPreparedStore(): void;
  /**
   * Answers every request from now on from `store` (live snapshot swap), with what prepareStore
   * made for it when it was prepared; returns the store it replaces.
   */
  swapStore(store: Store): Store;
  /** The response cache of the snapshot now served (its counters feed the metrics). */
  responses(): ResponseCache;
  /**
   * Steps that render the lists without parameters ahead for every plan (prefillSteps) and send
   * warm-up requests through the pipeline, into what serves `store` (the current store, or the one
   * prepareStore made ready: a swap's run before it commits); `first`: the thread's first store,
   * before it is ready. A step does nothing once `store` is neither.
   */
  prefillSteps(store: Store, first: boolean): PreparationStep[];
  /** Requests the soak has sent through the pipeline so far (all stores). */
  warmUpRequestsSent(): number;
  /** Requests the thread has started answering so far (its request ids; the warm-up's are apart). */
  requestsStarted(): number;
}

/** Builds the worker's app. */
export function buildApp(options: AppOptions): BuiltApp {
  const { uws, store, state, log } = options;
  // Closures below must not capture `options` or `store`: they hold the first snapshot, which a swap releases.
  const { responseCacheBytes, observer, operations } = options;
  const soakCount = options.warmUpRequests ?? 0;
  let soaked = 0;
  const consoleSettings = options.console ?? null;
  const app = uws.App();
  const idPrefix = `${randomBytes(4).toString('hex')}-${options.threadIndex.toString(36)}-`;
  const settings: ResponseSettings = {
    dataVersion: store.manifest.dataVersion,
    privateMaxAgeSeconds: state.policy.privateMaxAgeSeconds,
    corsExposeHeaders: '*',
    vary: 'Accept-Encoding',
    cscHeaders: false,
    compression: options.compression ?? DEFAULT_COMPRESSION,
    log,
  };
  const serving = servingOf(store, engineFor(store), new ResponseCache(responseCacheBytes, store.manifest.dataVersion), settings);
  const routes: Route[] = operations.map((op) => ({ op, index: observer.indexOf(op.name), paramNames: paramNamesOf(op.path), policy: state.policy.operations.get(op.name)!, targetPrefixes: NO_TARGETS, targetMisfits: 0 }));
  const keepsakes = new Keepsakes(Math.max(-1, ...routes.map((route) => route.index)) + 1);
  const scope = scopeOf(serving, state, options.fixedNowMs, log, new RequestIds(idPrefix), options.observer, keepsakes, options.rebalancer ?? Rebalancer.off());
  const refreshPolicy = (): void => refreshRoutes(scope, routes);
  refreshPolicy();

  // Before the operations: /healthz and /readyz, without a key, neither counted nor logged.
  registerProbes(app, { draining: () => state.draining, warm: () => state.warm });
  // The GET handlers are the warm-up's over a socket too (socketSoakStep): one closure per route.
  const held = { scope };
  for (const route of routes) {
    app.get(route.op.path, getHandler(held, route));
    // HEAD: the GET's pipeline, status and headers (Content-Length of the GET's body), no body.
    app.head(route.op.path, (res, req) => serveRequest(scope, route, res, req, true));
    // CORS preflight when origins are configured; otherwise OPTIONS is one more method not allowed.
    app.options(route.op.path, (res, req) => servePreflight(scope, route, res, req));
    app.any(route.op.path, (res, req) => {
      res.onAborted(ignoreAbort);
      write(scope, scope.serving.settings, res, req, methodNotAllowed(route.op.errorShape), scope.requestIds.next());
    });
  }
  // Documentation (runtime/http/docs.ts): no key, not counted.
  for (const route of docRoutes(operations, () => state.policy, consoleSettings)) {
    app.get(route.path, (res, req) => {
      res.onAborted(ignoreAbort);
      write(scope, scope.serving.settings, res, req, route.answer(), scope.requestIds.next());
    });
  }
  const unmatched = observer.indexOf(NO_OPERATION);
  app.any('/*', (res, req) => {
    res.onAborted(ignoreAbort);
    const startedAt = performance.now();
    const requestId = scope.requestIds.next();
    const method = req.getMethod();
    write(scope, scope.serving.settings, res, req, { status: 404, body: errorBody('A', NOT_FOUND_MESSAGE), headOnly: method === 'head' }, requestId);
    scope.observer.answered(unmatched, NO_OPERATION, method, 404, startedAt, requestId, () => redactedTarget(req.getUrl(), req.getQuery()), undefined);
  });
  /** What serves the store a swap is about to switch to (prepareStore), filled before it does. */
  const pending: { serving: Serving | null } = { serving: null };
  const servingNew = (next: Store): Serving =>
    servingOf(next, engineFor(next), new ResponseCache(responseCacheBytes, next.manifest.dataVersion), settingsFor(next.manifest.dataVersion, scope.serving.settings));
  const swapStore = (next: Store): Store => {
    const previous = scope.serving;
    const made = pending.serving?.store === next ? pending.serving : servingNew(next);
    pending.serving = null;
    // Policy-derived settings carry over (a policy reload since prepareStore changed the current ones); the data version and the response cache are the new snapshot's.
    scope.serving = servingOf(next, made.engine, made.responses, settingsFor(next.manifest.dataVersion, previous.settings));
    scope.keepsakes.forget();
    return previous.store;
  };
  return {
    app,
    refreshPolicy,
    prepareStore: (next) => {
      pending.serving = servingNew(next);
    },
    dropPreparedStore: () => {
      pending.serving = null;
    },
    swapStore,
    responses: () => scope.serving.responses,
    prefillSteps: (store, first) => prefillSteps(scope, routes, targetFor(scope, pending, store), first ? soakCount : 0, (sent) => (soaked += sent), uws),
    warmUpRequestsSent: () => soaked,
    requestsStarted: () => scope.requestIds.issued,
  };
}

/** After a policy reload: each route's policy entry, cache lifetime and Vary. */
function refreshRoutes(scope: Scope, routes: Route[]): void {
  const { state } = scope;
  const settings = scope.serving.settings;
  // A plan's features and tiers may differ under the new policy: answers kept under the targets of
  // the old one are never found again (the ring drops them in time).
  const generation = (policyGenerations += 1);
  const byTarget = scope.serving.responses.budgetBytes > 0;
  for (const route of routes) {
    const policy = state.policy.operations.get(route.op.name);
    // checkOperations ran on the new policy before it was installed, so this always exists.
    if (policy) route.policy = policy;
    route.targetPrefixes = byTarget ? targetPrefixesOf(route, state.policy, generation) : NO_TARGETS;
  }
  settings.privateMaxAgeSeconds = state.policy.privateMaxAgeSeconds;
  settings.vary = state.policy.corsOrigins.length > 0 ? 'Accept-Encoding, Origin' : 'Accept-Encoding';
  settings.cscHeaders = state.policy.compat === 'csc';
}

/** Separates targetKey's parts: a valid request's raw path parameters and query hold no NUL (the parsers refuse control characters). */
const TARGET_SEP = '\u0000';
/** Policies routes were refreshed for, in this process (targetPrefixesOf). */
let policyGenerations = 0;
const NO_TARGETS: ReadonlyMap<string, string> = new Map();
/** See Route.targetMisfits. */
const TARGET_MISFITS = 64;

/**
 * A route's targetPrefixes: the route, the policy's generation, and the plan's class — its tiers
 * and its answer to each feature of the route (hasFeature, requireFeature), all a handler may
 * read of its caller — so plans of one class share answers, as they share response keys.
 */
function targetPrefixesOf(route: Route, policy: Policy, generation: number): Map<string, string> {
  const classes = new Map<string, number>();
  const prefixes = new Map<string, string>();
  for (const plan of Object.keys(policy.plans)) {
    const caller = callerFor('target', plan, policy);
    let text = caller.tier + TARGET_SEP + caller.countryTier + TARGET_SEP;
    for (const requirement of route.policy.features.values()) text += caller.rank >= requirement.minRank ? '1' : '0';
    let id = classes.get(text);
    if (id === undefined) classes.set(text, (id = classes.size));
    prefixes.set(plan, `${route.index}${TARGET_SEP}${generation}${TARGET_SEP}${id}${TARGET_SEP}`);
  }
  return prefixes;
}

// ---- The request pipeline, in order: key → gate → quota → parse → handle → body → write. ------
// Each step returns an answer or passes on to the next; whatever a step throws goes to `failure`,
// the one error path (shaped ApiError/QueryError answers, else a logged 500).

/** One GET (or HEAD): runs the pipeline and writes its answer, now or when an asynchronous quota decision settles. */
function serveRequest(scope: Scope, route: Route, res: UwsHttpResponse, req: UwsHttpRequest, head: boolean): void {
  const startedAt = performance.now();
  const requestId = scope.requestIds.next();
  if (carriesBody(req)) {
    refuseBody(res, requestId);
    return;
  }
  // Read once: the whole request is answered from this snapshot, even if a swap happens meanwhile.
  const serving = scope.serving;
  let answered = false;
  try {
    let out: Outgoing | Deferred;
    try {
      out = authorize(scope, serving, route, req, requestId);
    } catch (error) {
      out = failure(scope, route, req, requestId, error, null);
    }
    if ('pending' in out) {
      scope.keepsakes.keep(route.index, 0, ANSWER, out); // no status yet
      writeLater(scope, serving, res, route, out, requestId, head, startedAt);
      answered = true; // writeLater registers its own onAborted
      return;
    }
    out.corsOrigin = corsOriginFor(scope, req);
    out.headOnly = head;
    write(scope, serving.settings, res, req, out, requestId);
    answered = true;
    scope.keepsakes.keep(route.index, out.status, ANSWER, out);
    observe(scope, route, req, out, requestId, startedAt);
  } finally {
    // uWS aborts the process when a handler returns unanswered without an abort handler: a bug
    // that skips the answer costs one connection, not the server. (Registered only then: each
    // registration is a crossing into uWS and a handle.)
    if (!answered) res.onAborted(ignoreAbort);
  }
}

/**
 * Step 0: a GET or HEAD carrying a body — Content-Length > 0, any Transfer-Encoding, or two
 * Content-Length headers — is a request-smuggling shape: whatever follows it on the connection
 * cannot be framed the same way by every hop.
 */
function carriesBody(req: UwsHttpRequest): boolean {
  if (req.getHeader('transfer-encoding') !== '') return true;
  const length = req.getHeader('content-length');
  if (length === '') return false;
  if (length !== '0') return true;
  let count = 0;
  req.forEach((name) => {
    if (name === 'content-length') count++;
  });
  return count > 1;
}

/**
 * Step 0's answer: 400 and the connection closed. Answered on the next turn of the event loop, not
 * synchronously: uWS goes on parsing whatever else the same read holds right after a synchronous
 * answer (so a smuggled request would be answered), while data arriving behind a response still
 * pending makes it drop the connection unparsed. A lone body is answered 400; a request trailing
 * in the same read closes the connection with nothing parsed or answered after it.
 */
function refuseBody(res: UwsHttpResponse, requestId: string): void {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  res.onData(ignoreAbort);
  setImmediate(() => {
    if (aborted) return;
    res.cork(() => {
      res.writeStatus('400 Bad Request').writeHeader('Content-Type', 'application/json; charset=utf-8').writeHeader('X-Request-ID', requestId).writeHeader('Cache-Control', 'no-store');
      res.end(errorBody('B', BODY_ON_GET_MESSAGE), true);
    });
  });
}

/** Step 7: counters and request log events (observe.ts); the logged target is redacted (no key, no phone number). */
function observe(scope: Scope, route: Route, req: UwsHttpRequest, out: Outgoing, requestId: string, startedAt: number): void {
  scope.observer.answered(route.index, route.op.name, out.headOnly === true ? 'head' : 'get', out.status, startedAt, requestId, () => redactedTarget(req.getUrl(), req.getQuery()), out.cacheStatus);
}

/** Steps 1–3: the key (401), the operation's plan gate (403, not counted) and the quota. */
function authorize(scope: Scope, serving: Serving, route: Route, req: UwsHttpRequest, requestId: string): Outgoing | Deferred {
  const { state } = scope;
  const nowMs = scope.fixedNowMs ?? Date.now();
  const caller = state.keys.lookup(presentedKey(scope, req), nowMs);
  if (caller === null) return { status: 401, body: UNAUTHORIZED_BODY };

  const gate = route.policy.gate;
  if (gate !== null && caller.rank < gate.minRank) return gateRefusal(scope, route, req, caller, gate, nowMs);

  const now = new Date(nowMs);
  const decision = state.quota.consume(caller, now);
  if (decision instanceof Promise) {
    // Quota in Redis: uWS's req is only valid during this callback, so copy what the rest needs.
    const detached = detachRequest(req, route.paramNames.length);
    return { pending: decision.then((settled) => () => afterQuota(scope, serving, route, detached, requestId, { caller, now, decision: settled })), req: detached };
  }
  return afterQuota(scope, serving, route, req, requestId, { caller, now, decision });
}

/** Step 1: the key from X-GEOAPI-KEY, else the first alias header present (compat "csc" adds X-CSCAPI-KEY to them). */
function presentedKey(scope: Scope, req: UwsHttpRequest): string {
  const key = req.getHeader(KEY_HEADER);
  if (key !== '') return key;
  for (const alias of scope.state.policy.aliasKeyHeaders) {
    const value = req.getHeader(alias);
    if (value !== '') return value;
  }
  return '';
}

/** Step 2: a plan below the operation's gate. Not counted, but a keyed answer: it carries the caller's usage headers all the same. */
function gateRefusal(scope: Scope, route: Route, req: UwsHttpRequest, caller: Caller, gate: FeatureRequirement, nowMs: number): Outgoing | Deferred {
  const shape = route.op.errorShape;
  const refusal = apiErrorOut(forbidden(scope.state.policy, shape, gate, caller), shape, caller, undefined);
  const usage = scope.state.quota.peek?.(caller, new Date(nowMs));
  if (usage instanceof Promise) {
    return { pending: usage.then((usageHeaders) => () => ({ ...refusal, usageHeaders }), () => () => refusal), req: detachRequest(req, route.paramNames.length) };
  }
  refusal.usageHeaders = usage;
  return refusal;
}

/** A caller that passed the gate, and the quota's decision (step 3) for this request. */
interface Counted {
  caller: Caller;
  now: Date;
  decision: QuotaDecision;
}

/**
 * Steps 3–6: the quota's refusal (429), else the answer the response cache holds under the
 * request target (targetKey), else parse the path and query, handle, and prepare the body.
 */
function afterQuota(scope: Scope, serving: Serving, route: Route, req: UwsHttpRequest, requestId: string, counted: Counted): Outgoing {
  const { caller, now, decision } = counted;
  scope.observer.quotaDecision(decision.failOpen === true ? 'fail_open' : decision.allowed ? 'ok' : 'limited');
  const usageHeaders = decision.headers;
  if (!decision.allowed) {
    return { status: decision.status ?? 429, body: decision.body ?? errorBody('B', 'Usage limit exceeded.'), usageHeaders, plan: caller.plan };
  }
  try {
    const nowMs = now.getTime();
    const target = route.targetMisfits < TARGET_MISFITS ? targetKey(route, caller.plan, req) : null;
    if (target !== null) {
      // A miss is counted once the answer's key is known (prepareBody).
      const held = serving.responses.get(target, nowMs, false);
      if (held !== undefined) return outgoing(200, '', held, 'HIT', held.headers, usageHeaders, caller.plan);
    }
    const { params, query } = parseRequest(route, req);
    const ctx = new Context(params, query, caller, serving.engine, serving.store, now, req, route, scope.state.policy, decision);
    const reply = route.op.handle(ctx);
    if (!isReply(reply)) throw new Error(`operation ${route.op.name} returned ${JSON.stringify(reply)?.slice(0, 200)} instead of a Reply {status, body} or {status: 200, render}`);
    scope.keepsakes.keep(route.index, 200, CONTEXT, ctx);
    scope.keepsakes.keep(route.index, reply.status, REPLY, reply);
    return prepareBody(serving, route, req, ctx, reply, usageHeaders, nowMs, target);
  } catch (error) {
    return failure(scope, route, req, requestId, error, counted);
  }
}

const NO_STORE = 'no-store';

/**
 * Step 3½: the key an answer is kept under by its request target, looked up before the request is
 * parsed: the route, policy and plan class (targetPrefixesOf), the path parameters and query as
 * uWS hands them over; null while the cache is off. The parse and the handler are functions of
 * these, given the store (the cache's own): the response key (keyOf) follows from the target, and
 * answers with other inputs are kept by response key only (targetKeeps). Spellings of one request
 * (parameters in another order, other escapes) are kept apart, each with the same ETag.
 */
function targetKey(route: Route, plan: string, req: UwsHttpRequest): string | null {
  let key = route.targetPrefixes.get(plan);
  if (key === undefined) return null;
  for (let i = 0; i < route.paramNames.length; i++) key += req.getParameter(i) + TARGET_SEP;
  return key + (req.getQuery() ?? '');
}

/**
 * Whether `reply` may be kept under its request target: a cacheable rendered answer without an
 * age limit, from a handler that read nothing beyond the target (Context.readBeyondTarget: the
 * clock, usage or headers), with operation headers the cache can keep beside it (none, or a
 * shared frozen object: not per-answer page headers).
 */
function targetKeeps(cache: ResponseCache, ctx: Context, reply: Reply): boolean {
  return 'render' in reply && reply.maxAgeMs === undefined && reply.headers?.['Cache-Control'] !== NO_STORE && !ctx.readBeyondTarget && cache.keepsHeaders(reply.headers);
}

/**
 * Step 6: the body. A RenderedReply comes from the response cache (X-Cache HIT) or is rendered,
 * ETagged and kept there (MISS): under its request target when targetKeeps allows (a miss there
 * was counted by nobody yet), else under its response key, looked up here. Any other 200 gets its
 * ETag now (MISS). No-store answers (phone
 * parse) get neither: the spec gives them no validator. The key holds everything a rendered body
 * may depend on (responseKey); the ETag hashes key, data version and the body's length and CRC-32
 * (bodyEtag), so each fields/sort permutation, tier and snapshot has its own.
 */
function prepareBody(serving: Serving, route: Route, req: UwsHttpRequest, ctx: Context, reply: Reply, usageHeaders: Record<string, string> | undefined, nowMs: number, target: string | null): Outgoing {
  const cache = serving.responses;
  const plan = ctx.caller.plan;
  if (route.targetPrefixes.size > 0) {
    if (!targetKeeps(cache, ctx, reply)) {
      route.targetMisfits = Math.min(route.targetMisfits + 1, TARGET_MISFITS);
      target = null;
    } else {
      // Looked up in afterQuota, or (the route's lookups skipped) kept there from now on.
      route.targetMisfits = 0;
      target ??= targetKey(route, plan, req);
    }
  }
  const noStore = reply.headers?.['Cache-Control'] === NO_STORE;
  if (!('render' in reply)) {
    if (reply.status !== 200 || noStore) return outgoing(reply.status, reply.body, undefined, undefined, reply.headers, usageHeaders, plan);
    const etag = bodyEtag(keyOf(route, ctx), cache.dataVersion, reply.body);
    return outgoing(200, reply.body, new PreparedBody(reply.body, etag), 'MISS', reply.headers, usageHeaders, plan);
  }
  if (noStore) return outgoing(200, reply.render(), undefined, undefined, reply.headers, usageHeaders, plan);
  const key = keyOf(route, ctx);
  if (target !== null) {
    // Missed under its target (afterQuota): kept there, with its response key's ETag.
    cache.countMiss();
    return outgoing(200, '', cache.insert(target, reply.render(), Infinity, key, reply.headers), 'MISS', reply.headers, usageHeaders, plan);
  }
  const held = cache.get(key, nowMs);
  if (held !== undefined) return outgoing(200, '', held, 'HIT', reply.headers, usageHeaders, plan);
  const prepared = cache.insert(key, reply.render(), reply.maxAgeMs === undefined ? Infinity : nowMs + reply.maxAgeMs);
  return outgoing(200, '', prepared, 'MISS', reply.headers, usageHeaders, plan);
}

/** A prefilled answer's body may take at most this share of the cache's budget. */
const PREFILL_MAX_SHARE = 1 / 16;
/** The request of a prefilled answer: no headers, no path parameters, no query. */
const NO_HEADERS = { getHeader: () => '', getParameter: () => '', getQuery: () => undefined } as unknown as UwsHttpRequest;
const PREFILL_DECISION: QuotaDecision = { allowed: true, headers: {} };

/**
 * Steps that put in the response cache, for every plan, the answers of the operations taking no
 * path parameter asked without a query (the country list, the region list, …) — as the first such
 * request would (step 6), but ahead of it: the country list, decoded and serialised from 250
 * records, takes 15–20 ms cold, and a key of each plan would pay it once per thread. Answers
 * already held, gated above a plan, or larger than PREFILL_MAX_SHARE of the budget are skipped.
 * They fill what `target` returns: what serves their store now, or what will once a swap to it
 * commits (prepareStore); a step does nothing once it returns null (another swap happened meanwhile).
 */
function prefillSteps(scope: Scope, routes: readonly Route[], target: ServingTarget, soakCount: number, soaked: (sent: number) => void, uws: UwsModule): PreparationStep[] {
  const store = target.store;
  // First the cache's ring, written once (ResponseCache.prefaultSteps): the answers below and the first requests land on touched pages.
  const steps: PreparationStep[] = target.serving()?.responses.prefaultSteps() ?? [];
  /** Routes whose answer was too large for one plan: not rendered again for the others. */
  const tooLarge = new Set<Route>();
  for (const route of routes) {
    if (route.paramNames.length > 0) continue;
    for (const plan of Object.keys(scope.state.policy.plans)) {
      steps.push(() => {
        const serving = target.serving();
        const policy = scope.state.policy;
        if (serving === null || policy.plans[plan] === undefined || tooLarge.has(route)) return;
        const caller = callerFor('prefill', plan, policy);
        if (route.policy.gate !== null && caller.rank < route.policy.gate.minRank) return;
        const now = new Date(scope.fixedNowMs ?? Date.now());
        const ctx = new Context(NO_PARAMS, new Map(), caller, serving.engine, serving.store, now, NO_HEADERS, route, policy, PREFILL_DECISION);
        let reply: Reply;
        try {
          reply = route.op.handle(ctx);
        } catch {
          return; // needs a parameter (an ISO lookup): nothing to prepare
        }
        if (!('render' in reply) || reply.headers?.['Cache-Control'] === NO_STORE) return;
        const key = keyOf(route, ctx);
        const cache = serving.responses;
        // Where the first request would look for it: under its target (no parameters, no query) when kept so.
        const underTarget = targetKeeps(cache, ctx, reply) ? targetKey(route, plan, NO_HEADERS) : null;
        if (cache.has(underTarget ?? key)) return;
        const body = reply.render();
        const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
        if (length > cache.budgetBytes * PREFILL_MAX_SHARE) {
          tooLarge.add(route);
          return;
        }
        if (underTarget !== null) cache.insert(underTarget, body, Infinity, key, reply.headers);
        else cache.insert(key, body, reply.maxAgeMs === undefined ? Infinity : now.getTime() + reply.maxAgeMs);
      });
    }
  }
  steps.push(...pipelineSteps(scope, routes, target, soakCount, soaked, uws));
  // Warming and prefilling rendered lists of every size: the thread keeps no buffer grown for the largest.
  steps.push(() => trimSharedJsonBytes());
  return steps;
}

/** How long sending the warm-up requests over a socket may take (socket-soak.ts). */
const SOCKET_SOAK_BUDGET_MS = 4000;

/**
 * The warm-up over a socket: a uWS app of the thread's own on 127.0.0.1, whose GET routes run the
 * warm-up's pipeline (warmScope's) through the handlers the thread's app has (getHandler), sent
 * socketWarmUpRequests in rotation. The step resolves once they are answered.
 */
function socketSoakStep(scope: Scope, uws: UwsModule, routes: readonly Route[], store: Store, count: number, warmScope: () => { scope: Scope; key: string } | null, soaked: (sent: number) => void): PreparationStep {
  return () => {
    const warm = warmScope();
    if (warm === null) return;
    const held = { scope: warm.scope };
    const byName = new Map(routes.map((route) => [route.op.name, route]));
    const targets = socketWarmUpRequests(store, routes.map((route) => route.op)).flatMap((request) => {
      const route = byName.get(request.operation);
      return route === undefined ? [] : [targetOf(route.op.path, request)];
    });
    // Interleaved (a fixed shuffle), so a count below the targets' still covers every operation.
    let seed = 0x2545f491;
    for (let i = targets.length - 1; i > 0; i--) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const j = seed % (i + 1);
      [targets[i], targets[j]] = [targets[j]!, targets[i]!];
    }
    const register = (app: UwsApp): void => {
      for (const route of routes) app.get(route.op.path, getHandler(held, route));
    };
    return socketSoak({ uws, register, targets, key: warm.key, count, budgetMs: SOCKET_SOAK_BUDGET_MS, log: scope.log }).then((result) => {
      soaked(result.answered);
      // Its app listens no more; holding the thread's scope (of the same hidden class) rather than
      // null, it lets the warm-up's cache and keys go.
      held.scope = scope;
    });
  };
}

/**
 * The GET handler of `route`, serving the scope `held` holds. One function for the thread's app
 * and the warm-up's over a socket: closures made at one place share V8's feedback and optimized
 * code, so what the warm-up compiles serves the real requests.
 */
function getHandler(held: { scope: Scope }, route: Route): (res: UwsHttpResponse, req: UwsHttpRequest) => void {
  return (res, req) => serveRequest(held.scope, route, res, req, false);
}

/** Whether this thread has run exerciseResponseCache (pipelineSteps). */
let responseCacheExercised = false;

/** Each operation's request goes through the pipeline this many times: a miss, then a hit of the response cache. */
const PIPELINE_ROUNDS = 2;
/**
 * The pipeline warm-up's own response cache, dropped with it: enough for the page each request
 * answers (its second round a hit). At 4 MiB, ring and bookkeeping (~5.7 MiB per thread) stayed
 * reachable until the thread's first real requests.
 */
const PIPELINE_CACHE_BYTES = 256 << 10;

/**
 * Steps that send one warm-up request of each operation (sampleRequests in routes/warm-up.ts; a
 * page where it pages) through the pipeline itself, serveRequest, with stand-ins for uWS's request
 * and response (pipeline-warm-up.ts). The warm-up calls handlers directly: without this, the
 * first real request of a thread compiled the pipeline around them. Measured on the full dataset
 * (server side, a country's detail first): 1.6–2.8 ms before, 0.8–1.0 ms with it, ~0.1 ms warm.
 * Nothing of the thread's own is touched: the requests carry a key of their own, in a key index
 * of their own, count in a quota gate of their own (the thread's kind, over its own counters:
 * QuotaGate.forWarmUp; none in Redis mode), and are cached, counted and logged apart (a response
 * cache and an observer of their own, dropped afterwards). A request not answered 200 is logged:
 * the warm-up request or the pipeline is broken. Then, with `soakCount`, the soak: two thirds in
 * process (soakStep), a third over a loopback socket (socketSoakStep) before the in-process
 * part's last IN_PROCESS_AFTER_SOCKET, with the same scope.
 */
function pipelineSteps(scope: Scope, routes: readonly Route[], target: ServingTarget, soakCount: number, soaked: (sent: number) => void, uws: UwsModule): PreparationStep[] {
  const store = target.store;
  let warm: { scope: Scope; key: string; requests: Map<string, WarmUpRequest> } | null = null;
  const steps: PreparationStep[] = [
    () => {
      // Before the requests below, which V8 optimizes the cache's methods on (exerciseResponseCache).
      // Once per thread: V8's feedback is the functions', so a swap's preparation has it already.
      const serving = target.serving();
      if (serving === null || responseCacheExercised) return;
      exerciseResponseCache(serving.responses.dataVersion);
      responseCacheExercised = true;
    },
    () => {
      const serving = target.serving();
      if (serving === null) return;
      const { keys, key } = warmUpKeys(scope.state.policy);
      const requests = new Map<string, WarmUpRequest>();
      // A page rather than a whole list where the operation pages: the pipeline's code is the same, a 500-city list's render and compression cost 30–45 ms.
      for (const request of sampleRequests(store, routes.map((route) => route.op))) {
        if (!requests.has(request.operation) || (request.query['limit'] !== undefined && requests.get(request.operation)!.query['limit'] === undefined)) requests.set(request.operation, request);
      }
      const { state } = scope;
      const warmServing = servingOf(serving.store, serving.engine, new ResponseCache(PIPELINE_CACHE_BYTES, serving.responses.dataVersion), serving.settings);
      // A quota gate like the thread's, over counters of its own (QuotaGate.forWarmUp).
      const warmState = workerStateOf(state.policy, keys, state.quota.forWarmUp?.() ?? noQuotaGate, state.draining, state.warm);
      // The thread's keepsakes: the warm-up's objects are held until real requests replace them, so a
      // full collection between ready and the first load throws none of the code away.
      warm = { scope: scopeOf(warmServing, warmState, scope.fixedNowMs, scope.log, new RequestIds('warm-up-'), scope.observer.quiet(), scope.keepsakes, scope.rebalancer.forWarmUp()), key, requests };
    },
  ];
  for (const route of routes) {
    steps.push(() => {
      const request = warm?.requests.get(route.op.name);
      if (warm === null || request === undefined || target.serving() === null) return;
      for (let round = 0; round < PIPELINE_ROUNDS; round++) {
        const res = new StandInResponse();
        const req = new StandInRequest(route.op.path, request, warm.key);
        serveRequest(warm.scope, route, res, req, false);
        if (!res.status.startsWith('200 ')) scope.log(`warm-up: ${route.op.name} through the pipeline answered ${res.status}, expected 200`);
        scope.keepsakes.keepStandIns(req, res);
      }
    });
  }
  if (soakCount > 0) {
    const warmScope = (): { scope: Scope; key: string } | null => (warm !== null && target.serving() !== null ? warm : null);
    const overSocket = socketShareOf(soakCount);
    const inProcess = soakCount - overSocket;
    const afterSocket = overSocket > 0 ? Math.min(IN_PROCESS_AFTER_SOCKET, Math.floor(inProcess / 2)) : 0;
    steps.push(soakStep(routes, store, inProcess - afterSocket, warmScope, soaked));
    if (overSocket > 0) steps.push(socketSoakStep(scope, uws, routes, store, overSocket, warmScope, soaked));
    if (afterSocket > 0) steps.push(soakStep(routes, store, afterSocket, warmScope, soaked));
  }
  steps.push(() => {
    warm = null;
  });
  return steps;
}

/**
 * A preparation step: runs in one event-loop turn (requests are served between turns); one that
 * returns true runs again on the next turn; one that returns a promise is done when it settles.
 */
export type PreparationStep = () => boolean | void | Promise<void>;

/**
 * Of the in-process soak, the requests sent after the socket's. uWS's objects deoptimize
 * serveRequest and parseRequest at the socket soak's start (code made for the stand-ins), and its
 * ~3,000 requests were not enough for V8 to optimize them again: they were compiled during the
 * first real load, which waited meanwhile. After the socket's, these requests leave them compiled
 * for both kinds of object.
 */
const IN_PROCESS_AFTER_SOCKET = 1500;

/** The longest one turn of the soak runs: a request arriving meanwhile waits no longer. */
const SOAK_SLICE_MS = 20;
/** The soak stops after this long whatever its count: a slow machine still gets ready. */
const SOAK_BUDGET_MS = 5000;

/**
 * The soak (why: DEFAULT_WARM_UP_REQUESTS in config.ts): `count` requests through the pipeline
 * (serveRequest with the stand-ins of pipeline-warm-up.ts and the warm-up's own key, cache and
 * observer), the warm-up requests of every operation (routes/warm-up.ts: samples, places spread
 * over the data, every dial code) in rotation, SOAK_SLICE_MS per turn, until `count` are answered
 * or SOAK_BUDGET_MS has gone by. The warm-up's response cache is small, so most are answered by
 * the engine, not the cache.
 */
function soakStep(routes: readonly Route[], store: Store, count: number, warmScope: () => { scope: Scope; key: string } | null, soaked: (sent: number) => void): PreparationStep {
  // Each distinct request's stand-in is built once (it only answers reads) and sent in rotation.
  let requests: { route: Route; req: StandInRequest }[] | null = null;
  let answered = 0;
  let spentMs = 0;
  return () => {
    const warm = warmScope();
    if (warm === null) return false;
    if (requests === null) {
      const byName = new Map(routes.map((route) => [route.op.name, route]));
      requests = [];
      for (const request of warmUpRequests(store, routes.map((route) => route.op))) {
        const route = byName.get(request.operation);
        if (route !== undefined) requests.push({ route, req: new StandInRequest(route.op.path, request, warm.key) });
      }
      if (requests.length === 0) return false;
    }
    const started = performance.now();
    const answeredBefore = answered;
    let now = started;
    while (answered < count && now - started < SOAK_SLICE_MS) {
      const { route, req } = requests[answered++ % requests.length]!;
      serveRequest(warm.scope, route, new StandInResponse(), req, false);
      now = performance.now();
    }
    soaked(answered - answeredBefore);
    spentMs += now - started;
    return answered < count && spentMs < SOAK_BUDGET_MS;
  };
}

/** Every answer of a handler in one object shape (one hidden class on the hot path). */
function outgoing(
  status: number,
  body: string | Uint8Array,
  prepared: PreparedBody | undefined,
  cacheStatus: 'HIT' | 'MISS' | undefined,
  headers: Record<string, string> | undefined,
  usageHeaders: Record<string, string> | undefined,
  plan: string,
): Outgoing {
  return { status, body, prepared, cacheStatus, headers, usageHeaders, plan, corsOrigin: undefined, headOnly: false };
}

function keyOf(route: Route, ctx: Context): string {
  const names = route.paramNames;
  const params: string[] = [];
  for (let i = 0; i < names.length; i++) params.push(ctx.params[names[i]!]!);
  const { caller } = ctx;
  return responseKey({ operation: route.op.name, params, query: ctx.query, tier: caller.tier, countryTier: caller.countryTier, honoured: ctx.honoured });
}

/** Step 4: path parameters (percent-decoded) and the query string. Throws QueryError. */
function parseRequest(route: Route, req: UwsHttpRequest): { params: Record<string, string>; query: ReadonlyMap<string, string> } {
  let params = NO_PARAMS;
  if (route.paramNames.length > 0) {
    params = {};
    for (let i = 0; i < route.paramNames.length; i++) {
      const name = route.paramNames[i]!;
      params[name] = decodePathParam(req.getParameter(i), name);
    }
  }
  return { params, query: parseQuery(req.getQuery()) };
}

/**
 * The one error path. After the quota step, an ApiError (the operation's refusal, in its shape)
 * or a QueryError (400) is an answer with the caller's usage headers; anything else is a bug:
 * logged, answered 500 in the operation's shape, without usage headers.
 */
function failure(scope: Scope, route: Route, req: UwsHttpRequest, requestId: string, error: unknown, counted: Counted | null): Outgoing {
  if (counted !== null) {
    const { caller, decision } = counted;
    const shape = route.op.errorShape;
    if (error instanceof ApiError) return apiErrorOut(error, shape, caller, decision.headers);
    if (error instanceof QueryError) return { status: 400, body: errorBody(shape, error.message), usageHeaders: decision.headers, plan: caller.plan };
  }
  scope.log(`500 request ${requestId} ${route.op.name} ${safeTarget(req)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { status: 500, body: errorBody(route.op.errorShape, INTERNAL_ERROR_MESSAGE, { requestId }) };
}

function apiErrorOut(error: ApiError, shape: ErrorShape, caller: Caller, usageHeaders: Record<string, string> | undefined): Outgoing {
  const status = Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : 500;
  return { status, body: errorBody(error.shape ?? shape, error.message, error.details), usageHeaders, plan: caller.plan };
}

/** Step 7, deferred: writes the answer when it settles, unless the client went away (replaces the no-op onAborted). */
function writeLater(scope: Scope, serving: Serving, res: UwsHttpResponse, route: Route, deferred: Deferred, requestId: string, head: boolean, startedAt: number): void {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  void deferred.pending
    .catch((error: unknown) => () => failure(scope, route, deferred.req, requestId, error, null))
    .then((answer) => {
      if (aborted) return;
      // The answer is made and written in one go: a rendered body may be borrowed bytes (a row
      // writer's reused buffer) that the next render, in another request's continuation, reuses.
      let out: Outgoing;
      try {
        out = answer();
      } catch (error) {
        out = failure(scope, route, deferred.req, requestId, error, null);
      }
      out.corsOrigin = corsOriginFor(scope, deferred.req);
      out.headOnly = head;
      write(scope, serving.settings, res, deferred.req, out, requestId);
      scope.keepsakes.keep(route.index, out.status, ANSWER, out);
      observe(scope, route, deferred.req, out, requestId, startedAt);
    });
}

/**
 * Step 7: one corked write (writeResponse). A response left unanswered would make uWS terminate
 * the process: when writing fails, answer plainly, or drop the connection.
 */
function write(scope: Scope, settings: ResponseSettings, res: UwsHttpResponse, req: UwsHttpRequest, out: Outgoing, requestId: string): void {
  try {
    // Small bodies go out as they are: no need to read Accept-Encoding. Only bodies with an ETag can be a 304.
    const acceptEncoding = negotiatesEncoding(out) ? req.getHeader('accept-encoding') : '';
    const ifNoneMatch = out.prepared?.etag != null ? req.getHeader('if-none-match') : '';
    // While draining every connection closes; otherwise one now and then when this thread answers more than its share.
    const rebalance = scope.rebalancer.onAnswer();
    if (writeResponse(res, out, requestId, acceptEncoding, settings, scope.state.draining || rebalance, ifNoneMatch) && rebalance) scope.rebalancer.closing();
  } catch (error) {
    scope.log(`request ${requestId}: writing the response failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
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

// ---- Around the pipeline: CORS. ------------------------------------------------------------------

function corsOriginFor(scope: Scope, req: UwsHttpRequest): string | undefined {
  const allowed = scope.state.policy.corsOrigins;
  if (allowed.length === 0) return undefined;
  const origin = req.getHeader('origin');
  if (origin === '') return undefined;
  if (allowed.includes('*')) return '*';
  return allowed.includes(origin) ? origin : undefined;
}

/** OPTIONS: a CORS preflight answer for an allowed origin, else 405. */
function servePreflight(scope: Scope, route: Route, res: UwsHttpResponse, req: UwsHttpRequest): void {
  res.onAborted(ignoreAbort);
  const requestId = scope.requestIds.next();
  const origin = corsOriginFor(scope, req);
  if (origin === undefined) {
    write(scope, scope.serving.settings, res, req, methodNotAllowed(route.op.errorShape), requestId);
    return;
  }
  const allowHeaders = [KEY_HEADER, ...scope.state.policy.aliasKeyHeaders].join(', ');
  write(scope, scope.serving.settings, res, req, {
    status: 204,
    body: '',
    corsOrigin: origin,
    headers: { 'Access-Control-Allow-Methods': 'GET', 'Access-Control-Allow-Headers': allowHeaders, 'Access-Control-Max-Age': '600', 'Cache-Control': 'no-store' },
  }, requestId);
}

/**
 * An answer waiting for an asynchronous quota decision, with the request copied out of uWS: the
 * decision settles to the step that makes the answer, run right before the write.
 */
interface Deferred {
  pending: Promise<() => Outgoing>;
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

/** The request target for a log line, redacted (observe.ts): never a key or a phone number. */
function safeTarget(req: UwsHttpRequest): string {
  try {
    return redactedTarget(req.getUrl(), req.getQuery());
  } catch {
    return '(url unavailable)';
  }
}
