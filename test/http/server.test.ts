// The HTTP layer over real HTTP: a real server (child process, uWS, two worker threads) with test
// operations over a fake store, so these tests depend on nothing but runtime/http and runtime/access.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { rawRequest, startTestServer, type TestServer } from '../support/server.js';
import { FAKE_DATA_VERSION } from './fixtures/fake-store.js';
import { fixtureModules } from './fixtures/modules.js';
import { BIG_BODY_TEXT } from './fixtures/test-operations.js';
import { compress, DEFAULT_COMPRESSION } from '../../runtime/http/encoding.js';

const UNAUTHORIZED = { error: "Unauthorized. You shouldn't be here." };
const FORBIDDEN = 'This feature is not available on your current plan.';
const UPGRADE_URL = 'https://geoapi.local/pricing';

let server: TestServer;

before(async () => {
  server = await startTestServer({
    ...fixtureModules,
    threads: 2,
    extraKeys: [
      { label: 'expired', plan: 'business', expires: '2020-01-01T00:00:00.000Z' },
      { label: 'revoked', plan: 'business', revoked: true },
      { label: 'future', plan: 'starter', expires: '2999-01-01T00:00:00.000Z' },
    ],
    fixedNow: '2026-03-01T12:00:00.000Z',
    // The pipelined burst below goes to one thread: rebalancing would close its connection after
    // the 256th answer (rebalance.test.ts pins what a pipelining client gets then).
    args: ['--rebalance-connections', 'off'],
  });
});

after(async () => {
  await server.close();
});

describe('uWebSockets.js', () => {
  it('serves with a native uWS binary and says which', () => {
    assert.match(server.uws.binary, /\.node$/);
    assert.match(server.uws.packageName, /^@(btc-vision\/uwebsockets\.js|trufflesuite\/uws-js-unofficial)$/);
    assert.equal(server.uws.abi, process.versions.modules);
  });

  it('answers from every worker thread on the one port', async () => {
    // X-Request-ID is <random>-<thread>-<counter>; the kernel spreads new connections over the
    // threads' sockets (SO_REUSEPORT), so 40 connections all landing on one thread is ~1e-12.
    const threads = new Set<string>();
    for (let i = 0; i < 40 && threads.size < 2; i++) {
      const res = await server.get('/v1/countries', { plan: 'community' });
      threads.add(String(res.headers['x-request-id']).split('-')[1]!);
    }
    assert.deepEqual([...threads].sort(), ['0', '1']);
  });

  it('answers a burst of pipelined requests on one connection, every one complete and in order', async () => {
    // 400 answers of ~0.5 KiB: far past uWS's 16 KiB cork buffer within one read (runtime/http/respond.ts).
    const count = 400;
    const requests = Array.from({ length: count }, (_, i) => `GET /v1/countries?n=${i} HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${server.keys.business}\r\n${i === count - 1 ? 'Connection: close\r\n' : ''}\r\n`).join('');
    let rest = await rawRequest(server.port, requests);
    const seen: number[] = [];
    for (let headEnd = rest.indexOf('\r\n\r\n'); headEnd >= 0; headEnd = rest.indexOf('\r\n\r\n')) {
      const head = rest.slice(0, headEnd);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
      assert.match(head, /^HTTP\/1\.1 200 /);
      const body = JSON.parse(Buffer.from(rest.slice(headEnd + 4, headEnd + 4 + length), 'latin1').toString('utf8')) as { query: { n: string } };
      seen.push(Number(body.query.n));
      rest = rest.slice(headEnd + 4 + length);
    }
    assert.deepEqual(seen, Array.from({ length: count }, (_, i) => i));
  });
});

describe('authentication', () => {
  it('answers 401 with the exact body when the key is missing', async () => {
    const res = await server.get('/v1/countries');
    assert.equal(res.status, 401);
    assert.deepEqual(res.json(), UNAUTHORIZED);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['x-geoapi-plan'], undefined);
  });

  for (const [what, key] of [
    ['unknown', 'gk_not-a-key'],
    ['empty', ''],
    ['over-long', 'k'.repeat(10_000)],
  ] as const) {
    it(`answers the same 401 for an ${what} key`, async () => {
      const res = await server.get('/v1/countries', { key });
      assert.equal(res.status, 401);
      assert.deepEqual(res.json(), UNAUTHORIZED);
    });
  }

  it('answers the same 401 for an expired and a revoked key', async () => {
    for (const label of ['expired', 'revoked']) {
      const res = await server.get('/v1/countries', { key: server.extraKeys[label]! });
      assert.equal(res.status, 401, label);
      assert.deepEqual(res.json(), UNAUTHORIZED);
    }
  });

  it('answers 401 in shape A even on shape-B operations', async () => {
    const res = await server.get('/v1/phone/US');
    assert.equal(res.status, 401);
    assert.deepEqual(res.json(), UNAUTHORIZED);
  });

  it('accepts a key that expires later, and the header name in any case', async () => {
    const res = await server.get('/v1/countries', { headers: { 'x-GeoApi-KEY': server.extraKeys['future']! } });
    assert.equal(res.status, 200);
    assert.equal(res.json().caller.plan, 'starter');
  });

  it('does not accept alias headers unless configured', async () => {
    const res = await server.get('/v1/countries', { headers: { 'X-CSCAPI-KEY': server.keys.business } });
    assert.equal(res.status, 401);
  });

  it('hands the operation the caller of the key: plan, tiers, rank', async () => {
    const expected = {
      community: ['basic', 'basic', 0],
      playground: ['basic', 'basic', 0],
      starter: ['basic', 'basic', 1],
      legacy: ['basic', 'basic', 1],
      supporter: ['coordinates', 'full', 2],
      professional: ['full', 'full', 3],
      business: ['full', 'full', 4],
    } as const;
    for (const [plan, [tier, countryTier, rank]] of Object.entries(expected)) {
      const res = await server.get('/v1/countries', { plan: plan as keyof typeof expected });
      assert.equal(res.status, 200);
      const { caller } = res.json();
      assert.deepEqual({ plan: caller.plan, tierName: caller.tierName, tier: caller.tier, countryTier: caller.countryTier, rank: caller.rank }, { plan, tierName: plan, tier, countryTier, rank });
      assert.match(caller.keyId, /^k_[0-9a-f]{12}$/);
      assert.equal(res.headers['x-geoapi-plan'], plan);
    }
  });
});

describe('plan gates', () => {
  it('refuses an operation below its plan with shape A: error, feature, upgradeUrl', async () => {
    const res = await server.get('/v1/search/fuzzy?q=paris', { plan: 'supporter' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.json(), { error: FORBIDDEN, feature: 'fuzzySearch', upgradeUrl: UPGRADE_URL });
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['x-geoapi-plan'], 'supporter');
  });

  it('refuses an operation below its plan with shape B details: feature, currentTier, requiredTier, upgradeUrl', async () => {
    const res = await server.get('/v1/search/nearby?lat=1&lng=2', { plan: 'starter' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.json(), {
      status: 'error',
      message: FORBIDDEN,
      details: { feature: 'nearbySearch', currentTier: 'starter', requiredTier: 'professional', upgradeUrl: UPGRADE_URL },
    });
  });

  it('uses the per-operation minimum plan (dial code by country: starter, shape B)', async () => {
    const denied = await server.get('/v1/phone/US', { plan: 'community' });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.json().details, { feature: 'phoneDialCode', currentTier: 'community', requiredTier: 'starter', upgradeUrl: UPGRADE_URL });
    assert.equal((await server.get('/v1/phone/US', { plan: 'starter' })).status, 200);
    assert.equal((await server.get('/v1/phone/US', { plan: 'legacy' })).status, 200, 'legacy gates as starter');
    const parse = await server.get('/v1/phone/parse?number=%2B1', { plan: 'starter' });
    assert.deepEqual(parse.json(), { error: FORBIDDEN, feature: 'phoneDialCode', upgradeUrl: UPGRADE_URL });
  });

  it('gates playground as community and legacy as starter', async () => {
    assert.equal((await server.get('/v1/phone/US', { plan: 'playground' })).status, 403);
    assert.equal((await server.get('/v1/search/autocomplete?q=pa', { plan: 'legacy' })).status, 403);
    assert.equal((await server.get('/v1/search/autocomplete?q=pa', { plan: 'supporter' })).status, 200);
  });

  it('lets operations check parameter features with per-operation minimum plans', async () => {
    // fields: starter on the country list, supporter on cities of a state.
    assert.equal((await server.get('/v1/countries?fields=name', { plan: 'starter' })).status, 200);
    const community = await server.get('/v1/countries?fields=name', { plan: 'community' });
    assert.deepEqual(community.json(), { error: FORBIDDEN, feature: 'fieldsFiltering', upgradeUrl: UPGRADE_URL });
    const cities = await server.get('/v1/countries/US/states/CA/cities?sort=name', { plan: 'starter' });
    assert.equal(cities.status, 403);
    assert.deepEqual(cities.json(), { error: FORBIDDEN, feature: 'sortParameter', upgradeUrl: UPGRADE_URL });
    assert.equal((await server.get('/v1/countries/US/states/CA/cities?q=los', { plan: 'supporter' })).status, 200);
  });

  it('reports a parameter-feature 403 in shape B with the overridden required tier', async () => {
    const res = await server.get('/v1/search/autocomplete?q=pa&fields=name', { plan: 'supporter' });
    assert.equal(res.status, 200, 'fieldsFiltering is starter by default');
    const echoed = res.json();
    assert.equal(echoed.localization, false, 'localization on autocomplete needs professional');
    assert.equal((await server.get('/v1/search/autocomplete?q=pa', { plan: 'professional' })).json().localization, true);
    assert.equal((await server.get('/v1/countries', { plan: 'supporter' })).json().localization, true, 'localization defaults to supporter');
  });
});

describe('requests the server cannot route', () => {
  it('answers 404 JSON for an unknown path', async () => {
    for (const path of ['/', '/v2/countries', '/v1/countries/', '/v1/countries//states', `/${'x'.repeat(5000)}`]) {
      const res = await server.get(path, { plan: 'business' });
      assert.equal(res.status, 404, path.slice(0, 40));
      assert.deepEqual(res.json(), { error: 'Not found.' });
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['x-geoapi-data-version'], FAKE_DATA_VERSION);
    }
  });

  it('answers 405 JSON in the operation shape with Allow: GET for other methods', async () => {
    const a = await server.get('/v1/countries', { plan: 'business', method: 'POST' });
    assert.equal(a.status, 405);
    assert.equal(a.headers['allow'], 'GET');
    assert.deepEqual(a.json(), { error: 'Method not allowed. Every geoapi operation is a GET.' });
    const b = await server.get('/v1/phone/US', { method: 'DELETE' });
    assert.equal(b.status, 405);
    assert.deepEqual(b.json(), { status: 'error', message: 'Method not allowed. Every geoapi operation is a GET.' });
    const options = await server.get('/v1/countries', { method: 'OPTIONS' });
    assert.equal(options.status, 405, 'no CORS configured');
  });
});

describe('query and path parsing over HTTP', () => {
  it('hands the operation decoded parameters, + as a space in queries', async () => {
    const res = await server.get('/v1/phone/parse?number=+14155552671&x=S%C3%A3o', { plan: 'business' });
    assert.deepEqual(res.json().query, { number: ' 14155552671', x: 'São' });
    const cities = await server.get('/v1/countries/U%53/states/C+A/cities', { plan: 'business' });
    assert.deepEqual(cities.json().params, { ciso: 'US', siso: 'C+A' });
  });

  it('refuses a duplicated parameter with 400 in the operation shape', async () => {
    const a = await server.get('/v1/countries?q=ab&q=cd', { plan: 'business' });
    assert.equal(a.status, 400);
    assert.deepEqual(a.json(), { error: 'Invalid query parameters: q: given more than once' });
    const b = await server.get('/v1/search/nearby?lat=1&lat=2', { plan: 'business' });
    assert.deepEqual(b.json(), { status: 'error', message: 'Invalid query parameters: lat: given more than once' });
  });

  it('refuses %zz, %00, invalid UTF-8 and over-long queries with 400', async () => {
    const cases: [string, RegExp][] = [
      ['/v1/countries?q=%zz', /q: malformed percent-encoding/],
      ['/v1/countries?q=%00', /q: control characters are not allowed/],
      ['/v1/countries?q=%FF%FE', /q: not valid UTF-8/],
      [`/v1/countries?q=${'a'.repeat(5000)}`, /longer than 4096 characters/],
      ['/v1/countries/%zz/states/CA/cities', /Invalid path parameter ciso: malformed percent-encoding/],
      ['/v1/countries/US/states/%C3/cities', /Invalid path parameter siso: not valid UTF-8/],
    ];
    for (const [path, message] of cases) {
      const res = await server.get(path, { plan: 'business' });
      assert.equal(res.status, 400, path.slice(0, 60));
      assert.match(res.json().error, message);
    }
  });

  it('refuses raw bytes that are not UTF-8 in the path and the query', async () => {
    const key = server.keys.business;
    const answer = await server.raw(Buffer.concat([
      Buffer.from('GET /v1/countries/US/states/'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`/cities?q=\xc3 HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${key}\r\nConnection: close\r\n\r\n`, 'latin1'),
    ]));
    assert.match(answer, /^HTTP\/1.1 400 /);
    assert.match(answer, /Invalid path parameter siso: not valid UTF-8/);
  });

  it('checks the key before the query: an unauthenticated malformed query is a 401', async () => {
    const res = await server.get('/v1/countries?q=%zz');
    assert.equal(res.status, 401);
  });
});

describe('operation results and failures', () => {
  it('turns a throwing operation into a 500 JSON and keeps serving', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await server.get('/v1/test/throw', { plan: 'community' });
      assert.equal(res.status, 500);
      const body = res.json();
      assert.equal(body.error, 'Internal server error.');
      assert.equal(body.requestId, res.headers['x-request-id']);
    }
    assert.equal((await server.get('/v1/countries', { plan: 'community' })).status, 200);
    await server.waitForLog(/"msg":"500 request \S+ testThrow \/v1\/test\/throw: TypeError: deliberate failure/);
  });

  it('turns a malformed Reply into a 500', async () => {
    const res = await server.get('/v1/test/bad-reply', { plan: 'community' });
    assert.equal(res.status, 500);
    // Log lines are JSON: the message's quotes are escaped.
    await server.waitForLog(/testBad returned \{\\"status\\":\\"ok\\"\} instead of a Reply/);
  });

  it('renders ApiError in the operation shape, details omitted when absent, shape override honoured', async () => {
    const b = await server.get('/v1/test/api-error', { plan: 'community' });
    assert.equal(b.status, 404);
    assert.deepEqual(b.json(), { status: 'error', message: 'Nothing here.', details: { reason: 'nothing' } });
    const bare = await server.get('/v1/test/api-error?details=none', { plan: 'community' });
    assert.deepEqual(bare.json(), { status: 'error', message: 'Nothing here.' });
    const a = await server.get('/v1/test/api-error?shape=A', { plan: 'community' });
    assert.equal(a.status, 400);
    assert.deepEqual(a.json(), { error: 'Mixed shape.', hint: 'x' });
    assert.equal(a.headers['cache-control'], 'no-store');
  });

  it('writes the headers every response carries', async () => {
    const res = await server.get('/v1/countries', { plan: 'starter' });
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['x-geoapi-data-version'], FAKE_DATA_VERSION);
    assert.equal(res.headers['x-geoapi-plan'], 'starter');
    assert.equal(res.headers['cache-control'], 'private, max-age=300');
    assert.equal(res.headers['vary'], 'Accept-Encoding');
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{8}-\d+-[0-9a-z]+$/);
    const again = await server.get('/v1/countries', { plan: 'starter' });
    assert.notEqual(again.headers['x-request-id'], res.headers['x-request-id']);
  });

  it('keeps the operation Cache-Control, drops reserved headers and header values with line breaks', async () => {
    const res = await server.get('/v1/test/headers', { plan: 'starter', headers: { 'X-Custom': 'hello' } });
    assert.deepEqual(res.json(), { custom: 'hello', missing: null });
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.notEqual(res.headers['x-request-id'], 'spoofed');
    assert.equal(res.headers['x-evil'], undefined);
    assert.equal(res.headers['set-cookie'], undefined);
    assert.equal(res.headers['x-op'], 'yes');
  });

  it('answers 304 without a body for the ETag it gave, which the operation cannot forge', async () => {
    const first = await server.get('/v1/countries/US/postcodes/10001', { plan: 'community' });
    assert.equal(first.status, 200);
    assert.match(String(first.headers['etag']), /^"[A-Za-z0-9_-]{27}"$/);
    assert.match(String(first.headers['x-cache']), /^(HIT|MISS)$/);
    const res = await server.get('/v1/countries/US/postcodes/10001', { plan: 'community', headers: { 'If-None-Match': String(first.headers['etag']) } });
    assert.equal(res.status, 304);
    assert.equal(res.body, '');
    assert.equal(res.headers['etag'], first.headers['etag']);
    // Two worker threads, a cache each: HIT or MISS, but the same ETag whichever thread answers.
    assert.match(String(res.headers['x-cache']), /^(HIT|MISS)$/);
    assert.equal(res.headers['cache-control'], 'public, max-age=86400');
    assert.equal(res.headers['content-length'], undefined);
    assert.equal((await server.get('/v1/countries/US/postcodes/10001', { plan: 'community', headers: { 'If-None-Match': '"forged"' } })).status, 200);
  });

  it('hands the operation the fixed clock when one is configured', async () => {
    assert.equal((await server.get('/v1/countries', { plan: 'community' })).json().now, '2026-03-01T12:00:00.000Z');
  });
});

describe('compression', () => {
  it('sends br when accepted (preferred over gzip), gzip otherwise, identity without Accept-Encoding', async () => {
    const br = await server.get('/v1/test/big', { plan: 'community', headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.bytes).toString(), BIG_BODY_TEXT);
    assert.ok(br.bytes.length < BIG_BODY_TEXT.length / 4);
    assert.deepEqual(br.bytes, Buffer.from(compress(BIG_BODY_TEXT, 'br', DEFAULT_COMPRESSION)), 'compressed at the default quality');

    const gzip = await server.get('/v1/test/big', { plan: 'community', headers: { 'Accept-Encoding': 'gzip, br;q=0' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.bytes).toString(), BIG_BODY_TEXT);
    assert.deepEqual(gzip.bytes, Buffer.from(compress(BIG_BODY_TEXT, 'gzip', DEFAULT_COMPRESSION)), 'compressed at the default level');

    const plain = await server.get('/v1/test/big', { plan: 'community' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, BIG_BODY_TEXT);
    assert.equal(plain.headers['vary'], 'Accept-Encoding');
  });

  it('leaves small bodies uncompressed', async () => {
    const res = await server.get('/v1/countries', { plan: 'community', headers: { 'Accept-Encoding': 'br' } });
    assert.equal(res.headers['content-encoding'], undefined);
    assert.equal(res.status, 200);
  });
});

describe('hostile input', () => {
  it('survives garbage, huge headers, NUL bytes and aborted requests, and keeps serving', async () => {
    const key = server.keys.business;
    const hostile = [
      'GARBAGE\r\n\r\n',
      '\x00\x01\x02\x03\r\n\r\n',
      'GET /v1/countries/a\x00b HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /v1/countries HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${key}\r\nX-Big: ${'a'.repeat(200_000)}\r\nConnection: close\r\n\r\n`,
      `GET /v1/countries HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000_000)}\r\n\r\n`,
      `GET /v1/countries?${'%'.repeat(3000)} HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${key}\r\nConnection: close\r\n\r\n`,
      'GET /v1/countries HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab', // body never completes
      `GET /v1/test/slow?ms=300 HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${key}\r\n\r\n`, // the client leaves early
    ];
    const answers = await Promise.all(hostile.map((bytes, i) => server.raw(bytes, i === hostile.length - 1 ? 50 : 20_000)));
    // Every connection ended (answered, or closed by the server) instead of hanging.
    for (const answer of answers.slice(0, -1)) assert.doesNotMatch(answer, /\[client timeout\]$/, answer.slice(0, 80));
    assert.match(answers[5]!, /^HTTP\/1.1 400 .*malformed percent-encoding/s);
    const res = await server.get('/v1/countries', { plan: 'community' });
    assert.equal(res.status, 200);
  });
});
