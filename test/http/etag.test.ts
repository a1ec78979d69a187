// ETag, X-Cache and 304 over the real server (fixture snapshot, every operation of the registry,
// one worker thread so that a repeat lands on the same cache): every 200 of a GET carries a strong
// ETag and X-Cache, If-None-Match with it gives a bodyless 304 counted like a 200, one mechanism for
// list, detail, search and postcode operations; phone parse stays no-store without an ETag. The
// cache key holds every input that changes a body (fields/sort permutations, tiers, silently
// honoured features), and each content coding has its own ETag.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { tempDir } from '../cli/support.js';
import { startTestServer, type TestResponse, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';
import type { PlanName } from '../../runtime/contract/index.js';

const ETAG_RE = /^"[A-Za-z0-9_-]{27}"$/;
let server: TestServer;

before(async () => {
  server = await startTestServer({
    snapshotDir: fixtureSnapshot().dir,
    // Localization on autocomplete from Business: Professional and Business then share both field
    // tiers and differ only in what locale does, so a shared cache entry would show.
    editPolicy: (policy) => {
      policy.operations.autocomplete.featureOverrides.localization = 'business';
    },
    env: { GEOAPI_CURSOR_SECRET: 'etag-test' },
  });
});
after(async () => {
  await server?.close();
});

function get(path: string, plan: PlanName = 'business', headers: Record<string, string> = {}): Promise<TestResponse> {
  return server.get(path, { plan, headers });
}

/** MISS, then HIT with the same bytes and ETag, then a bodyless 304 (also for the weak form and in a list), then 200 for a stale tag. */
async function assertConditional(path: string, plan: PlanName = 'business'): Promise<string> {
  const first = await get(path, plan);
  assert.equal(first.status, 200, `${path}: ${first.body}`);
  const etag = String(first.headers.etag);
  assert.match(etag, ETAG_RE, path);
  assert.equal(first.headers['x-cache'], 'MISS', path);
  assert.match(String(first.headers['cache-control']), /^private/, path);
  const second = await get(path, plan);
  assert.equal(second.headers['x-cache'], 'HIT', path);
  assert.equal(second.headers.etag, etag, path);
  assert.equal(second.body, first.body, path);
  for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
    const notModified = await get(path, plan, { 'If-None-Match': ifNoneMatch });
    assert.equal(notModified.status, 304, `${path} ${ifNoneMatch}`);
    assert.equal(notModified.body, '');
    assert.equal(notModified.headers.etag, etag);
    assert.equal(notModified.headers['x-cache'], 'HIT');
    assert.equal(notModified.headers['cache-control'], first.headers['cache-control']);
    assert.equal(notModified.headers['content-type'], undefined);
  }
  const stale = await get(path, plan, { 'If-None-Match': '"stale"' });
  assert.equal(stale.status, 200);
  assert.equal(stale.body, first.body);
  return etag;
}

describe('every operation kind', () => {
  it('a list: ETag, X-Cache MISS then HIT, 304', async () => {
    // (/v1/countries alone is prepared before ready: test/http/prefill.test.ts)
    await assertConditional('/v1/countries?sort=name:asc');
    await assertConditional('/v1/countries/US/states?sort=name:desc', 'supporter');
  });

  it('a page of a list: ETag, X-Cache MISS then HIT with the same page headers, 304', async () => {
    for (const path of ['/v1/countries/US/cities?sort=population:desc,name&limit=2&offset=1', '/v1/states?q=an&limit=3', '/v1/countries?locale=de&limit=5&offset=2', '/v1/currency?limit=3']) {
      await assertConditional(path);
      const [first, second] = [await get(path), await get(path)];
      assert.equal(second.headers['x-cache'], 'HIT', path);
      for (const name of ['x-geoapi-total-count', 'x-geoapi-limit', 'x-geoapi-offset']) {
        assert.ok(first.headers[name] !== undefined, `${path}: ${name}`);
        assert.equal(second.headers[name], first.headers[name], `${path}: ${name}`);
      }
    }
    // Another page of the same list is another answer.
    const other = await get('/v1/countries/US/cities?sort=population:desc,name&limit=2&offset=3');
    assert.equal(other.headers['x-cache'], 'MISS');
    assert.equal(other.headers['x-geoapi-offset'], '3');
  });

  it('a detail', async () => {
    await assertConditional('/v1/countries/US');
    await assertConditional('/v1/countries/US/states/CA', 'community');
  });

  it('a search', async () => {
    await assertConditional('/v1/search/autocomplete?q=lon');
    await assertConditional('/v1/search/fuzzy?q=londn');
    await assertConditional('/v1/search/nearby?lat=51.5&lng=-0.12&radius=50');
  });

  it('a postcode lookup and a postcode list page', async () => {
    await assertConditional('/v1/countries/US/postcodes/90210');
    await assertConditional('/v1/countries/GB/postcodes?limit=2', 'supporter');
  });

  it('an answer written per request (timezone: it depends on the clock) still gets an ETag, always a MISS', async () => {
    const first = await get('/v1/timezone/US');
    assert.equal(first.status, 200);
    assert.match(String(first.headers.etag), ETAG_RE);
    assert.equal(first.headers['x-cache'], 'MISS');
  });

  it('phone parse: no-store, no ETag, no X-Cache, never a 304', async () => {
    for (const headers of [{}, { 'If-None-Match': '*' }]) {
      const res = await get('/v1/phone/parse?number=%2B14155552671', 'business', headers);
      assert.equal(res.status, 200);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers.etag, undefined);
      assert.equal(res.headers['x-cache'], undefined);
      assert.match(String(res.headers['x-parse-index-cache']), /^(HIT|MISS)$/);
    }
  });

  it('errors carry neither ETag nor X-Cache', async () => {
    const res = await get('/v1/countries/XX', 'business', { 'If-None-Match': '*' });
    assert.equal(res.status, 404);
    assert.equal(res.headers.etag, undefined);
    assert.equal(res.headers['x-cache'], undefined);
  });
});

describe('what the key holds', () => {
  it('gives each fields and sort permutation its own ETag, and no 304 across them', async () => {
    const paths = ['/v1/countries', '/v1/countries?fields=name', '/v1/countries?fields=name,iso2', '/v1/countries?sort=name', '/v1/countries?sort=name:desc', '/v1/countries?sort=id'];
    const etags = [];
    for (const path of paths) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      etags.push(String(res.headers.etag));
    }
    assert.equal(new Set(etags).size, paths.length);
    assert.equal((await get('/v1/countries?fields=name', 'business', { 'If-None-Match': etags[2]! })).status, 200);
    // The same inputs in another order are the same request.
    assert.equal((await get('/v1/countries?sort=name&fields=name')).headers.etag, (await get('/v1/countries?fields=name&sort=name')).headers.etag);
  });

  it('gives each field tier its own body and ETag, and no 304 across tiers', async () => {
    const basic = await get('/v1/countries/FJ', 'community');
    const full = await get('/v1/countries/FJ', 'business');
    assert.notEqual(basic.body, full.body);
    assert.notEqual(basic.headers.etag, full.headers.etag);
    assert.equal((await get('/v1/countries/FJ', 'community', { 'If-None-Match': String(full.headers.etag) })).status, 200);
    // Plans with the same tiers and the same features (community and playground) share the entry
    // kept under the request target; a plan with other features (starter: fields, sort) has one of
    // its own, with the same body and ETag.
    const playground = await get('/v1/countries/FJ', 'playground');
    assert.equal(playground.headers['x-cache'], 'HIT');
    assert.equal(playground.headers.etag, basic.headers.etag);
    const starter = await get('/v1/countries/FJ', 'starter');
    assert.equal(starter.headers['x-cache'], 'MISS');
    assert.equal(starter.body, basic.body);
    assert.equal(starter.headers.etag, basic.headers.etag);
  });

  it('keeps a locale honoured for one plan out of the answer of a plan that ignores it (same tiers)', async () => {
    const path = '/v1/search/autocomplete?q=Londres&locale=fr&include_translations=true';
    const honoured = await get(path, 'business');
    assert.equal(honoured.status, 200);
    assert.ok('localized_name' in honoured.json()[0], honoured.body);
    const ignored = await get(path, 'professional');
    assert.equal(ignored.status, 200);
    assert.equal(ignored.headers['x-cache'], 'MISS');
    assert.ok(!('localized_name' in ignored.json()[0]), ignored.body);
    assert.notEqual(ignored.headers.etag, honoured.headers.etag);
    assert.equal(ignored.body, (await get('/v1/search/autocomplete?q=Londres', 'professional')).body);
  });
});

describe('content codings', () => {
  it('negotiate by q-value and give each coding its own strong ETag; a 304 needs the tag of the coding chosen', async () => {
    const path = '/v1/states';
    const identity = await get(path, 'business', { 'Accept-Encoding': 'identity' });
    assert.ok(identity.body.length >= 1024, 'a body large enough to be compressed');
    assert.equal(identity.headers['content-encoding'], undefined);
    const gzip = await get(path, 'business', { 'Accept-Encoding': 'br;q=0, gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.bytes).toString(), identity.body);
    const br = await get(path, 'business', { 'Accept-Encoding': 'gzip;q=0.5, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    const none = await get(path, 'business', { 'Accept-Encoding': '*;q=0' });
    assert.equal(none.headers['content-encoding'], undefined, 'nothing acceptable: identity');
    assert.equal(none.body, identity.body);
    const tags = [identity, gzip, br].map((res) => String(res.headers.etag));
    for (const tag of tags) assert.match(tag, ETAG_RE);
    assert.equal(new Set(tags).size, 3);
    assert.equal(none.headers.etag, identity.headers.etag);
    assert.equal((await get(path, 'business', { 'Accept-Encoding': 'gzip', 'If-None-Match': String(gzip.headers.etag) })).status, 304);
    assert.equal((await get(path, 'business', { 'Accept-Encoding': 'gzip', 'If-None-Match': String(identity.headers.etag) })).status, 200);
  });
});

describe('counting', () => {
  it('counts a 304 like a 200', async () => {
    const counted = await startTestServer({ snapshotDir: fixtureSnapshot().dir, quota: 'default', env: { GEOAPI_QUOTA_STATE_FILE: join(tempDir(), 'quota.json') } });
    try {
      const first = await counted.get('/v1/countries/US', { plan: 'community' });
      assert.equal(first.headers['x-geoapi-daily-used'], '1');
      const notModified = await counted.get('/v1/countries/US', { plan: 'community', headers: { 'If-None-Match': String(first.headers.etag) } });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.headers['x-geoapi-daily-used'], '2');
    } finally {
      await counted.close();
    }
  });
});
