// The bare uWS server of the HTTP bench (bench/http-bare.ts): bodies of the asked sizes by
// request target, and a real child process answering with them; the wrk script that rotates
// over distinct targets.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BareBodies, BARE_SCRIPT as BARE, bodyOfSize } from '../../bench/http-bare.js';
import { get, rotatingScript, startChild, stopChild } from '../../bench/http.bench.js';


describe('bare server bodies', () => {
  it('makes bodies of exactly the size asked, JSON from 2 bytes up', () => {
    for (const size of [0, 1, 2, 3, 6209, 210_328]) assert.equal(bodyOfSize(size).byteLength, size);
    assert.deepEqual(JSON.parse(bodyOfSize(10).toString()), []);
    assert.throws(() => bodyOfSize(-1), RangeError);
    assert.throws(() => bodyOfSize(1.5), RangeError);
  });

  it('finds a body by path and query, else by path, else none', () => {
    const bodies = new BareBodies({ byTarget: { '/a?q=1': 5, '/a': 7, '/b?x=y': 5 }, byPath: { '/a': 9 } });
    assert.equal(bodies.bodyFor('/a', 'q=1')!.byteLength, 5);
    assert.equal(bodies.bodyFor('/a', undefined)!.byteLength, 7);
    assert.equal(bodies.bodyFor('/a', '')!.byteLength, 7);
    assert.equal(bodies.bodyFor('/a', 'q=2')!.byteLength, 9);
    assert.equal(bodies.bodyFor('/b', 'x=y'), bodies.bodyFor('/a', 'q=1'), 'bodies of one size are shared');
    assert.equal(bodies.bodyFor('/c', undefined), undefined);
  });

  it('falls back to the first pattern that matches the path (the report floor: a mean size per operation)', () => {
    const bodies = new BareBodies({
      byTarget: { '/v1/countries/FR': 3 },
      byPath: {},
      byPattern: [
        { pattern: '^/v1/countries/[^/]+/states$', size: 11 },
        { pattern: '^/v1/countries/[^/]+$', size: 13 },
      ],
    });
    assert.equal(bodies.bodyFor('/v1/countries/FR', undefined)!.byteLength, 3);
    assert.equal(bodies.bodyFor('/v1/countries/DE', undefined)!.byteLength, 13);
    assert.equal(bodies.bodyFor('/v1/countries/DE/states', 'limit=5')!.byteLength, 11);
    assert.equal(bodies.bodyFor('/v1/regions', undefined), undefined);
  });

  it('answers over uWS with the body of the target, 404 for others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geoapi-bare-'));
    const sizes = join(dir, 'sizes.json');
    writeFileSync(sizes, JSON.stringify({ byTarget: { '/v1/x?q=San': 1234 }, byPath: { '/v1/y': 10 } }));
    const bare = await startChild('bare', [BARE, sizes], /listening (\d+)/);
    try {
      const hit = await get(`${bare.url}/v1/x?q=San`, 'any');
      assert.equal(hit.status, 200);
      assert.equal(Buffer.byteLength(hit.body), 1234);
      const byPath = await get(`${bare.url}/v1/y?q=other`, 'any');
      assert.equal(byPath.status, 200);
      assert.equal(byPath.body.length, 10);
      assert.equal((await get(`${bare.url}/v1/z`, 'any')).status, 404);
    } finally {
      await stopChild(bare);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rotating wrk script', () => {
  it('lists every target once, quoted for Lua, and sends the key', () => {
    const script = rotatingScript(['/v1/search/autocomplete?q=San', '/v1/search/fuzzy?q=a%22b', 'odd"\\'], 'gk_key');
    assert.match(script, /"\/v1\/search\/autocomplete\?q=San",/);
    assert.match(script, /"odd\\"\\\\",/);
    assert.match(script, /wrk\.headers\["x-geoapi-key"\] = "gk_key"/);
    assert.match(script, /i = i % #targets \+ 1/);
  });
});
