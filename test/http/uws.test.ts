// Which uWebSockets.js build runs, and refusing to start without a native one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadUws, uwsCandidates, UwsUnavailableError } from '../../runtime/http/uws.js';

const CLI = fileURLToPath(new URL('../../runtime/cli/main.js', import.meta.url));

describe('uWebSockets.js loading', () => {
  it('loads a native binary (a .node file for this Node ABI), never the JavaScript fallback', () => {
    const { uws, build } = loadUws();
    assert.equal(typeof uws.App, 'function');
    assert.match(build.binary, new RegExp(`uws_${process.platform}_${process.arch}_${process.versions.modules}\\.node$`));
    assert.equal(build.abi, process.versions.modules);
    assert.match(build.version, /^20\./);
  });

  it('tries @btc-vision/uwebsockets.js first, then @trufflesuite/uws-js-unofficial', () => {
    assert.deepEqual(uwsCandidates({}), ['@btc-vision/uwebsockets.js', '@trufflesuite/uws-js-unofficial']);
    assert.deepEqual(uwsCandidates({ GEOAPI_UWS_CANDIDATES: 'none' }), []);
    assert.deepEqual(uwsCandidates({ GEOAPI_UWS_CANDIDATES: 'a, b' }), ['a', 'b']);
  });

  it('names every candidate it tried and why it failed', () => {
    assert.throws(() => loadUws(['geoapi-no-such-uws']), (error: Error) => {
      assert.ok(error instanceof UwsUnavailableError);
      assert.match(error.message, /Tried: geoapi-no-such-uws: not installed/);
      return true;
    });
    assert.throws(() => loadUws([]), /Tried: no candidates \(GEOAPI_UWS_CANDIDATES=none\)/);
  });

  it('reports why a build that does not load was skipped', (t) => {
    let loads = true;
    try {
      loadUws(['@btc-vision/uwebsockets.js']);
    } catch (error) {
      loads = false;
      assert.match((error as Error).message, /@btc-vision\/uwebsockets\.js: (.*does not load: .+|not installed|no binary .+)/);
    }
    if (loads) t.diagnostic('@btc-vision/uwebsockets.js loads natively on this machine');
  });

  it('refuses to serve without a loadable native build: exit code 1 and the attempts in the message', () => {
    for (const candidates of ['none', 'geoapi-no-such-uws']) {
      const run = spawnSync(process.execPath, [CLI, 'serve', '--snapshot', '/nonexistent', '--keys', '/nonexistent.json', '--port', '0'], {
        encoding: 'utf8',
        env: { ...process.env, GEOAPI_UWS_CANDIDATES: candidates },
      });
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /no native uWebSockets\.js binary loads on Node v\d+/);
      assert.match(run.stderr, candidates === 'none' ? /Tried: no candidates/ : /Tried: geoapi-no-such-uws: not installed/);
    }
  });
});
