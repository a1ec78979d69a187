// Rebalancer (runtime/http/rebalance.ts): a request thread answering more than its share of the
// requests closes one connection per window of its answers; the others close none. Then a real
// two-thread server: a keep-alive client whose every request lands on one thread gets
// `Connection: close` now and then, and every answer.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { REBALANCE_LONE_INTERVAL_MS, REBALANCE_WINDOW, Rebalancer, threadAnswerCounts } from '../../runtime/http/rebalance.js';
import { fixtureModules } from './fixtures/modules.js';
import { rawRequest, startTestServer, type TestServer } from '../support/server.js';

/** Answers `perRound[i]` requests on thread i, round after round; returns the connections each closed. */
function run(rebalancers: Rebalancer[], perRound: number[], rounds: number): number[] {
  const closed = rebalancers.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    rebalancers.forEach((rebalancer, i) => {
      for (let n = 0; n < perRound[i]!; n++) {
        if (!rebalancer.onAnswer()) continue;
        rebalancer.closing();
        closed[i]!++;
      }
    });
  }
  return closed;
}

function threads(count: number): Rebalancer[] {
  const counts = threadAnswerCounts(count);
  return Array.from({ length: count }, (_, i) => new Rebalancer(counts, i, count));
}

describe('Rebalancer', () => {
  it('closes one connection per window on the thread answering three quarters of the requests, none on the other', () => {
    const closed = run(threads(2), [30, 10], 400);
    // 12,000 answers on thread 0: one look per 256, each finding ~75 % of the window's answers.
    assert.ok(closed[0]! >= Math.floor(12_000 / REBALANCE_WINDOW) - 2, `thread 0 closed ${closed[0]}`);
    assert.ok(closed[0]! <= Math.ceil(12_000 / REBALANCE_WINDOW), `thread 0 closed ${closed[0]}`);
    assert.equal(closed[1], 0);
  });

  it('closes nothing while the threads answer even shares, or within the tolerance', () => {
    assert.deepEqual(run(threads(2), [20, 20], 500), [0, 0]);
    assert.deepEqual(run(threads(2), [21, 19], 500), [0, 0]); // 52.5 %, under 57.5 %
    assert.deepEqual(run(threads(4), [11, 10, 10, 9], 500), [0, 0, 0, 0]);
  });

  it('sheds from whichever thread is the busier one at the time', () => {
    const rebalancers = threads(2);
    const first = run(rebalancers, [40, 10], 100);
    const second = run(rebalancers, [10, 40], 100);
    assert.ok(first[0]! > 0 && first[1] === 0, `first: ${first}`);
    assert.ok(second[1]! > 0 && second[0] === 0, `second: ${second}`);
  });

  it('leaves the close to the next answer when an answer cannot close its connection', () => {
    const [busy] = threads(2);
    let asked = 0;
    for (let n = 0; n < REBALANCE_WINDOW; n++) if (busy!.onAnswer()) asked++;
    assert.equal(asked, 1, 'the window\'s last answer is asked to close');
    assert.equal(busy!.onAnswer(), true, 'still asked: the last one did not close');
    busy!.closing();
    assert.equal(busy!.onAnswer(), false);
    assert.equal(busy!.closed, 1);
  });

  it('closes at most one connection per REBALANCE_LONE_INTERVAL_MS while no other thread answers anything (a lone client cannot be evened out)', () => {
    let now = 0;
    const counts = threadAnswerCounts(2);
    const lone = new Rebalancer(counts, 0, 2, () => now);
    new Rebalancer(counts, 1, 2, () => now); // answers nothing
    const closedIn = (answers: number): number => {
      let closed = 0;
      for (let n = 0; n < answers; n++) {
        if (!lone.onAnswer()) continue;
        lone.closing();
        closed++;
      }
      return closed;
    };
    assert.equal(closedIn(10 * REBALANCE_WINDOW), 1, 'the first window closes one, the next nine wait');
    now += REBALANCE_LONE_INTERVAL_MS / 2;
    assert.equal(closedIn(10 * REBALANCE_WINDOW), 0);
    now += REBALANCE_LONE_INTERVAL_MS / 2;
    assert.equal(closedIn(10 * REBALANCE_WINDOW), 1);
  });

  it('never closes a connection with one thread, or when turned off', () => {
    const counts = threadAnswerCounts(1);
    assert.deepEqual(run([new Rebalancer(counts, 0, 1)], [50], 100), [0]);
    assert.deepEqual(run([Rebalancer.off(), Rebalancer.off()], [50, 1], 100), [0, 0]);
  });

  it('counts past 2^31 answers: differences are taken modulo 2^32', () => {
    const counts = threadAnswerCounts(2);
    // Both counts just below the wrap, as after days of traffic: counting goes on from there.
    counts[0] = 0x7fffffff - 100;
    counts[1] = 0x7fffffff - 100;
    const busy = new Rebalancer(counts, 0, 2);
    const idle = new Rebalancer(counts, 1, 2);
    const closed = run([busy, idle], [3, 1], 2000);
    assert.ok(closed[0]! > 0, `busy closed ${closed[0]}`);
    assert.equal(closed[1], 0);
  });

  it('gives the warm-up one that counts the same way and never closes a connection', () => {
    const [thread] = threads(2);
    const warmUp = thread!.forWarmUp();
    assert.deepEqual(run([warmUp], [50], 100), [0]);
    assert.equal(Rebalancer.off().forWarmUp().onAnswer(), false);
  });

  it('shares its counts through one SharedArrayBuffer, as the threads receive it', () => {
    const counts = threadAnswerCounts(3);
    assert.ok(counts.buffer instanceof SharedArrayBuffer);
    assert.equal(counts.length, 3);
  });
});

/** Requests one after another over one keep-alive connection at a time (a new one when the server closes it), until `closes` closes or `count` requests. */
async function sequential(server: TestServer, count: number, closes = Infinity): Promise<{ statuses: Set<number>; closes: number; sockets: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses = new Set<number>();
  const sockets = new Set<object>();
  let closed = 0;
  try {
    for (let i = 0; i < count && closed < closes; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(`${server.url}/v1/countries`, { agent, headers: { 'X-GEOAPI-KEY': server.keys.business } }, (res) => {
          statuses.add(res.statusCode ?? 0);
          sockets.add(res.socket);
          if (res.headers.connection === 'close') closed++;
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
      });
    }
  } finally {
    agent.destroy();
  }
  return { statuses, closes: closed, sockets: sockets.size };
}

describe('a two-thread server rebalancing its connections', () => {
  let on: TestServer;
  let off: TestServer;
  before(async () => {
    [on, off] = await Promise.all([
      startTestServer({ ...fixtureModules, threads: 2, args: ['--metrics-port', '0'] }),
      startTestServer({ ...fixtureModules, threads: 2, args: ['--metrics-port', '0', '--rebalance-connections', 'off'] }),
    ]);
    await Promise.all([on.untilReady(), off.untilReady()]);
  });
  after(async () => {
    await Promise.all([on?.close(), off?.close()]);
  });

  it('announces the close to a client pipelining a burst, and every answer before it is whole and in order', async () => {
    // HTTP/1.1 lets a server close after any answer; a pipelining client resends what follows it.
    const count = 3 * REBALANCE_WINDOW;
    const requests = Array.from({ length: count }, (_, i) => `GET /v1/countries?n=${i} HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${on.keys.business}\r\n\r\n`).join('');
    let rest = await rawRequest(on.port, requests);
    const seen: number[] = [];
    let closed = false;
    for (let headEnd = rest.indexOf('\r\n\r\n'); headEnd >= 0; headEnd = rest.indexOf('\r\n\r\n')) {
      const head = rest.slice(0, headEnd);
      assert.ok(!closed, 'nothing after the answer that closed the connection');
      assert.match(head, /^HTTP\/1\.1 200 /);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
      const body = JSON.parse(Buffer.from(rest.slice(headEnd + 4, headEnd + 4 + length), 'latin1').toString('utf8')) as { query: { n: string } };
      seen.push(Number(body.query.n));
      closed = /\r\nconnection: close/i.test(head);
      rest = rest.slice(headEnd + 4 + length);
    }
    assert.equal(rest, '');
    assert.ok(closed, 'the last answer says Connection: close');
    // Within two windows: the first look's window may still hold the answers of the test before.
    assert.ok(seen.length >= 1 && seen.length <= 2 * REBALANCE_WINDOW, `answers before the close: ${seen.length}`);
    assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => i));
  });

  it('closes the connection of a lone client keeping one thread busy, at most once per REBALANCE_LONE_INTERVAL_MS, and answers every request', async () => {
    const rebalanced = async (): Promise<number> =>
      [...(await (await fetch(on.metricsUrl!)).text()).matchAll(/^geoapi_thread_rebalanced_connections_total\{thread="\d+"\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    const before = await rebalanced();
    // One connection at a time: its thread answers every request of a window, the other none.
    const got = await sequential(on, 40_000, 2);
    assert.deepEqual([...got.statuses], [200]);
    assert.equal(got.closes, 2);
    // Each close is followed by a new connection, unless it closed the last answer's.
    assert.ok(got.sockets === got.closes || got.sockets === got.closes + 1, `${got.sockets} connections for ${got.closes} closes`);
    assert.equal((await rebalanced()) - before, got.closes);
  });

  it('keeps every connection open with --rebalance-connections off', async () => {
    const got = await sequential(off, 6 * REBALANCE_WINDOW);
    assert.deepEqual([...got.statuses], [200]);
    assert.equal(got.closes, 0);
    assert.equal(got.sockets, 1);
  });
});
