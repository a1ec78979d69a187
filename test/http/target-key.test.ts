// Answers kept under their request target (runtime/http/app.ts, targetKey): a repeated request is
// answered from the response cache before it is parsed. These run the worker's pipeline in
// process (buildApp over a stand-in for uWS, the fixture snapshot) and check that a target never
// answers what parsing and handling that request would not: another plan's refusal, another
// spelling's ETag, an answer that read the clock, the policy before a reload.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { KeyIndex, withMemoryKey, type KeySnapshot } from '../../runtime/access/key-index.js';
import { DEFAULT_POLICY_FILE, parsePolicy, readPolicyText, type Policy } from '../../runtime/access/policy.js';
import { noQuotaGate } from '../../runtime/access/quota-hook.js';
import { ApiError } from '../../runtime/contract/index.js';
import { buildApp, workerStateOf, type WorkerState } from '../../runtime/http/app.js';
import { RequestObserver } from '../../runtime/http/observe.js';
import { StandInResponse } from '../../runtime/http/pipeline-warm-up.js';
import type { UwsHttpRequest } from '../../runtime/http/uws.js';
import { allOperations } from '../../runtime/routes/registry.js';
import { rendered, type Operation } from '../../runtime/routes/types.js';
import { fixtureSnapshot } from '../support/snapshots.js';
import { standInUws } from '../support/stand-in-uws.js';

const PLANS = ['community', 'playground', 'starter', 'professional', 'business'] as const;
type Plan = (typeof PLANS)[number];

/** An operation whose answer depends on the clock: 200 until `deadline`, then 400. */
const deadline = { ms: 0 };
const clockOperation: Operation = {
  name: 'clockTest',
  path: '/v1/test/clock',
  errorShape: 'A',
  params: [],
  doc: { tag: 'Test', summary: 'clock', description: 'clock', response: { schema: 'countries' }, statuses: [400] },
  handle(ctx) {
    // ?free=<n>: an answer that reads nothing beyond its target.
    const free = ctx.query.get('free');
    if (free !== undefined) return rendered(() => `{"free":${JSON.stringify(free)}}`);
    if (ctx.now.getTime() >= deadline.ms) throw new ApiError(400, 'Expired.');
    return rendered(() => '{"fresh":true}');
  },
};

function policyText(edit: (policy: Record<string, any>) => void = () => {}): string {
  const policy = JSON.parse(readPolicyText(DEFAULT_POLICY_FILE)) as Record<string, any>;
  policy['operations'][clockOperation.name] = { feature: null };
  edit(policy);
  return JSON.stringify(policy);
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** The warm-up's stand-in response, recording what writeResponse writes. */
class RecordingResponse extends StandInResponse {
  readonly headers = new Map<string, string>();
  body = '';
  // writeResponse hands every line after the first over in the first one's value.
  override writeHeader(name = '', value = ''): this {
    for (const line of `${name}: ${value}`.split('\r\n')) {
      const colon = line.indexOf(': ');
      this.headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 2));
    }
    return this;
  }
  override end(body?: string | Uint8Array): this {
    this.body = body === undefined ? '' : Buffer.from(body).toString('utf8');
    return this;
  }
}

function appOver(policy: Policy): { state: WorkerState; get(target: string, plan: Plan): Answer; refreshPolicy(): void; stats(): { hits: number; misses: number } } {
  const { store } = fixtureSnapshot();
  const { uws, handlers } = standInUws();
  let snapshot: KeySnapshot = { secret: randomBytes(32).toString('hex'), entries: [] };
  for (const plan of PLANS) snapshot = withMemoryKey(snapshot, { id: plan, plan, plaintext: `key-${plan}` });
  const operations = [...allOperations(), clockOperation];
  const state = workerStateOf(policy, new KeyIndex(snapshot, policy), noQuotaGate, false, true);
  const observer = new RequestObserver(operations.map((op) => op.name), { metrics: true, accessLog: false, slowMs: 60_000 }, () => undefined);
  const built = buildApp({ uws, operations, store, state, fixedNowMs: null, threadIndex: 0, responseCacheBytes: 1 << 20, observer, log: () => undefined });
  return {
    state,
    refreshPolicy: () => built.refreshPolicy(),
    stats: () => built.responses().stats(),
    get(target, plan) {
      const [path, query] = target.split('?') as [string, string | undefined];
      const pattern = operations.map((op) => op.path).find((candidate) => new RegExp(`^${candidate.replace(/:[A-Za-z]+/g, '[^/]+')}$`).test(path))!;
      const patternSegments = pattern.split('/');
      const parameters = path.split('/').filter((_, i) => patternSegments[i]!.startsWith(':'));
      const headers = new Map([['x-geoapi-key', `key-${plan}`]]);
      const req: UwsHttpRequest = {
        getHeader: (name) => headers.get(name) ?? '',
        getParameter: (index) => parameters[index] ?? '',
        getUrl: () => path,
        getMethod: () => 'get',
        getQuery: () => query,
        forEach: (cb) => headers.forEach((value, name) => cb(name, value)),
      };
      const res = new RecordingResponse();
      handlers.get(pattern)!(res, req);
      return { status: Number(res.status.slice(0, 3)), headers: res.headers, body: res.body };
    },
  };
}

describe('answers kept under their request target', () => {
  it('answer a repeated request from the cache with the bytes and ETag of the parsed request', () => {
    const server = appOver(parsePolicy(policyText()));
    const first = server.get('/v1/search/autocomplete?q=Lon', 'business');
    const second = server.get('/v1/search/autocomplete?q=Lon', 'business');
    assert.equal(first.status, 200);
    assert.deepEqual([first.headers.get('x-cache'), second.headers.get('x-cache')], ['MISS', 'HIT']);
    assert.equal(second.body, first.body);
    assert.equal(second.headers.get('etag'), first.headers.get('etag'));
    // Each request is one lookup: a hit or a miss.
    assert.deepEqual(server.stats().hits + server.stats().misses, 2);
  });

  it('keep spellings of one request apart, with one body and ETag', () => {
    const server = appOver(parsePolicy(policyText()));
    const one = server.get('/v1/search/autocomplete?q=Lon&limit=3', 'business');
    const other = server.get('/v1/search/autocomplete?limit=3&q=Lon', 'business');
    assert.equal(other.headers.get('x-cache'), 'MISS');
    assert.equal(other.body, one.body);
    assert.equal(other.headers.get('etag'), one.headers.get('etag'));
  });

  it('never hand a plan the answer of a request its plan refuses', () => {
    const server = appOver(parsePolicy(policyText()));
    const granted = server.get('/v1/countries/US?fields=name', 'business');
    assert.equal(granted.status, 200);
    assert.equal(server.get('/v1/countries/US?fields=name', 'business').headers.get('x-cache'), 'HIT');
    const refused = server.get('/v1/countries/US?fields=name', 'community');
    assert.equal(refused.status, 403, refused.body);
  });

  it('are shared by plans of the same tiers and features, and kept apart for others', () => {
    const server = appOver(parsePolicy(policyText()));
    const community = server.get('/v1/countries/US', 'community');
    assert.equal(server.get('/v1/countries/US', 'playground').headers.get('x-cache'), 'HIT');
    const starter = server.get('/v1/countries/US', 'starter');
    assert.equal(starter.headers.get('x-cache'), 'MISS');
    assert.equal(starter.body, community.body);
    // The operation's headers come back with the cached answer.
    assert.equal(server.get('/v1/countries/US', 'starter').headers.get('cache-control'), community.headers.get('cache-control'));
  });

  it('are not kept for an answer that read the clock: its request is handled again', async () => {
    const server = appOver(parsePolicy(policyText()));
    deadline.ms = Date.now() + 40;
    assert.equal(server.get('/v1/test/clock', 'business').status, 200);
    assert.equal(server.get('/v1/test/clock', 'business').headers.get('x-cache'), 'HIT'); // by its response key
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(server.get('/v1/test/clock', 'business').status, 400);
  });

  it('are kept again after a long run of answers that could not be', () => {
    const server = appOver(parsePolicy(policyText()));
    deadline.ms = Date.now() + 60_000;
    // Answers read the clock: after enough of them the route stops looking targets up (Route.targetMisfits).
    for (let i = 0; i < 100; i++) assert.equal(server.get('/v1/test/clock', 'business').status, 200);
    const first = server.get('/v1/test/clock?free=1', 'business');
    assert.deepEqual([first.status, first.headers.get('x-cache')], [200, 'MISS']);
    assert.equal(server.get('/v1/test/clock?free=1', 'business').headers.get('x-cache'), 'HIT');
    assert.equal(server.get('/v1/test/clock?free=2', 'business').headers.get('x-cache'), 'MISS');
    assert.equal(server.get('/v1/test/clock?free=2', 'business').headers.get('x-cache'), 'HIT');
    const stats = server.stats();
    assert.equal(stats.hits + stats.misses, 104);
  });

  it('follow a policy reload: a plan that lost a feature gets the answer without it', () => {
    const server = appOver(parsePolicy(policyText()));
    const target = '/v1/search/autocomplete?q=Lon&locale=fr&include_translations=true';
    const honoured = server.get(target, 'professional');
    assert.equal(server.get(target, 'professional').headers.get('x-cache'), 'HIT');
    server.state.policy = parsePolicy(policyText((policy) => (policy['operations']['autocomplete']['featureOverrides']['localization'] = 'business')));
    server.refreshPolicy();
    const ignored = server.get(target, 'professional');
    assert.equal(ignored.status, 200);
    assert.equal(ignored.headers.get('x-cache'), 'MISS');
    assert.notEqual(ignored.body, honoured.body);
    assert.equal(ignored.body, server.get('/v1/search/autocomplete?q=Lon', 'professional').body);
  });
});
