// Quotas over real HTTP: real server processes (uWS, 2 worker threads each) with the test
// operations over the fake store; counters in memory (SharedArrayBuffer + state file) or in a real
// redis-server shared by two replicas.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { burst, ReplicaSetup, startReplica, type Replica } from './fixtures/replica.js';
import { redisUnavailableReason, startTestRedis, type TestRedis } from './fixtures/redis-server.js';

const DAILY_MESSAGE = 'Daily usage limit exceeded. Please try again tomorrow or contact support for higher limits.';
const UPGRADE_URL = 'https://geoapi.local/pricing';

function usedOf(res: { headers: Record<string, unknown> }): number {
  return Number(res.headers['x-geoapi-daily-used']);
}

describe('quota in memory, 2 worker threads', () => {
  const setup = new ReplicaSetup();
  const burstKey = setup.key('community', 'burst');
  const headerKey = setup.key('community', 'headers');
  const rulesKey = setup.key('community', 'rules');
  const refusedKey = setup.key('community', 'refused');
  let server: Replica;

  before(async () => {
    server = await startReplica(setup, { threads: 2, env: { GEOAPI_QUOTA: 'memory' } });
  });
  after(async () => {
    await server.stop();
    setup.remove();
  });

  it('150 simultaneous requests on a fresh Community key get exactly 100 × 200 and 50 × 429', async () => {
    const { responses, byStatus } = await burst(() => server.get('/v1/countries', burstKey), 150);
    assert.deepEqual(byStatus, { 200: 100, 429: 50 });
    const used = responses.filter((r) => r.status === 200).map(usedOf).sort((a, b) => a - b);
    assert.deepEqual(used, Array.from({ length: 100 }, (_, i) => i + 1), 'each success saw its own count');
  });

  it('every keyed response carries the plan, usage and RateLimit fields', async () => {
    const res = await server.get('/v1/countries', headerKey);
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-geoapi-plan'], 'community');
    assert.equal(res.headers['x-geoapi-daily-used'], '1');
    assert.equal(res.headers['x-geoapi-daily-limit'], '100');
    assert.equal(res.headers['x-geoapi-monthly-used'], '1');
    assert.equal(res.headers['x-geoapi-monthly-limit'], '3000');
    assert.match(String(res.headers['ratelimit-policy']), /^"daily";q=100;w=86400, "monthly";q=3000;w=(2419200|2505600|2592000|2678400)$/);
    assert.match(String(res.headers['ratelimit']), /^"daily";r=99;t=\d+, "monthly";r=2999;t=\d+$/);
  });

  it('401s and plan 403s do not count; handler errors (400, 404) do', async () => {
    const unauthorized = await server.get('/v1/countries', 'not-a-key');
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers['x-geoapi-daily-used'], undefined);
    const first = await server.get('/v1/countries', rulesKey);
    assert.equal(usedOf(first), 1);
    const forbidden = await server.get('/v1/search/nearby?latitude=1&longitude=2', rulesKey);
    assert.equal(forbidden.status, 403);
    // A keyed answer: it shows the usage, without counting itself.
    assert.equal(forbidden.headers['x-geoapi-daily-used'], '1');
    assert.match(String(forbidden.headers['ratelimit']), /^"daily";r=99;/);
    const notFound = await server.get('/v1/test/api-error', rulesKey);
    assert.equal(notFound.status, 404);
    assert.equal(usedOf(notFound), 2);
    const badQuery = await server.get('/v1/countries?a=1&a=2', rulesKey);
    assert.equal(badQuery.status, 400);
    assert.equal(usedOf(badQuery), 3);
  });

  it('a refusal is a shape-B 429 with Retry-After, no-store and the usage headers', async () => {
    await burst(() => server.get('/v1/countries', refusedKey), 100);
    const res = await server.get('/v1/countries', refusedKey);
    assert.equal(res.status, 429);
    const body = res.json();
    assert.equal(body.status, 'error');
    assert.equal(body.message, DAILY_MESSAGE);
    assert.equal(body.details.limit, 100);
    assert.equal(body.details.period, 'daily');
    assert.equal(body.details.upgradeUrl, UPGRADE_URL);
    assert.equal(body.details.tier, 'community');
    const resetAt = Date.parse(body.details.resetAt);
    assert.equal(new Date(resetAt).toISOString().slice(11), '00:00:00.000Z');
    assert.ok(resetAt > Date.now() && resetAt <= Date.now() + 86_400_000);
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 86_400, `Retry-After ${retryAfter}`);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['x-geoapi-daily-used'], '100');
    assert.match(String(res.headers['ratelimit']), /^"daily";r=0;t=\d+, /);
    // Refusals do not count.
    assert.equal((await server.get('/v1/countries', refusedKey)).headers['x-geoapi-daily-used'], '100');
  });
});

describe('quota state file', () => {
  it('a SIGKILLed server loses no count it had saved, and at most those after the last save', async () => {
    const setup = new ReplicaSetup();
    const key = setup.key('business');
    const stateFile = path.join(setup.dir, 'quota-state.json');
    const env = { GEOAPI_QUOTA: 'memory', GEOAPI_QUOTA_PERSIST_MS: '200' };
    const first = await startReplica(setup, { threads: 2, env });
    for (let i = 0; i < 30; i++) assert.equal((await first.get('/v1/countries', key)).status, 200);
    // Wait (by content, not by time) until a write holding all 30 has completed.
    const saved = (): number => {
      if (!existsSync(stateFile)) return 0;
      const buckets = JSON.parse(readFileSync(stateFile, 'utf8')).buckets as Array<{ dayUsed: number }>;
      return buckets[0]?.dayUsed ?? 0;
    };
    while (saved() < 30) await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 20; i++) assert.equal((await first.get('/v1/countries', key)).status, 200);
    await first.kill();
    const second = await startReplica(setup, { threads: 2, env });
    try {
      const restored = usedOf(await second.get('/v1/countries', key)) - 1;
      const lost = 50 - restored;
      assert.ok(restored >= 30 && restored <= 50, `restored ${restored} of 50 (30 were saved before the kill)`);
      assert.ok(lost <= 20, `lost ${lost}: more than the 20 counted after the last confirmed save`);
    } finally {
      await second.stop();
      setup.remove();
    }
  });

  it('a graceful stop saves every count, and a new UTC day starts at zero while the month goes on', async () => {
    const setup = new ReplicaSetup();
    const key = setup.key('starter');
    const env = { GEOAPI_QUOTA: 'memory', GEOAPI_QUOTA_PERSIST_MS: '60000' };
    const first = await startReplica(setup, { threads: 2, env, fixedNow: '2027-01-30T23:59:59.999Z' });
    for (let i = 0; i < 7; i++) await first.get('/v1/countries', key);
    assert.equal(await first.stop(), 0);
    const sameDay = await startReplica(setup, { threads: 1, env, fixedNow: '2027-01-30T23:59:59.999Z' });
    const again = await sameDay.get('/v1/countries', key);
    assert.equal(again.headers['x-geoapi-daily-used'], '8', 'nothing lost on a graceful stop');
    await sameDay.stop();
    const nextDay = await startReplica(setup, { threads: 1, env, fixedNow: '2027-01-31T00:00:00.000Z' });
    const res = await nextDay.get('/v1/countries', key);
    assert.equal(res.headers['x-geoapi-daily-used'], '1');
    assert.equal(res.headers['x-geoapi-monthly-used'], '9');
    await nextDay.stop();
    const nextMonth = await startReplica(setup, { threads: 1, env, fixedNow: '2027-02-01T00:00:00.000Z' });
    const feb = await nextMonth.get('/v1/countries', key);
    assert.equal(feb.headers['x-geoapi-monthly-used'], '1');
    assert.match(String(feb.headers['ratelimit-policy']), /w=2419200$/);
    await nextMonth.stop();
    setup.remove();
  });
});

const redisSkip = redisUnavailableReason(true);
if (redisSkip && process.env['CI'] === 'true') {
  it('Redis quota tests need redis-server under CI', () => assert.fail(redisSkip));
}

describe('quota in Redis, two replicas with 2 worker threads each', { skip: redisSkip ?? false }, () => {
  const setup = new ReplicaSetup();
  const burstKey = setup.key('community', 'burst');
  const echoKey = setup.key('supporter', 'echo');
  const outageKey = setup.key('business', 'outage');
  let redis: TestRedis;
  let a: Replica;
  let b: Replica;

  before(async () => {
    redis = await startTestRedis({ own: true });
    const env = { GEOAPI_REDIS_URL: redis.url, GEOAPI_REPLICAS: '2', GEOAPI_QUOTA_LOG_INTERVAL_MS: '60000' };
    [a, b] = await Promise.all([startReplica(setup, { threads: 2, env }), startReplica(setup, { threads: 2, env })]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
    setup.remove();
  });

  it('150 simultaneous requests on a fresh Community key across both get exactly 100 × 200 and 50 × 429', async () => {
    let turn = 0;
    const { responses, byStatus } = await burst(() => (turn++ % 2 === 0 ? a : b).get('/v1/countries', burstKey), 150);
    assert.deepEqual(byStatus, { 200: 100, 429: 50 });
    assert.deepEqual(
      responses.filter((r) => r.status === 200).map(usedOf).sort((x, y) => x - y),
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    const refused = responses.find((r) => r.status === 429)!;
    assert.equal(refused.json().message, DAILY_MESSAGE);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
  });

  it('requests waiting on Redis keep their path parameters, query and headers', async () => {
    const res = await a.get('/v1/countries/US/states/CA/cities?limit=3', echoKey);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json().params, { ciso: 'US', siso: 'CA' });
    assert.deepEqual(res.json().query, { limit: '3' });
    const headers = await b.get('/v1/test/headers', echoKey, { 'X-Custom': 'kept' });
    assert.equal(headers.json().custom, 'kept');
    assert.equal(headers.headers['x-geoapi-daily-used'], '2');
    // A plan's 403 reads the usage from Redis without counting.
    const forbidden = await a.get('/v1/search/nearby?latitude=1&longitude=2', echoKey);
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.headers['x-geoapi-daily-used'], '2');
    assert.equal((await b.get('/v1/countries', echoKey)).headers['x-geoapi-daily-used'], '3');
  });

  it('Redis killed and restarted mid-run: no 5xx, per-replica counting meanwhile, Redis counting resumes', async () => {
    const statuses: number[] = [];
    const send = async (replica: Replica): Promise<void> => {
      const res = await replica.get('/v1/countries', outageKey);
      statuses.push(res.status);
    };
    for (let i = 0; i < 10; i++) await send(i % 2 === 0 ? a : b);
    await redis.kill();
    const during = await burst(() => a.get('/v1/countries', outageKey), 20);
    statuses.push(...during.responses.map((r) => r.status));
    // Replicas=2: each allows half the plan's quota while Redis is away.
    assert.equal(during.responses[0]!.headers['x-geoapi-daily-limit'], '12500');
    await redis.restart();
    let resumed = false;
    for (let attempt = 0; attempt < 100 && !resumed; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const res = await b.get('/v1/countries', outageKey);
      statuses.push(res.status);
      resumed = res.headers['x-geoapi-daily-limit'] === '25000';
    }
    assert.ok(resumed, 'counting in Redis resumed after the restart');
    // Both replicas are back on Redis (each worker reconnects by itself).
    let bothBack = false;
    for (let attempt = 0; attempt < 100 && !bothBack; attempt++) {
      const results = await Promise.all([a, a, b, b].map((r) => r.get('/v1/countries', outageKey)));
      statuses.push(...results.map((r) => r.status));
      bothBack = results.every((r) => r.headers['x-geoapi-daily-limit'] === '25000');
      if (!bothBack) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(bothBack, 'every worker of both replicas counts in Redis again');
    assert.deepEqual([...new Set(statuses)], [200], 'every answer was a 200 (never a 5xx)');
    const logs = a.logs();
    assert.match(logs, /Redis at 127\.0\.0\.1:\d+ unavailable/);
    assert.match(logs, /reachable again/);
  });
});
