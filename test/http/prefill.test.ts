// Answers prepared before ready (runtime/http/app.ts prefillSteps): the lists taking no parameter
// are in the response cache for every plan before the first request, with the very bytes and
// ETag a request's own render gives (a server with the cache off renders each request). Then the
// warm-up requests sent through the pipeline itself (pipelineSteps, and the soak of
// --warm-up-requests, in process and over a loopback socket), which leave no trace.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allOperations } from '../../runtime/routes/registry.js';
import { warmUpRequests } from '../../runtime/routes/warm-up.js';
import { request, startTestServer, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';

const LISTS = ['/v1/countries', '/v1/states', '/v1/regions', '/v1/currency', '/v1/phone'];
let prefilled: TestServer;
let uncached: TestServer;

before(async () => {
  const snapshotDir = fixtureSnapshot().dir;
  [prefilled, uncached] = await Promise.all([startTestServer({ snapshotDir, threads: 1 }), startTestServer({ snapshotDir, threads: 1, env: { GEOAPI_RESPONSE_CACHE_MB: '0' } })]);
  for (let i = 0; i < 500 && (await prefilled.get('/readyz')).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 20));
});
after(async () => {
  await Promise.all([prefilled?.close(), uncached?.close()]);
});

describe('answers prepared before ready', () => {
  it('serves each list without parameters from the cache on its first request, for every plan, as a render would', async () => {
    assert.equal((await prefilled.get('/readyz')).status, 200);
    for (const path of LISTS) {
      for (const plan of Object.keys(prefilled.keys)) {
        const expected = await uncached.get(path, { plan });
        const first = await prefilled.get(path, { plan });
        assert.equal(first.status, expected.status, `${path} ${plan}`);
        if (expected.status !== 200) continue;
        assert.equal(first.headers['x-cache'], 'HIT', `${path} ${plan}`);
        assert.equal(first.headers.etag, expected.headers.etag, `${path} ${plan}`);
        assert.equal(first.body, expected.body, `${path} ${plan}`);
      }
    }
  });

  it('leaves other requests of the same operations to be rendered on demand', async () => {
    const res = await prefilled.get('/v1/countries?sort=name:desc', { plan: 'business' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-cache'], 'MISS');
  });
});

describe('warm-up requests through the pipeline', () => {
  it('are sent as many as --warm-up-requests says, a third over a socket, and are neither counted, cached, logged nor given request ids, and none failed', async () => {
    const server = await startTestServer({ snapshotDir: fixtureSnapshot().dir, threads: 1, args: ['--metrics-port', '0', '--access-log', '--warm-up-requests', '2000'] });
    try {
      for (let i = 0; i < 500 && (await server.get('/readyz')).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await server.get('/readyz')).status, 200);
      // A third of them over a loopback socket (socket-soak.ts), to an app of the thread's own.
      await server.waitForLog(/warm: every thread has prepared its indexes and sent 2,000 warm-up requests through its pipeline, 666 of them over a loopback socket \(the last in \d+ ms\)/);
      const before = (await request(server.metricsUrl!)).body;
      assert.doesNotMatch(before, /^geoapi_requests_total\{/m, 'no request counted');
      assert.doesNotMatch(before, /^geoapi_cache_lookups_total\{/m, 'no cache lookup counted');
      assert.doesNotMatch(before, /^geoapi_quota_decisions_total\{.*\} [1-9]/m, 'no quota decision counted');
      // The warm-up's own autocomplete request, at its tier (the highest plan's): its answer went into a cache of its own.
      const warmed = warmUpRequests(fixtureSnapshot().store, allOperations()).find((warmUp) => warmUp.operation === 'autocomplete')!;
      const query = Object.entries(warmed.query).map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
      const first = await server.get(`/v1/search/autocomplete?${query.join('&')}`, { plan: 'business' });
      assert.equal(first.status, 200);
      assert.equal(first.headers['x-cache'], 'MISS');
      assert.match(String(first.headers['x-request-id']), /-0-1$/, 'the thread\'s first request id');
      await server.waitForLog(/"msg":"request"/);
      const logged = server.logs().split('\n').filter((line) => line.includes('"msg":"request"'));
      assert.equal(logged.length, 1, logged.join('\n'));
      assert.doesNotMatch(server.logs(), /warm-up:/, 'every warm-up request answered 200');
    } finally {
      await server.close();
    }
  });
});
