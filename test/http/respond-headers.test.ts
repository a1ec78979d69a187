// writeResponse with shared (frozen) operation headers: checked once, written the same every time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_COMPRESSION } from '../../runtime/http/encoding.js';
import { PreparedBody } from '../../runtime/http/response-cache.js';
import { negotiatesEncoding, writeResponse, type Outgoing, type ResponseSettings } from '../../runtime/http/respond.js';
import type { UwsHttpResponse } from '../../runtime/http/uws.js';

function recorder(): { res: UwsHttpResponse; written: [string, string][]; body: () => unknown; uncorkedWrites: () => number } {
  const written: [string, string][] = [];
  let body: unknown;
  let corked = false;
  let uncorked = 0;
  const res: UwsHttpResponse = {
    writeStatus(status) {
      if (!corked) uncorked++;
      written.push([':status', status]);
      return res;
    },
    writeHeader(key, value) {
      if (!corked) uncorked++;
      // writeResponse hands uWS several lines in one call (uWS writes `key: value\r\n` as given).
      const [first, ...more] = value.split('\r\n');
      written.push([key, first!]);
      for (const line of more) {
        const colon = line.indexOf(': ');
        written.push([line.slice(0, colon), line.slice(colon + 2)]);
      }
      return res;
    },
    end(chunk) {
      if (!corked) uncorked++;
      body = chunk;
      return res;
    },
    endWithoutBody() {
      return res;
    },
    cork(cb) {
      corked = true;
      cb();
      corked = false;
      return res;
    },
    onAborted() {
      return res;
    },
    onData() {
      return res;
    },
    close() {
      return res;
    },
  };
  return { res, written, body: () => body, uncorkedWrites: () => uncorked };
}

function settings(logs: string[]): ResponseSettings {
  return { dataVersion: 'v1', privateMaxAgeSeconds: 300, corsExposeHeaders: '*', vary: 'Accept-Encoding', cscHeaders: false, compression: DEFAULT_COMPRESSION, log: (m) => logs.push(m) };
}

describe('operation headers', () => {
  it('writes a frozen headers object the same way on every response, dropping and logging unsafe ones each time', () => {
    const headers = Object.freeze({ 'Cache-Control': 'no-store', 'X-Bad': 'a\r\nb', 'Content-Type': 'text/plain', 'X-Parse-Index-Cache': 'HIT' });
    const logs: string[] = [];
    const runs = [0, 1].map((i) => {
      const { res, written } = recorder();
      writeResponse(res, { status: 200, body: '{}', headers, plan: 'business' }, `id-${i}`, '', settings(logs), false);
      return written;
    });
    assert.deepEqual(runs[0], runs[1]!.map(([k, v]) => [k, k === 'X-Request-ID' ? 'id-0' : v]));
    const names = runs[0]!.map(([k]) => k);
    assert.ok(names.includes('Cache-Control') && names.includes('X-Parse-Index-Cache'));
    assert.ok(!names.includes('X-Bad'));
    assert.equal(names.filter((n) => n.toLowerCase() === 'content-type').length, 1);
    assert.equal(runs[0]!.find(([k]) => k === 'Content-Type')![1], 'application/json; charset=utf-8');
    // The reply's Cache-Control replaces the default private max-age.
    assert.equal(names.filter((n) => n === 'Cache-Control').length, 1);
    assert.equal(logs.length, 2);
    assert.match(logs[1]!, /request id-1: dropped header "X-Bad"/);
  });

  it('treats mutable headers objects as new every time', () => {
    const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
    const { res, written } = recorder();
    writeResponse(res, { status: 200, body: '{}', headers }, 'a', '', settings([]), false);
    headers['Cache-Control'] = 'private, max-age=1';
    const second = recorder();
    writeResponse(second.res, { status: 200, body: '{}', headers }, 'a', '', settings([]), false);
    assert.equal(written.find(([k]) => k === 'Cache-Control')![1], 'no-store');
    assert.equal(second.written.find(([k]) => k === 'Cache-Control')![1], 'private, max-age=1');
  });
});

describe('writeResponse', () => {
  it('writes status, headers and body inside one cork of its own', () => {
    const { res, written, uncorkedWrites } = recorder();
    writeResponse(res, { status: 200, body: '{}', plan: 'business' }, 'a', '', settings([]), false);
    assert.ok(written.length > 3);
    assert.equal(uncorkedWrites(), 0);
  });
});

describe('negotiatesEncoding', () => {
  it('is true exactly when writeResponse may compress or pick a prepared variant', () => {
    const small: Outgoing = { status: 200, body: '{"a":1}' };
    assert.equal(negotiatesEncoding(small), false);
    assert.equal(negotiatesEncoding({ status: 200, body: 'x'.repeat(1024) }), true);
    assert.equal(negotiatesEncoding({ status: 200, body: '', prepared: new PreparedBody('x'.repeat(2000), '"e"') }), true);
    assert.equal(negotiatesEncoding({ status: 200, body: '', prepared: new PreparedBody('{}', '"e"') }), false);
    assert.equal(negotiatesEncoding({ status: 204, body: '' }), false);
    assert.equal(negotiatesEncoding({ status: 304, body: 'x'.repeat(2000) }), false);
    // A small body goes out plain whatever the client accepts.
    const { res, written, body } = recorder();
    writeResponse(res, small, 'a', 'br, gzip', settings([]), false);
    assert.equal(body(), small.body);
    assert.ok(!written.some(([k]) => k === 'Content-Encoding'));
  });
});
