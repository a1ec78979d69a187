// `npm start` stopped with SIGTERM (what a process manager or `kill` sends to npm) stops the server.
// It used to leave node running: npm forwards SIGTERM to its child, which was `sh -c "node …"`;
// dash does not exec a lone command and dies of the signal without passing it on, orphaning node.
// The script now execs node, so npm's child is the server itself and drains on SIGTERM.
// The script also pins glibc's mmap threshold (runtime/cli/allocator.ts), which the banner shows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, request } from '../support/server.js';
import { fixtureSnapshot, startProcess, tempDir } from '../cli/support.js';

test('npm start stopped with SIGTERM stops the server (it drains and its port closes)', async () => {
  const home = tempDir();
  const port = await freePort();
  const npm = startProcess('npm', ['start', '--silent', '--', '--threads', '1'], {
    env: { GEOAPI_HOME: home, GEOAPI_SNAPSHOT: fixtureSnapshot(), GEOAPI_PORT: String(port), GEOAPI_KEYS: undefined, GEOAPI_QUOTA_STATE_FILE: undefined, MALLOC_MMAP_THRESHOLD_: undefined },
  });
  await npm.waitFor(/Try it:[\s\S]*curl/);
  if (process.platform === 'linux') assert.match(npm.output(), /^allocator: MALLOC_MMAP_THRESHOLD_=131072 /m);
  const key = /X-GEOAPI-KEY: (\S+)"/.exec(npm.output())![1]!;
  assert.equal((await request(`http://127.0.0.1:${port}/v1/countries/US`, { key })).status, 200);

  npm.child.kill('SIGTERM');
  // 'close' fires only once every process holding the output pipes (npm and the server) is gone.
  await npm.closed;
  assert.match(npm.output(), /geoapi: SIGTERM: no new connections; finishing open ones/);
  assert.match(npm.output(), /geoapi: stopped/);
  await assert.rejects(request(`http://127.0.0.1:${port}/v1/countries/US`, { key }), /ECONNREFUSED/);
});
