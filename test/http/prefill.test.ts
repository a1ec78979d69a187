// Answers prepared before ready (runtime/http/app.ts prefillSteps): the lists taking no parameter
// are in the response cache for every plan before the first request, with the very bytes and
// ETag a request's own render gives (a server with the cache off renders each request).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
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
