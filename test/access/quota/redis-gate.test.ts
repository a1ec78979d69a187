// The Redis-backed gate against a real redis-server: exactness across replicas, calendar windows
// with an injected clock, and a Redis crash in the middle of a run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { callerFor } from '../../../runtime/access/gate.js';
import { loadPolicy, type Policy } from '../../../runtime/access/policy.js';
import { createQuotaGate, createQuotaShared, type QuotaOptions, type WorkerQuotaGate } from '../../../runtime/access/quota/index.js';
import type { QuotaDecision } from '../../../runtime/access/quota-hook.js';
import type { PlanName } from '../../../runtime/contract/index.js';
import { redisUnavailableReason, startTestRedis, type TestRedis } from './fixtures/redis-server.js';

const skipReason = redisUnavailableReason(false);
if (skipReason && process.env['CI'] === 'true') {
  test('Redis quota tests need redis-server under CI', () => assert.fail(skipReason));
}
const skip = skipReason ?? false;

let redis: TestRedis;
let admin: Redis;
const policy: Policy = loadPolicy();
const opened: WorkerQuotaGate[] = [];
let keyCounter = 0;

before(async () => {
  if (skip) return;
  redis = await startTestRedis();
  admin = new Redis(redis.url);
});

after(async () => {
  for (const gate of opened) await gate.close();
  if (skip) return;
  admin.disconnect();
  await redis.stop();
});

/** A gate as one replica's worker thread would have it. */
function replicaGate(url: string, overrides: Partial<QuotaOptions> = {}, logs: string[] = []): WorkerQuotaGate {
  const shared = createQuotaShared(policy, { options: { mode: 'redis', redisUrl: url, redisKeyPrefix: `t${process.pid}:`, ...overrides }, log: () => undefined });
  const gate = createQuotaGate({ policy, shared, threadIndex: 0, threadCount: 1, log: (m) => logs.push(m) });
  opened.push(gate);
  return gate;
}

const freshCaller = (plan: PlanName = 'community') => callerFor(`k${process.pid}-${++keyCounter}`, plan, policy);
const statusOf = (d: QuotaDecision): number => d.status ?? 200;

for (const batch of ['none', 'script'] as const) {
  test(`two replicas sharing Redis allow exactly 100 of 150 concurrent requests (batch=${batch})`, { skip }, async () => {
    const a = replicaGate(redis.url, { redisBatch: batch, replicas: 2 });
    const b = replicaGate(redis.url, { redisBatch: batch, replicas: 2 });
    const caller = freshCaller();
    const now = new Date();
    const decisions = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? a : b).consume(caller, now)));
    const statuses = decisions.map(statusOf);
    assert.equal(statuses.filter((s) => s === 200).length, 100);
    assert.equal(statuses.filter((s) => s === 429).length, 50);
    const used = decisions.filter((d) => d.allowed).map((d) => Number(d.headers['X-GEOAPI-Daily-Used'])).sort((x, y) => x - y);
    assert.deepEqual(used, Array.from({ length: 100 }, (_, i) => i + 1), 'each allowed request saw its own count');
    const refused = decisions.find((d) => !d.allowed)!;
    assert.equal(JSON.parse(refused.body!).details.period, 'daily');
    assert.equal(refused.headers['X-GEOAPI-Daily-Used'], '100');
  });
}

test('a replica may reach a Redis on the same host through its Unix socket', { skip: skip || (process.env['GEOAPI_TEST_REDIS_URL'] ? 'uses its own Redis socket' : false) }, async () => {
  const viaSocket = replicaGate(redis.socketUrl!);
  const viaTcp = replicaGate(redis.url);
  const caller = freshCaller();
  const now = new Date();
  assert.equal((await viaSocket.consume(caller, now)).headers['X-GEOAPI-Daily-Used'], '1');
  assert.equal((await viaTcp.consume(caller, now)).headers['X-GEOAPI-Daily-Used'], '2');
});

test('playground keys share one bucket across keys and replicas', { skip }, async () => {
  const a = replicaGate(redis.url);
  const b = replicaGate(redis.url);
  const now = new Date('2031-05-05T05:05:05Z');
  const first = await a.consume(callerFor('pg-1', 'playground', policy), now);
  const second = await b.consume(callerFor('pg-2', 'playground', policy), now);
  assert.equal(first.headers['X-GEOAPI-Daily-Used'], '1');
  assert.equal(second.headers['X-GEOAPI-Daily-Used'], '2');
  assert.equal(second.headers['X-GEOAPI-Plan'], 'playground');
});

test('days restart at 00:00 UTC and months on the 1st, across 28/29/30/31-day months', { skip }, async () => {
  const gate = replicaGate(redis.url);
  const caller = freshCaller();
  const at = async (iso: string): Promise<QuotaDecision> => gate.consume(caller, new Date(iso));
  // Fill the day, then the last millisecond of the day is refused and the next one is not.
  for (let i = 0; i < 100; i++) assert.equal(statusOf(await at('2027-01-31T10:00:00Z')), 200);
  const refused = await at('2027-01-31T23:59:59.999Z');
  assert.equal(refused.status, 429);
  assert.equal(refused.headers['Retry-After'], '1');
  assert.equal(JSON.parse(refused.body!).details.resetAt, '2027-02-01T00:00:00.000Z');
  const newMonth = await at('2027-02-01T00:00:00.000Z');
  assert.equal(newMonth.status, undefined);
  assert.equal(newMonth.headers['X-GEOAPI-Daily-Used'], '1');
  assert.equal(newMonth.headers['X-GEOAPI-Monthly-Used'], '1');
  assert.match(newMonth.headers['RateLimit-Policy']!, /w=2419200$/); // February 2027: 28 days
  // Windows end where the calendar says: 28 (2027-02), 29 (2028-02), 30 (2027-04), 31 (2027-12).
  for (const [last, next] of [
    ['2027-02-28T23:59:59.999Z', '2027-03-01T00:00:00.000Z'],
    ['2028-02-29T23:59:59.999Z', '2028-03-01T00:00:00.000Z'],
    ['2027-04-30T23:59:59.999Z', '2027-05-01T00:00:00.000Z'],
    ['2027-12-31T23:59:59.999Z', '2028-01-01T00:00:00.000Z'],
  ] as const) {
    const before = await at(last);
    const afterwards = await at(next);
    assert.equal(afterwards.headers['X-GEOAPI-Monthly-Used'], '1', `${next} starts a new month`);
    assert.notEqual(before.headers['X-GEOAPI-Monthly-Used'], '0');
  }
  // Keys expire one day after their window ends.
  const prefix = `t${process.pid}:{key:${caller.keyId}}`;
  assert.equal(await admin.call('EXPIRETIME', `${prefix}:d:2028-02-29`), Date.parse('2028-03-02T00:00:00Z') / 1000);
  assert.equal(await admin.call('EXPIRETIME', `${prefix}:m:2028-02`), Date.parse('2028-03-02T00:00:00Z') / 1000);
});

test('the monthly quota binds across days and its 429 says so', { skip }, async () => {
  const gate = replicaGate(redis.url);
  const caller = freshCaller();
  await admin.set(`t${process.pid}:{key:${caller.keyId}}:m:2029-06`, '2999');
  const ok = await gate.consume(caller, new Date('2029-06-30T12:00:00Z'));
  assert.equal(ok.headers['X-GEOAPI-Monthly-Used'], '3000');
  const refused = await gate.consume(caller, new Date('2029-06-30T12:00:01Z'));
  assert.equal(refused.status, 429);
  const body = JSON.parse(refused.body!);
  assert.equal(body.message, 'Monthly usage limit exceeded. Please upgrade for higher limits.');
  assert.deepEqual(body.details, { limit: 3000, period: 'monthly', resetAt: '2029-07-01T00:00:00.000Z', upgradeUrl: policy.upgradeUrl, tier: 'community' });
  assert.equal(refused.headers['Retry-After'], String(12 * 3600 - 1));
  // Refusals do not count.
  assert.equal(await admin.get(`t${process.pid}:{key:${caller.keyId}}:m:2029-06`), '3000');
  // Nor does a peek (a plan's 403 shows the usage).
  const peeked = await gate.peek(caller, new Date('2029-06-30T12:00:02Z'));
  assert.equal(peeked['X-GEOAPI-Monthly-Used'], '3000');
  assert.equal(peeked['X-GEOAPI-Daily-Used'], '1');
  assert.equal(await admin.get(`t${process.pid}:{key:${caller.keyId}}:m:2029-06`), '3000');
});

test('Redis killed mid-run: answers continue from per-replica counters, one log line, Redis counting resumes', { skip: redisUnavailableReason(true) ?? false }, async () => {
  const own = await startTestRedis({ own: true });
  try {
    const logs: string[] = [];
    const gate = replicaGate(own.url, { replicas: 4, logIntervalMs: 60_000 }, logs);
    const caller = freshCaller();
    const now = new Date();
    for (let i = 0; i < 10; i++) assert.equal((await gate.consume(caller, now)).allowed, true);
    await own.kill();
    // 40 requests while Redis is down: the fallback allows ceil(100 / 4) = 25, never throws.
    const during = await Promise.all(Array.from({ length: 40 }, () => Promise.resolve(gate.consume(caller, now))));
    assert.equal(during.filter((d) => d.allowed).length, 25);
    assert.equal(during.filter((d) => d.status === 429).length, 15);
    assert.equal(during[0]!.headers['X-GEOAPI-Daily-Limit'], '25');
    // 40 fallback decisions and repeated reconnection errors: one line for each kind, not 40.
    assert.equal(logs.filter((m) => m.includes('unavailable')).length, 1, JSON.stringify(logs));
    assert.match(logs.find((m) => m.includes('unavailable'))!, /answering from this replica's counters at 1\/4 of each quota/);
    assert.ok(logs.filter((m) => !m.includes('unavailable')).length <= 1, JSON.stringify(logs));
    await own.restart();
    // The client reconnects by itself; wait for it through the gate's own behaviour.
    let back: QuotaDecision | undefined;
    for (let attempt = 0; attempt < 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const probe = await gate.consume(freshCaller(), now);
      if (probe.headers['X-GEOAPI-Daily-Limit'] === '100') {
        back = probe;
        break;
      }
    }
    assert.ok(back, 'Redis counting resumed after the restart');
    // The restarted Redis kept nothing (no persistence in this test): counting starts again there.
    const resumed = await gate.consume(caller, now);
    assert.equal(resumed.allowed, true);
    assert.equal(resumed.headers['X-GEOAPI-Daily-Limit'], '100');
    assert.equal(resumed.headers['X-GEOAPI-Daily-Used'], '1');
    assert.ok(logs.some((m) => m.includes('reachable again')), `expected a recovery line, found ${JSON.stringify(logs)}`);
  } finally {
    await own.stop();
  }
});
