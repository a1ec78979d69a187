// An exception nothing catches in `geoapi serve`'s main thread stops the server as SIGTERM does
// and exits 1. Left to Node, the process exited with the worker threads' uWS sockets open and
// libuv aborted it (SIGABRT, exit 134): open requests lost, quota counts not saved.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/server.js';
import { CLI, fixtureSnapshot, runCli, startProcess, tempDir } from './support.js';

const PRELOAD = fileURLToPath(new URL('./fixtures/throw-on-sigusr2.js', import.meta.url));

test('geoapi serve: an uncaught exception in the main thread stops every thread and exits 1, without aborting', async () => {
  const keys = join(tempDir('geoapi-uncaught-'), 'keys.json');
  assert.equal(runCli(['keys', 'add', '--plan', 'business', '--file', keys]).status, 0);
  const port = await freePort();
  const server = startProcess(process.execPath, ['--import', PRELOAD, CLI, 'serve', '--snapshot', fixtureSnapshot(), '--keys', keys, '--port', String(port), '--host', '127.0.0.1', '--threads', '2', '--quota', 'off']);
  await server.waitFor(/geoapi listening/);
  server.child.kill('SIGUSR2');
  assert.equal(await server.closed, 1, server.output());
  assert.match(server.output(), /geoapi: uncaught exception: Error: deliberate main-thread failure\n\s+at /);
  assert.match(server.output(), /geoapi: uncaught exception: no new connections; finishing open ones/);
  assert.match(server.output(), /geoapi: stopped/);
});
