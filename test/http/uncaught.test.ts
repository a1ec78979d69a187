// An exception that no request's error path catches (a timer's, a promise's) in a worker thread
// stops the server as SIGTERM does. Left to Node, the thread ended with uWS's sockets open and
// libuv aborted the whole process (SIGABRT): in-flight requests on every thread lost, quota counts
// not saved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestServer } from '../support/server.js';
import { fixtureModules } from './fixtures/modules.js';

describe('an uncaught exception in a worker thread', () => {
  it('stops every thread cleanly instead of aborting the process, and logs which thread failed and why', async () => {
    const server = await startTestServer({ ...fixtureModules, threads: 2 });
    try {
      const res = await server.get('/v1/test/throw-later', { plan: 'community' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), { scheduled: true });
      // The test server's process exits 0 once every thread has; an abort would be SIGABRT.
      assert.deepEqual(await server.exit(), { code: 0, signal: null });
      // The worker's line (JSON: its stack's newlines escaped), then the main thread's.
      assert.match(server.logs(), /"thread":[01],"msg":"failed: uncaught exception: Error: deliberate uncaught failure\\n\s+at /);
      assert.match(server.logs(), /thread [01] failed: uncaught exception: deliberate uncaught failure; stopping every thread/);
    } finally {
      await server.close();
    }
  });
});
