// bench:report's single answers (bench/report/processes.ts serviceTimes): timed one at a time by a
// client in a process of its own (bench/report/load/single-answers.ts), not by the report's process.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serviceTimes } from '../../bench/report/processes.js';

describe('single answers', () => {
  let server: http.Server;
  let url = '';
  const seen: { path: string; key: string | undefined; clientPort: number }[] = [];

  before(async () => {
    let served = 0;
    server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? '', key: req.headers['x-geoapi-key'] as string | undefined, clientPort: req.socket.remotePort ?? 0 });
      // Bodies of several sizes, the last answer without a request id.
      const body = 'x'.repeat((served % 3) * 40_000);
      const headers: Record<string, string> = { 'Content-Length': String(body.length) };
      if (req.url !== '/last') headers['X-Request-ID'] = `id:${req.url}`;
      served++;
      res.writeHead(200, headers).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends every path once, in order, with the key, on one connection, after untimed /healthz requests, and times each answer to its last byte', async () => {
    const paths = ['/a', '/b?q=1', '/c', '/d', '/last'];
    const pathsById = new Map<string, string>();
    const times = await serviceTimes(url, 'the-key', paths, pathsById);
    const warmUp = seen.length - paths.length;
    assert.ok(warmUp > 0);
    assert.deepEqual(
      seen.map((request) => request.path),
      [...Array<string>(warmUp).fill('/healthz'), ...paths],
    );
    assert.ok(seen.every((request) => request.key === 'the-key'));
    assert.equal(new Set(seen.map((request) => request.clientPort)).size, 1, 'one keep-alive connection');
    assert.equal(times.count, paths.length);
    assert.ok(times.p50 > 0 && times.p50 <= times.p99 && times.p99 <= times.max);
    assert.equal(times.slowest.length, 3);
    assert.ok(times.slowest.every((answer) => paths.includes(answer.path)));
    // Each answer's X-Request-ID names its path; an answer without one names nothing.
    assert.deepEqual([...pathsById], [
      ['id:/a', '/a'],
      ['id:/b?q=1', '/b?q=1'],
      ['id:/c', '/c'],
      ['id:/d', '/d'],
    ]);
  });

  it('returns every answer of a long list, whose result line is longer than a pipe holds at once', async () => {
    // The client used to exit right after writing that line, and a pipe takes 64 KiB at a time.
    const paths = Array.from({ length: 4000 }, (_, i) => `/long/${i}/${'x'.repeat(24)}`);
    const pathsById = new Map<string, string>();
    const times = await serviceTimes(url, 'k', paths, pathsById);
    assert.equal(times.count, paths.length);
    assert.equal(pathsById.size, paths.length);
    assert.equal(pathsById.get(`id:${paths[3999]}`), paths[3999]);
  });

  it('fails with the client’s reason when the server closes the connection mid-way', async () => {
    const closing = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    try {
      await assert.rejects(serviceTimes(`http://127.0.0.1:${(closing.address() as AddressInfo).port}`, 'k', ['/x']), /single-answer client failed.*connection closed while timing single answers/s);
    } finally {
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    }
  });
});
