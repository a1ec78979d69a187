// What a worker records about each answered request: counters and a latency histogram per
// operation (plain typed arrays: one increment and a short bucket scan per request, no label
// hashing), and a structured log event for 5xx answers, slow answers and, when asked for, every
// answer. The main thread collects every worker's counters on a scrape (metrics-server.ts) as
// prom-client's JSON form and sums them with AggregatorRegistry.aggregate.
//
// A key or a phone number never reaches a log line: headers are never logged, and the logged
// request target keeps the path (long digit runs and gk_ keys masked) and the query's parameter
// names, with values only for parameters that cannot carry either.

/** Latency histogram bucket bounds, in seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;
const STATUS_SLOTS = 600;
/** Requests that matched no operation (404 on an unknown path) are counted under this name. */
export const NO_OPERATION = 'none';

export type QuotaOutcome = 'ok' | 'limited' | 'fail_open';
const QUOTA_OUTCOMES: readonly QuotaOutcome[] = ['ok', 'limited', 'fail_open'];

/** prom-client's getMetricsAsJSON() form, which AggregatorRegistry.aggregate sums across threads. */
export interface MetricJson {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum' | 'first' | 'max';
  values: { value: number; labels: Record<string, string | number>; metricName?: string }[];
}

/** One worker's request counters. */
export class RequestMetrics {
  private readonly requests: Float64Array;
  private readonly buckets: Float64Array;
  private readonly sums: Float64Array;
  private readonly counts: Float64Array;
  private readonly quota = new Float64Array(QUOTA_OUTCOMES.length);
  /** Cache hits and misses by cache name: [hits, misses]. */
  private readonly caches = new Map<string, [number, number]>();

  constructor(private readonly operationNames: readonly string[]) {
    const n = operationNames.length;
    this.requests = new Float64Array(n * STATUS_SLOTS);
    this.buckets = new Float64Array(n * LATENCY_BUCKETS.length);
    this.sums = new Float64Array(n);
    this.counts = new Float64Array(n);
  }

  /** Requests answered by this worker since it started (every operation, every status). */
  get answered(): number {
    let total = 0;
    for (let op = 0; op < this.counts.length; op++) total += this.counts[op]!;
    return total;
  }

  /** `operation`: an index into operationNames. */
  request(operation: number, status: number, seconds: number): void {
    this.requests[operation * STATUS_SLOTS + (status > 0 && status < STATUS_SLOTS ? status : 0)]! += 1;
    this.sums[operation]! += seconds;
    this.counts[operation]! += 1;
    const base = operation * LATENCY_BUCKETS.length;
    // Non-cumulative here; made cumulative at scrape time.
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]!) {
        this.buckets[base + i]! += 1;
        return;
      }
    }
  }

  quotaDecision(outcome: QuotaOutcome): void {
    this.quota[QUOTA_OUTCOMES.indexOf(outcome)]! += 1;
  }

  /** The hook for response caches: one call per lookup (the HTTP layer also counts X-Cache: HIT/MISS answers under the operation's name). */
  cache(name: string, hit: boolean): void {
    let entry = this.caches.get(name);
    if (entry === undefined) this.caches.set(name, (entry = [0, 0]));
    entry[hit ? 0 : 1] += 1;
  }

  /** This worker's counters in prom-client's JSON form. */
  toJson(): MetricJson[] {
    const requests: MetricJson = { name: 'geoapi_requests_total', help: 'Answered requests by operation and HTTP status.', type: 'counter', aggregator: 'sum', values: [] };
    const latency: MetricJson = { name: 'geoapi_request_duration_seconds', help: 'Time from the request to its answer, by operation.', type: 'histogram', aggregator: 'sum', values: [] };
    this.operationNames.forEach((operation, op) => {
      for (let status = 0; status < STATUS_SLOTS; status++) {
        const value = this.requests[op * STATUS_SLOTS + status]!;
        if (value > 0) requests.values.push({ value, labels: { operation, status } });
      }
      const count = this.counts[op]!;
      if (count === 0) return;
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += this.buckets[op * LATENCY_BUCKETS.length + i]!;
        latency.values.push({ value: cumulative, labels: { le, operation }, metricName: `${latency.name}_bucket` });
      });
      latency.values.push({ value: count, labels: { le: '+Inf', operation }, metricName: `${latency.name}_bucket` });
      latency.values.push({ value: this.sums[op]!, labels: { operation }, metricName: `${latency.name}_sum` });
      latency.values.push({ value: count, labels: { operation }, metricName: `${latency.name}_count` });
    });
    const quota: MetricJson = {
      name: 'geoapi_quota_decisions_total',
      help: 'Quota decisions: ok (counted and allowed), limited (429), fail_open (Redis unreachable: counted on this replica).',
      type: 'counter',
      aggregator: 'sum',
      values: QUOTA_OUTCOMES.map((outcome, i) => ({ value: this.quota[i]!, labels: { outcome } })),
    };
    const cache: MetricJson = { name: 'geoapi_cache_lookups_total', help: 'Response cache lookups by cache and result (hit, miss).', type: 'counter', aggregator: 'sum', values: [] };
    for (const [name, [hits, misses]] of this.caches) {
      cache.values.push({ value: hits, labels: { cache: name, result: 'hit' } }, { value: misses, labels: { cache: name, result: 'miss' } });
    }
    return [requests, latency, quota, cache];
  }
}

/** Query parameters whose values are logged: none of them can carry a key or a phone number. */
const LOGGED_QUERY_VALUES = new Set(['limit', 'offset', 'page', 'fields', 'sort', 'order', 'entity', 'type', 'tier', 'format']);
const REDACTED = '[redacted]';

/** The request target as logged: path with gk_ keys and digit runs of 6+ masked; query names, values only for LOGGED_QUERY_VALUES. */
export function redactedTarget(path: string, query: string | undefined): string {
  let target = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  target = target.replace(/gk_[A-Za-z0-9_-]*/g, REDACTED).replace(/[+%0-9()\-. ]*\d{6,}[0-9()\-. ]*/g, REDACTED);
  if (query === undefined || query === '') return target;
  const parts = query.slice(0, 500).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const safeName = /^[A-Za-z0-9_.\-[\]]{1,40}$/.test(name) ? name : REDACTED;
    if (eq < 0) return safeName;
    const value = pair.slice(eq + 1);
    return `${safeName}=${LOGGED_QUERY_VALUES.has(name) && /^[A-Za-z0-9_,.\-]{0,40}$/.test(value) ? value : REDACTED}`;
  });
  return `${target}?${parts.join('&')}`;
}

export interface ObserveSettings {
  /** Keep request counters (the metrics listener is on). */
  metrics: boolean;
  /** Log every answer, not only 5xx and slow ones. */
  accessLog: boolean;
  /** Answers taking at least this long are logged. */
  slowMs: number;
}

/** A request event as logged (one JSON line; see log.ts). */
export interface RequestEvent {
  requestId: string;
  operation: string;
  method: string;
  status: number;
  durationMs: number;
  target: string;
}

/** Step 7 of the pipeline (app.ts): counts the answer and logs it when it is a 5xx, slow, or the access log is on. */
export class RequestObserver {
  readonly metrics: RequestMetrics | null;
  private readonly operationIndex = new Map<string, number>();

  constructor(
    private readonly operationNames: readonly string[],
    private readonly settings: ObserveSettings,
    private readonly emit: (event: RequestEvent, level: 'info' | 'warn' | 'error', message: string) => void,
  ) {
    const names = [...operationNames, NO_OPERATION];
    names.forEach((name, i) => this.operationIndex.set(name, i));
    this.metrics = settings.metrics ? new RequestMetrics(names) : null;
  }

  indexOf(operation: string): number {
    return this.operationIndex.get(operation) ?? this.operationIndex.get(NO_OPERATION)!;
  }

  /** `cache`: the answer's X-Cache header value, if any. `target` is read only when the event is logged. */
  answered(operation: number, operationName: string, method: string, status: number, startedAt: number, requestId: string, target: () => string, cache: string | undefined): void {
    const durationMs = performance.now() - startedAt;
    if (this.metrics !== null) {
      this.metrics.request(operation, status, durationMs / 1000);
      if (cache !== undefined) this.metrics.cache(operationName, cache === 'HIT');
    }
    const slow = durationMs >= this.settings.slowMs;
    if (status < 500 && !slow && !this.settings.accessLog) return;
    const level = status >= 500 ? 'error' : slow ? 'warn' : 'info';
    const message = status >= 500 ? 'request failed' : slow ? 'slow request' : 'request';
    this.emit({ requestId, operation: operationName, method, status, durationMs: Math.round(durationMs * 1000) / 1000, target: target() }, level, message);
  }

  quotaDecision(outcome: QuotaOutcome): void {
    this.metrics?.quotaDecision(outcome);
  }

  /** One with the same operations and settings whose counts are its own and which logs nothing: for the requests a thread sends itself while warming up. */
  quiet(): RequestObserver {
    return new RequestObserver(this.operationNames, this.settings, emitNothing);
  }
}

/**
 * The quiet observer's emit: one function for the thread's life. Code V8 optimized on a closure
 * made per quiet observer named it, and was thrown away with it (keepsakes.ts says why).
 */
function emitNothing(): void {}
