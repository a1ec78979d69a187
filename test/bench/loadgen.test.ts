// The report's open-loop load generator (bench/report/load/loadgen.ts) with its rate ramped up, as
// a balancer's slow start sends a server just added: when each request is due, and a real run
// against a real server sending what the ramp makes due.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dueOffsetMs, runLoad } from '../../bench/report/load/loadgen.js';

/** How many of the requests are due before `ms` from the start. */
function dueBefore(ms: number, rate: number, rampSeconds: number): number {
  let n = 0;
  while (dueOffsetMs(n, rate, rampSeconds) < ms) n++;
  return n;
}

describe('open-loop load ramped up', () => {
  it('makes a request due every 1000 / rate ms without a ramp', () => {
    assert.equal(dueOffsetMs(0, 200), 0);
    assert.equal(dueOffsetMs(1, 200), 5);
    assert.equal(dueOffsetMs(400, 200), 2000);
    assert.equal(dueBefore(1000, 200, 0), 200);
  });

  it('makes rate · t² / (2 · ramp) requests due by t during the ramp, then the full rate', () => {
    const rate = 1000;
    const ramp = 4;
    // By 1, 2 and 4 s: 125, 500 and 2,000 requests (the rate reaches 1,000 req/s at 4 s).
    assert.equal(dueBefore(1000, rate, ramp), 125);
    assert.equal(dueBefore(2000, rate, ramp), 500);
    assert.equal(dueBefore(4000, rate, ramp), 2000);
    // Then one per ms, as without a ramp.
    assert.equal(dueBefore(5000, rate, ramp), 3000);
    assert.ok(Math.abs(dueOffsetMs(2001, rate, ramp) - dueOffsetMs(2000, rate, ramp) - 1) < 1e-9);
  });

  it('never makes a request due before the one sent ahead of it', () => {
    for (const ramp of [0, 0.5, 3]) {
      let previous = -1;
      for (let n = 0; n < 5000; n++) {
        const at = dueOffsetMs(n, 700, ramp);
        assert.ok(at >= previous, `ramp ${ramp}: request ${n} due at ${at} ms, before ${previous} ms`);
        previous = at;
      }
    }
  });

  describe('against a real server', () => {
    let server: Server;
    let port = 0;
    const dir = mkdtempSync(join(tmpdir(), 'geoapi-loadgen-'));
    const pathsFile = join(dir, 'paths.txt');

    before(async () => {
      writeFileSync(pathsFile, '/a\n/b\n');
      server = createServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2' });
        res.end('[]');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    after(() => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('sends over a ramp of the whole run half the requests the full rate would', async () => {
      const config = { port, key: 'k', pathsFile, mode: 'open' as const, connections: 4, seconds: 1, rate: 400 };
      const ramped = await runLoad({ ...config, rampSeconds: 1 });
      const full = await runLoad(config);
      // 200 and 400 due in the run; an answer arriving after its end counts as a latency only.
      const sent = (result: typeof full): number => result.completed + result.unsent;
      assert.ok(sent(ramped) > 150 && sent(ramped) <= 200, `ramped: ${sent(ramped)} sent`);
      assert.ok(sent(full) > 300 && sent(full) <= 400, `full rate: ${sent(full)} sent`);
      assert.equal(ramped.errors + ramped.non2xx, 0);
    });

    it('refuses a negative ramp', () => {
      assert.throws(() => runLoad({ port, key: 'k', pathsFile, mode: 'open', connections: 1, seconds: 1, rate: 10, rampSeconds: -1 }), /rampSeconds: expected 0 or more seconds, found -1/);
    });
  });
});
