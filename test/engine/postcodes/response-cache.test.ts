import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ifNoneMatchHits, ResponseCache, responseCacheLimitsFromEnv, strongEtag } from '../../../runtime/engine/postcodes/response-cache.js';

test('returns a stored response until its time-to-live ends', () => {
  const cache = new ResponseCache({ maxEntries: 10, maxBytes: 1 << 20 });
  cache.set('a', { body: '{}', etag: '"x"', expiresAtMs: 1000 });
  assert.equal(cache.get('a', 999)?.body, '{}');
  assert.equal(cache.get('a', 1000), undefined);
  assert.equal(cache.size, 0);
  assert.equal(cache.byteSize, 0);
});

test('evicts the least recently used entry beyond its entry bound', () => {
  const cache = new ResponseCache({ maxEntries: 2, maxBytes: 1 << 20 });
  cache.set('a', { body: 'A', etag: '"a"', expiresAtMs: 10 });
  cache.set('b', { body: 'B', etag: '"b"', expiresAtMs: 10 });
  cache.get('a', 0);
  cache.set('c', { body: 'C', etag: '"c"', expiresAtMs: 10 });
  assert.equal(cache.get('b', 0), undefined);
  assert.equal(cache.get('a', 0)?.body, 'A');
  assert.equal(cache.get('c', 0)?.body, 'C');
  assert.equal(cache.size, 2);
});

test('stays within its byte bound and skips bodies larger than the bound', () => {
  const cache = new ResponseCache({ maxEntries: 100, maxBytes: 100 });
  for (let i = 0; i < 20; i++) cache.set(`k${i}`, { body: 'x'.repeat(10), etag: '"e"', expiresAtMs: 10 });
  assert.ok(cache.byteSize <= 100, `byteSize ${cache.byteSize}`);
  assert.ok(cache.get('k19', 0));
  cache.set('huge', { body: 'x'.repeat(1000), etag: '"e"', expiresAtMs: 10 });
  assert.equal(cache.get('huge', 0), undefined);
});

test('makes a quoted strong ETag that depends on the body and the tier', () => {
  const etag = strongEtag('{"a":1}', 'basic');
  assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
  assert.equal(strongEtag('{"a":1}', 'basic'), etag);
  assert.notEqual(strongEtag('{"a":1}', 'full'), etag);
  assert.notEqual(strongEtag('{"a":2}', 'basic'), etag);
});

test('matches If-None-Match: exact tag, a list, weak form, or *', () => {
  const etag = '"abc"';
  assert.equal(ifNoneMatchHits(undefined, etag), false);
  assert.equal(ifNoneMatchHits('"abc"', etag), true);
  assert.equal(ifNoneMatchHits('"x", "abc"', etag), true);
  assert.equal(ifNoneMatchHits('W/"abc"', etag), true);
  assert.equal(ifNoneMatchHits('*', etag), true);
  assert.equal(ifNoneMatchHits('"abd"', etag), false);
  assert.equal(ifNoneMatchHits('abc', etag), false);
});

test('reads its bounds from the environment; 0 entries turns it off', () => {
  assert.deepEqual(responseCacheLimitsFromEnv({}), { maxEntries: 10_000, maxBytes: 32 * 1024 * 1024 });
  assert.deepEqual(responseCacheLimitsFromEnv({ GEOAPI_POSTCODE_CACHE_ENTRIES: '5', GEOAPI_POSTCODE_CACHE_MB: '2' }), { maxEntries: 5, maxBytes: 2 * 1024 * 1024 });
  assert.throws(() => responseCacheLimitsFromEnv({ GEOAPI_POSTCODE_CACHE_ENTRIES: 'lots' }), /GEOAPI_POSTCODE_CACHE_ENTRIES: expected a whole number, found "lots"/);
  const off = new ResponseCache(responseCacheLimitsFromEnv({ GEOAPI_POSTCODE_CACHE_ENTRIES: '0' }));
  off.set('a', { body: '{}', etag: '"x"', expiresAtMs: 10 });
  assert.equal(off.get('a', 0), undefined);
});
