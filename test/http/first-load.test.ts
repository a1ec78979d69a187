// What the warm-up leaves compiled holds for real requests: after ready, a thread's first real
// requests (a real key, quotas counted in memory as shipped, uWS's own request and response
// objects) neither deoptimize nor recompile the request pipeline's entry points. The warm-up's
// quota gate was noQuotaGate, whose decisions had other hidden classes than the memory gate's:
// "wrong map" in authorize and afterQuota, which took serveRequest's code with them, and V8
// compiled them again while the first load waited. Read from V8's --trace-opt/--trace-deopt.
// (On the full dataset, the socket soak's requests also left serveRequest and parseRequest
// unoptimized at ready, which the in-process requests after them now mend: app.ts,
// IN_PROCESS_AFTER_SOCKET. The fixture's shorter requests do not show that one.)
// And what V8's full collections leave of that code: a request's objects are garbage once it is
// answered, and a full collection that finds none of a class alive made V8 throw away the code
// made for it ("weak objects"), 12–21 functions of the pipeline each time, compiled again while
// requests waited; a thread now keeps the last request's objects per route (http/keepsakes.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request, startTestServer, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';

const ENTRY_POINTS = ['serveRequest', 'parseRequest', 'authorize', 'afterQuota'];
// Requests of the kinds the warm-up sends, with a real key: a country, its states, a search, a phone number.
const PATHS = ['/v1/countries/BR', '/v1/countries/GB/states', '/v1/search/autocomplete?q=Camp', '/v1/search/fuzzy?q=Manchestr', '/v1/phone/parse?number=%2B442079460000', '/v1/countries/NO'];
const REQUESTS = 3000;
/**
 * Functions a full collection threw away before http/keepsakes.ts (--trace-deopt, "weak objects"),
 * but for `write` and `get`: node's streams have functions of those names, whose code the socket
 * soak's sockets leave to be thrown away.
 */
const PIPELINE = [...ENTRY_POINTS, 'prepareBody', 'writeResponse', 'writeAll', 'outgoing', 'observe', 'keyOf', 'lookup', 'present', 'limitParam', 'thresholdParam', 'Context', 'PreparedBody', 'CachedBody', 'rendered', 'renderedJson', 'bodyOf', 'isReply', 'insert'];

/** A one-thread server on the fixture, quotas counted as shipped (raised), warm-up as shipped, ready and warmed. */
async function warmedServer(nodeArgs: string[]): Promise<TestServer> {
  const started = await startTestServer({
    snapshotDir: fixtureSnapshot().dir,
    threads: 1,
    quota: 'default',
    nodeArgs,
    // As shipped (the test harness's default is a short soak).
    env: { GEOAPI_WARM_UP_REQUESTS: '9000' },
    editPolicy: (policy) => {
      for (const plan of Object.values(policy['plans'] as Record<string, { quota?: { daily: number; monthly: number } }>)) {
        if (plan.quota) plan.quota = { ...plan.quota, daily: 1_000_000, monthly: 1_000_000 };
      }
    },
  });
  await started.untilReady(60_000);
  await started.waitForLog(/warm: every thread has prepared its indexes/, 60_000);
  return started;
}

let server: TestServer;
before(async () => {
  server = await warmedServer(['--trace-opt', '--trace-deopt']);
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

describe('a full collection of a request thread under load', () => {
  let collected: TestServer;
  before(async () => {
    // Every collection a full one: a few during the requests below, where a thread under real load
    // has one now and then.
    collected = await warmedServer(['--trace-deopt', '--trace-gc', '--gc-global']);
  });
  after(async () => {
    await collected?.close();
  });

  it('throws away none of the code V8 made for the pipeline', async () => {
    const mark = collected.stdout().length;
    for (let i = 0; i < REQUESTS; i++) {
      // Now and then a key nobody has (its HMAC) and a country nobody has (a 404): their objects too.
      if (i % 100 === 50) assert.equal((await collected.get('/v1/countries/BR', { key: `unknown-${i}` })).status, 401);
      else if (i % 100 === 75) assert.equal((await collected.get('/v1/countries/XX', { plan: 'business' })).status, 404);
      else assert.equal((await collected.get(PATHS[i % PATHS.length]!, { plan: 'business' })).status, 200);
    }
    const trace = collected.stdout().slice(mark).split('\n');
    assert.ok(trace.some((line) => /Mark-Compact|Mark-sweep/.test(line)), 'no full collection happened during the requests: the verdict below would say nothing');
    const thrownAway = trace.filter((line) => /marking dependent code/.test(line) && PIPELINE.some((name) => line.includes(`<SharedFunctionInfo ${name}>`)));
    assert.deepEqual(thrownAway, [], 'a full collection threw away code of the pipeline ("weak objects")');
  });
});
