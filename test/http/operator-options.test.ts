// Operator opt-ins, off by default: alias key headers (policy or GEOAPI_KEY_HEADER_ALIASES), CORS
// origins (policy http.corsOrigins), and compression settings (GEOAPI_BROTLI_QUALITY,
// GEOAPI_GZIP_LEVEL, GEOAPI_COMPRESSION).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compress, DEFAULT_COMPRESSION } from '../../runtime/http/encoding.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { BIG_BODY_TEXT } from './fixtures/test-operations.js';
import { fixtureModules } from './fixtures/modules.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({
    ...fixtureModules,
    editPolicy: (policy) => {
      fixtureModules.editPolicy(policy);
      policy.http.corsOrigins = ['https://app.example'];
      policy.auth.aliasHeaders = ['X-CSCAPI-KEY'];
    },
    env: { GEOAPI_KEY_HEADER_ALIASES: 'X-Legacy-Key', GEOAPI_BROTLI_QUALITY: '9', GEOAPI_GZIP_LEVEL: '9' },
  });
});
after(async () => {
  await server.close();
});

describe('alias key headers', () => {
  it('accepts the configured alias headers in place of X-GEOAPI-KEY', async () => {
    for (const header of ['X-CSCAPI-KEY', 'x-legacy-key']) {
      const res = await server.get('/v1/countries', { headers: { [header]: server.keys.supporter } });
      assert.equal(res.status, 200, header);
      assert.equal(res.json().caller.plan, 'supporter');
    }
  });

  it('prefers X-GEOAPI-KEY when both are sent, and refuses an unknown key in an alias', async () => {
    const both = await server.get('/v1/countries', { headers: { 'X-GEOAPI-KEY': server.keys.business, 'X-CSCAPI-KEY': server.keys.community } });
    assert.equal(both.json().caller.plan, 'business');
    assert.equal((await server.get('/v1/countries', { headers: { 'X-CSCAPI-KEY': 'nope' } })).status, 401);
  });
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin with 204 and the allowed method and headers', async () => {
    const res = await server.get('/v1/countries', { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } });
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example');
    assert.equal(res.headers['access-control-allow-methods'], 'GET');
    assert.equal(res.headers['access-control-allow-headers'], 'x-geoapi-key, x-cscapi-key, x-legacy-key');
    assert.equal(res.headers['content-length'], undefined);
  });

  it('adds Access-Control-Allow-Origin for allowed origins only, and Vary: Origin', async () => {
    const allowed = await server.get('/v1/countries', { plan: 'starter', headers: { Origin: 'https://app.example' } });
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example');
    assert.equal(allowed.headers['vary'], 'Accept-Encoding, Origin');
    const other = await server.get('/v1/countries', { plan: 'starter', headers: { Origin: 'https://evil.example' } });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const preflight = await server.get('/v1/countries', { method: 'OPTIONS', headers: { Origin: 'https://evil.example' } });
    assert.equal(preflight.status, 405);
  });
});

describe('compression settings', () => {
  it('compresses at the configured brotli quality and gzip level', async () => {
    const levels = { ...DEFAULT_COMPRESSION, brotliQuality: 9, gzipLevel: 9 };
    const br = await server.get('/v1/test/big', { plan: 'community', headers: { 'Accept-Encoding': 'br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(br.bytes, Buffer.from(compress(BIG_BODY_TEXT, 'br', levels)));
    const gzip = await server.get('/v1/test/big', { plan: 'community', headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(gzip.bytes, Buffer.from(compress(BIG_BODY_TEXT, 'gzip', levels)));
  });

  it('sends every answer uncompressed with GEOAPI_COMPRESSION=off, with the ETag of the uncompressed body', async () => {
    const off = await startTestServer({ ...fixtureModules, env: { GEOAPI_COMPRESSION: 'off' } });
    try {
      const plain = await off.get('/v1/test/big', { plan: 'community' });
      const res = await off.get('/v1/test/big', { plan: 'community', headers: { 'Accept-Encoding': 'gzip, deflate, br, zstd' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], undefined);
      assert.equal(res.body, BIG_BODY_TEXT);
      assert.equal(res.headers['etag'], plain.headers['etag']);
    } finally {
      await off.close();
    }
  });
});
