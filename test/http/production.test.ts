// Running geoapi in production (issue 14): probes, HEAD, the metrics listener, structured logs
// without keys or phone numbers, and GETs carrying a body refused — each against a real server
// on a real port (the fixture operations over the fake store).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixtureModules } from './fixtures/modules.js';
import { FAKE_DATA_VERSION } from './fixtures/fake-store.js';
import { freePort, REPO_ROOT, request, startTestServer, type TestServer } from '../support/server.js';

const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const headOf = (answer: string): string => answer.slice(0, answer.indexOf('\r\n\r\n'));
const bodyOf = (answer: string): string => answer.slice(answer.indexOf('\r\n\r\n') + 4);

/** The JSON log lines of a server so far. */
function logEvents(server: TestServer): Record<string, any>[] {
  return server.logs().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, any>);
}

/** Waits for the log event of a request id (events arrive asynchronously from the worker). */
async function eventFor(server: TestServer, requestId: string): Promise<Record<string, any>> {
  await server.waitForLog(new RegExp(`"requestId":"${requestId}"`));
  return logEvents(server).find((event) => event['requestId'] === requestId)!;
}

/** The value of one sample in Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const found = Object.fromEntries([...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[2]);
  }
  return undefined;
}

/** One keep-alive socket: send a request, read one answer (up to the end of its headers and Content-Length bytes). */
class KeepAlive {
  private buffer = '';
  private waiter: (() => void) | null = null;
  closed = false;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('latin1');
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
  }
  static open(port: number): Promise<KeepAlive> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new KeepAlive(socket)));
    });
  }
  async ask(path: string): Promise<string> {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const length = Number(/content-length: (\d+)/i.exec(this.buffer.slice(0, end))?.[1] ?? 0);
        if (this.buffer.length >= end + 4 + length) {
          const answer = this.buffer.slice(0, end + 4 + length);
          this.buffer = this.buffer.slice(end + 4 + length);
          return answer;
        }
      }
      if (this.closed) return this.buffer;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }
  end(): void {
    this.socket.destroy();
  }
}

describe('geoapi in production', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ...fixtureModules, threads: 2, quota: 'default', args: ['--metrics-port', '0', '--access-log'] });
  });
  after(async () => server?.close());

  describe('probes', () => {
    it('GET and HEAD /healthz and /readyz answer 200 without a key', async () => {
      for (const path of ['/healthz', '/readyz']) {
        const got = await server.get(path);
        assert.equal(got.status, 200, path);
        assert.equal(got.headers['cache-control'], 'no-store');
        assert.deepEqual(got.json(), { status: path === '/healthz' ? 'ok' : 'ready' });
        const head = await server.get(path, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.body, '');
        assert.equal(head.headers['content-length'], String(got.bytes.length));
      }
    });

    it('probes are neither counted in the metrics nor logged', async () => {
      for (let i = 0; i < 3; i++) await server.get('/healthz');
      const marker = await server.get('/v1/countries', { plan: 'business' });
      await eventFor(server, String(marker.headers['x-request-id']));
      assert.ok(!logEvents(server).some((event) => /healthz|readyz/.test(String(event['target']))), 'no probe in the access log');
      const text = (await request(server.metricsUrl!)).body;
      assert.doesNotMatch(text, /healthz|readyz/);
    });
  });

  it('metrics show the response caches against their one budget, and the worker threads\' heaps', async () => {
    // Two threads share the default budget; a cached answer is held by the thread that rendered it.
    for (let i = 0; i < 4; i++) assert.equal((await server.get('/v1/countries/US/postcodes/94105', { plan: 'business' })).status, 200);
    const text = (await request(server.metricsUrl!)).body;
    assert.equal(sample(text, 'geoapi_response_cache_budget_bytes', {}), 32 * 1024 * 1024);
    assert.ok(sample(text, 'geoapi_response_cache_entries', {})! >= 1, text);
    assert.ok(sample(text, 'geoapi_response_cache_bytes', {})! > 0);
    assert.ok(sample(text, 'geoapi_cache_lookups_total', { cache: 'postcodeLookup', result: 'hit' })! >= 1, 'four lookups of one answer on two threads: at least one hit');
    assert.equal(sample(text, 'geoapi_response_cache_evictions_total', {}), 0);
    for (const name of ['geoapi_worker_heap_used_bytes', 'geoapi_worker_heap_total_bytes', 'geoapi_worker_external_bytes']) assert.ok(sample(text, name, {})! > 0, name);
  });

  it('metrics count each thread’s answered requests and busy time, which add up to every request answered', async () => {
    // Per thread, not summed: how the kernel spread the connections over the threads shows.
    const read = async (): Promise<{ requests: number[]; busy: number[]; total: number }> => {
      const text = (await request(server.metricsUrl!)).body;
      const perThread = (name: string): number[] => ['0', '1'].map((thread) => sample(text, name, { thread })!);
      let total = 0;
      for (const line of text.split('\n')) if (line.startsWith('geoapi_requests_total{')) total += Number(line.slice(line.lastIndexOf(' ') + 1));
      return { requests: perThread('geoapi_thread_requests_total'), busy: perThread('geoapi_thread_busy_seconds_total'), total };
    };
    const before = await read();
    for (const value of [...before.requests, ...before.busy]) assert.ok(Number.isFinite(value) && value >= 0, JSON.stringify(before));
    const sent = 24;
    for (let i = 0; i < sent; i++) assert.ok((await server.get(`/v1/countries/US/postcodes/9410${i % 10}`, { plan: 'business' })).status < 500); // 200s and 404s: answered all the same
    const after = await read();
    const answered = after.requests[0]! - before.requests[0]! + (after.requests[1]! - before.requests[1]!);
    assert.equal(answered, sent);
    assert.equal(after.total - before.total, sent, 'the threads’ counts and geoapi_requests_total agree');
    assert.ok(after.busy[0]! >= before.busy[0]! && after.busy[1]! >= before.busy[1]!, 'busy time only grows');
    assert.ok(after.busy[0]! + after.busy[1]! > before.busy[0]! + before.busy[1]!, 'answering took time on some thread');
  });

  describe('HEAD', () => {
    it('HEAD on an operation answers the GET\'s status and headers, Content-Length of its body, and no body', async () => {
      for (const path of ['/v1/countries', '/v1/test/big', '/v1/countries/NOPE/states/X/cities?bad=1']) {
        const got = await server.get(path, { plan: 'business' });
        const head = await server.get(path, { plan: 'business', method: 'HEAD' });
        assert.equal(head.status, got.status, path);
        assert.equal(head.body, '');
        assert.equal(head.headers['content-length'], String(got.bytes.length), path);
        for (const name of ['content-type', 'cache-control', 'x-geoapi-plan', 'x-geoapi-data-version', 'vary', 'x-geoapi-daily-limit']) {
          assert.equal(head.headers[name], got.headers[name], `${path}: ${name}`);
        }
        // The test operations echo the request time, so only a fixed body has the same ETag twice.
        if (path === '/v1/test/big') assert.equal(head.headers['etag'], got.headers['etag'], `${path}: etag`);
      }
    });

    it('HEAD without a key answers 401, and HEAD on an unknown path 404, without a body', async () => {
      const unauthorized = await server.get('/v1/countries', { method: 'HEAD' });
      assert.equal(unauthorized.status, 401);
      assert.equal(unauthorized.body, '');
      const missing = await server.get('/v1/nothing-here', { method: 'HEAD' });
      assert.equal(missing.status, 404);
      assert.equal(missing.body, '');
    });
  });

  describe('metrics', () => {
    it('listens on 127.0.0.1 on its own port, not on the API port', async () => {
      assert.match(server.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      assert.notEqual(new URL(server.metricsUrl!).port, String(server.port));
      assert.equal((await server.get('/metrics')).status, 404, 'the API port has no /metrics');
    });

    it('counts requests by operation and status across every worker thread', async () => {
      const before = (await request(server.metricsUrl!)).body;
      const count = (text: string, status: string): number => sample(text, 'geoapi_requests_total', { operation: 'phoneByCountry', status }) ?? 0;
      const threads = new Set<string>();
      const n = 30;
      for (let i = 0; i < n; i++) {
        const res = await server.get('/v1/phone/US', { plan: 'business' });
        threads.add(String(res.headers['x-request-id']).split('-')[1] ?? '');
      }
      await server.get('/v1/phone/US');
      const text = (await request(server.metricsUrl!)).body;
      assert.equal(threads.size, 2, 'both threads answered (SO_REUSEPORT spreads fresh connections)');
      assert.equal(count(text, '200') - count(before, '200'), n);
      assert.equal(count(text, '401') - count(before, '401'), 1);
      assert.equal(sample(text, 'geoapi_request_duration_seconds_count', { operation: 'phoneByCountry' }), count(text, '200') + count(text, '401'));
      assert.equal(sample(text, 'geoapi_request_duration_seconds_bucket', { operation: 'phoneByCountry', le: '+Inf' }), count(text, '200') + count(text, '401'));
      assert.ok((sample(text, 'geoapi_quota_decisions_total', { outcome: 'ok' }) ?? 0) >= n);
      assert.equal(sample(text, 'geoapi_snapshot_info', { data_version: FAKE_DATA_VERSION }), 1);
      assert.ok((sample(text, 'geoapi_snapshot_load_seconds', {}) ?? -1) >= 0);
      assert.ok((sample(text, 'geoapi_process_resident_memory_bytes', {}) ?? 0) > 0);
      assert.match(text, /# TYPE geoapi_request_duration_seconds histogram/);
    });
  });

  describe('logs', () => {
    it('with the access log on, each answer is one JSON line with time, level, request id, operation, status and duration', async () => {
      const res = await server.get('/v1/countries?limit=5', { plan: 'business' });
      const event = await eventFor(server, String(res.headers['x-request-id']));
      assert.equal(event['level'], 'info');
      assert.ok(!Number.isNaN(Date.parse(event['time'])));
      assert.equal(event['operation'], 'countriesList');
      assert.equal(event['status'], 200);
      assert.equal(typeof event['durationMs'], 'number');
      assert.equal(event['target'], '/v1/countries?limit=5');
    });

    it('a key or a phone number never appears in a log line', async () => {
      const key = server.keys.business;
      const numbers = ['+14155552671', '4155552671', '+44 20 7946 0958'];
      const ids: string[] = [];
      for (const number of numbers) {
        const query = `number=${encodeURIComponent(number)}&key=${encodeURIComponent(key)}&X-GEOAPI-KEY=${encodeURIComponent(key)}`;
        for (const path of [`/v1/phone/parse?${query}`, `/v1/test/throw?${query}`, `/v1/phone/${encodeURIComponent(number)}?${query}`, `/v1/countries/${key}`]) {
          ids.push(String((await server.get(path, { plan: 'business' })).headers['x-request-id']));
        }
      }
      for (const id of ids) await eventFor(server, id);
      await server.waitForLog(/"msg":"500 request/);
      const logs = server.logs();
      assert.ok(!logs.includes(key), 'no key');
      assert.ok(!logs.includes(key.slice(3, 20)), 'no part of a key');
      for (const number of numbers) {
        for (const form of [number, encodeURIComponent(number), number.replace(/\D/g, '')]) assert.ok(!logs.includes(form), `no ${form}`);
      }
      assert.ok(!/4155552671|79460958|7946/.test(logs), 'no digits of a phone number');
      const failed = logEvents(server).find((event) => event['requestId'] === ids[1]);
      assert.equal(failed?.['level'], 'error');
      assert.equal(failed?.['status'], 500);
      assert.match(String(failed?.['target']), /^\/v1\/test\/throw\?number=\[redacted\]&key=\[redacted\]/);
    });
  });

  describe('a GET carrying a body', () => {
    const key = (): string => `X-GEOAPI-KEY: ${server.keys.business}`;

    it('is answered 400 in the error shape and the connection closed (Content-Length > 0, Transfer-Encoding, two Content-Length)', async () => {
      for (const framing of ['Content-Length: 5\r\n\r\nhello', 'Content-Length: 5\r\n\r\n', 'Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n', 'Content-Length: 0\r\nContent-Length: 0\r\n\r\n']) {
        const answer = await server.raw(`GET /v1/countries HTTP/1.1\r\nHost: x\r\n${key()}\r\n${framing}`, 5000);
        assert.equal(statusOf(answer), 400, `${framing}: ${answer}`);
        assert.match(headOf(answer), /^Connection: close$/im);
        assert.equal(JSON.parse(bodyOf(answer)).status, 'error');
        assert.ok(!answer.endsWith('[client timeout]'), 'the server closed the connection');
      }
      const head = await server.raw(`HEAD /v1/countries HTTP/1.1\r\nHost: x\r\n${key()}\r\nContent-Length: 3\r\n\r\nabc`, 5000);
      assert.equal(statusOf(head), 400, head);
    });

    it('a request smuggled behind the body is never parsed: no second answer, the connection closed', async () => {
      for (const framing of ['Content-Length: 5\r\n\r\nhello', 'Content-Length: 1\r\nContent-Length: 30\r\n\r\nA', 'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n']) {
        const answer = await server.raw(`GET /v1/countries HTTP/1.1\r\nHost: x\r\n${key()}\r\n${framing}GET /v1/countries/FR HTTP/1.1\r\nHost: x\r\n${key()}\r\n\r\n`, 5000);
        assert.ok(!answer.endsWith('[client timeout]'), `the server closed the connection: ${answer}`);
        assert.ok((answer.match(/HTTP\/1\.1 /g) ?? []).length <= 1, `one answer at most:\n${answer}`);
        assert.doesNotMatch(answer, /HTTP\/1\.1 200/);
      }
    });

    it('Content-Length: 0 is not a body', async () => {
      const answer = await server.raw(`GET /v1/countries HTTP/1.1\r\nHost: x\r\n${key()}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, 5000);
      assert.equal(statusOf(answer), 200, answer);
    });
  });

  describe('the uWebSockets fingerprint header', () => {
    it('is written by the uWS build itself (compile-time only) and hidden by the shipped nginx front', async (t) => {
      const answer = await server.raw('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 5000);
      const marked = /^uWebSockets:/im.test(headOf(answer));
      t.diagnostic(`this build (${server.uws.packageName}@${server.uws.version}) ${marked ? 'writes' : 'does not write'} the uWebSockets header`);
      if (marked) assert.match(readFileSync(join(REPO_ROOT, 'deploy/nginx/geoapi.conf'), 'utf8'), /proxy_hide_header\s+uWebSockets;/);
    });
  });
});

describe('probes and logs of another configuration', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ...fixtureModules, threads: 1, args: ['--slow-ms', '50'] });
  });
  after(async () => server?.close());

  it('metrics are off unless --metrics-port is set', () => {
    assert.equal(server.metricsUrl, null);
  });

  it('without the access log, 5xx and slow answers are still logged, other answers are not', async () => {
    const fast = String((await server.get('/v1/countries', { plan: 'business' })).headers['x-request-id']);
    const slow = String((await server.get('/v1/test/slow?ms=120', { plan: 'business' })).headers['x-request-id']);
    const failed = String((await server.get('/v1/test/throw', { plan: 'business' })).headers['x-request-id']);
    const slowEvent = await eventFor(server, slow);
    assert.equal(slowEvent['level'], 'warn');
    assert.equal(slowEvent['msg'], 'slow request');
    assert.ok(slowEvent['durationMs'] >= 50);
    const failedEvent = await eventFor(server, failed);
    assert.equal(failedEvent['level'], 'error');
    // Events of one thread arrive in order: the fast request, answered first, would be there by now.
    assert.ok(!logEvents(server).some((event) => event['requestId'] === fast));
  });

  it('/readyz answers 503 while the server drains, on a connection opened before', async () => {
    const conn = await KeepAlive.open(server.port);
    assert.equal(statusOf(await conn.ask('/readyz')), 200);
    const exit = server.stop();
    await server.waitForLog(/SIGTERM: draining/);
    let answer = '';
    // The worker learns of the stop asynchronously: ask again until it answers as draining.
    for (let i = 0; i < 200 && !conn.closed; i++) {
      answer = await conn.ask('/readyz');
      if (statusOf(answer) !== 200) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(statusOf(answer), 503, answer);
    assert.deepEqual(JSON.parse(bodyOf(answer)), { status: 'draining' });
    conn.end();
    assert.equal(await exit, 0);
  });
});

describe('quota decisions in the metrics', () => {
  it('with Redis unreachable, answers are counted as fail_open (and still answered)', async () => {
    const redisPort = await freePort();
    const server = await startTestServer({ ...fixtureModules, quota: 'default', args: ['--quota', 'redis', '--redis', `redis://127.0.0.1:${redisPort}`, '--metrics-port', '0'] });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await server.get('/v1/phone/US', { plan: 'business' })).status, 200);
      const text = (await request(server.metricsUrl!)).body;
      assert.equal(sample(text, 'geoapi_quota_decisions_total', { outcome: 'fail_open' }), 3);
      assert.equal(sample(text, 'geoapi_quota_decisions_total', { outcome: 'ok' }), 0);
    } finally {
      await server.close();
    }
  });
});
