// What the warm-up leaves compiled holds for real requests: after ready, a thread's first real
// requests (a real key, quotas counted in memory as shipped, uWS's own request and response
// objects) neither deoptimize nor recompile the request pipeline's entry points. The warm-up's
// quota gate was noQuotaGate, whose decisions had other hidden classes than the memory gate's:
// "wrong map" in authorize and afterQuota, which took serveRequest's code with them, and V8
// compiled them again while the first load waited. Read from V8's --trace-opt/--trace-deopt.
// (On the full dataset, the socket soak's requests also left serveRequest and parseRequest
// unoptimized at ready, which the in-process requests after them now mend: app.ts,
// IN_PROCESS_AFTER_SOCKET. The fixture's shorter requests do not show that one.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request, startTestServer, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';

const ENTRY_POINTS = ['serveRequest', 'parseRequest', 'authorize', 'afterQuota'];
// Requests of the kinds the warm-up sends, with a real key: a country, its states, a search, a phone number.
const PATHS = ['/v1/countries/BR', '/v1/countries/GB/states', '/v1/search/autocomplete?q=Camp', '/v1/search/fuzzy?q=Manchestr', '/v1/phone/parse?number=%2B442079460000', '/v1/countries/NO'];
const REQUESTS = 3000;

let server: TestServer;
before(async () => {
  server = await startTestServer({
    snapshotDir: fixtureSnapshot().dir,
    threads: 1,
    quota: 'default',
    nodeArgs: ['--trace-opt', '--trace-deopt'],
    // As shipped (the test harness's default is a short soak).
    env: { GEOAPI_WARM_UP_REQUESTS: '9000' },
    editPolicy: (policy) => {
      for (const plan of Object.values(policy['plans'] as Record<string, { quota?: { daily: number; monthly: number } }>)) {
        if (plan.quota) plan.quota = { ...plan.quota, daily: 1_000_000, monthly: 1_000_000 };
      }
    },
  });
  await server.untilReady(60_000);
  await server.waitForLog(/warm: every thread has prepared its indexes/, 60_000);
});
after(async () => {
  await server?.close();
});

describe('the first real requests after ready', () => {
  it('neither deoptimize nor recompile the request pipeline\'s entry points', async () => {
    const mark = server.stdout().length;
    for (let i = 0; i < REQUESTS; i++) {
      const res = await server.get(PATHS[i % PATHS.length]!, { plan: 'business' });
      assert.equal(res.status, 200, `${PATHS[i % PATHS.length]}: ${res.body.slice(0, 200)}`);
    }
    const trace = server.stdout().slice(mark).split('\n');
    const touched = trace.filter((line) => ENTRY_POINTS.some((name) => new RegExp(`(deoptimizing|compiling method) [^<]*<JSFunction ${name} `).test(line)));
    assert.deepEqual(touched, [], 'V8 deoptimized or compiled an entry point of the pipeline after ready');
  });
});
