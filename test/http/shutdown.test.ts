// SIGTERM: stop accepting, finish what is in flight, exit 0, even with idle keep-alive clients.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { startTestServer } from '../support/server.js';
import { fixtureModules } from './fixtures/modules.js';

describe('graceful shutdown', () => {
  it('finishes an in-flight request after SIGTERM and exits 0, with an idle keep-alive connection open', async () => {
    const server = await startTestServer({
      ...fixtureModules,
      threads: 2,
    });
    try {
      // An idle keep-alive connection: the server must not wait for it forever.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      await new Promise<void>((resolve, reject) => {
        http.get(`${server.url}/v1/countries`, { agent, headers: { 'X-GEOAPI-KEY': server.keys.community } }, (res) => {
          res.resume();
          res.on('end', resolve);
        }).on('error', reject);
      });

      const inFlight = server.get('/v1/test/slow?ms=1500&tag=inflight', { plan: 'community' });
      await server.waitForLog(/testSlow: started inflight/);
      const exitCode = server.stop();
      const res = await inFlight;
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), { slept: true });
      assert.equal(await exitCode, 0);
      assert.match(server.logs(), /SIGTERM: draining/);
      agent.destroy();
    } finally {
      await server.close();
    }
  });
});
