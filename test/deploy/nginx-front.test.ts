// deploy/nginx/geoapi.conf in front of a real geoapi: what the HTTP library cannot answer
// (HTTP/1.0, many header fields, "_" in header names) is answered, and request smuggling
// shapes (two Content-Length values, a body on GET) are refused before they reach geoapi.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freePort, rawRequest, startTestServer, type TestServer } from '../support/server.js';
import { fixtureSnapshot, nginxMissing, renderDeployNginxConf, startNginx, type RunningNginx } from '../cli/support.js';

const reason = nginxMissing();
if (reason && process.env['CI'] === 'true') test('the nginx front needs nginx under CI', () => assert.fail(reason));

const statusOf = (answer: string): number => Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
const bodyOf = (answer: string): string => answer.slice(answer.indexOf('\r\n\r\n') + 4);

describe('geoapi behind deploy/nginx/geoapi.conf', { skip: reason ?? false }, () => {
  let server: TestServer;
  let nginx: RunningNginx;
  let key: string;
  const get = (lines: string[]): Promise<string> => rawRequest(nginx.port, `${lines.join('\r\n')}\r\n\r\n`, 20_000);

  before(async () => {
    server = await startTestServer({ snapshotDir: fixtureSnapshot() });
    key = server.keys.business;
    const port = await freePort();
    nginx = await startNginx(renderDeployNginxConf(port, server.port), port);
  });
  after(async () => {
    await nginx?.stop();
    await server?.close();
  });

  test('an HTTP/1.0 client is answered (nginx speaks HTTP/1.1 to geoapi)', async () => {
    const answer = await get(['GET /v1/countries/US HTTP/1.0', `X-GEOAPI-KEY: ${key}`]);
    assert.equal(statusOf(answer), 200, answer);
    assert.equal(JSON.parse(bodyOf(answer)).iso2, 'US');
  });

  test('consecutive requests are answered through the keep-alive pool to geoapi', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await get(['GET /v1/countries/US HTTP/1.1', 'Host: api.example', `X-GEOAPI-KEY: ${key}`, 'Connection: close']);
      assert.equal(statusOf(answer), 200, answer);
    }
  });

  test('a request with two different Content-Length values is rejected with 400 and never reaches geoapi', async () => {
    const answer = await rawRequest(
      nginx.port,
      `GET /v1/countries/US HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${key}\r\nContent-Length: 1\r\nContent-Length: 30\r\n\r\nAGET /v1/countries/FR HTTP/1.1\r\n\r\n`,
    );
    assert.equal(statusOf(answer), 400, answer);
    assert.equal((answer.match(/HTTP\/1\.1 /g) ?? []).length, 1, `one answer only, the smuggled request is not parsed:\n${answer}`);
  });

  test('a GET carrying a body (Content-Length > 0 or Transfer-Encoding) is refused with 400 in the API error shape', async () => {
    for (const framing of ['Content-Length: 5\r\n\r\nhello', 'Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n']) {
      const answer = await rawRequest(nginx.port, `GET /v1/countries/US HTTP/1.1\r\nHost: x\r\nX-GEOAPI-KEY: ${key}\r\nConnection: close\r\n${framing}`);
      assert.equal(statusOf(answer), 400, answer);
      assert.equal(JSON.parse(bodyOf(answer)).status, 'error');
    }
    const empty = await get(['GET /v1/countries/US HTTP/1.1', 'Host: x', `X-GEOAPI-KEY: ${key}`, 'Content-Length: 0', 'Connection: close']);
    assert.equal(statusOf(empty), 200, 'Content-Length: 0 is not a body');
  });

  test('100 header fields totalling more than the 16 KB header limit are answered 400 (not dropped)', async () => {
    const many = Array.from({ length: 100 }, (_, i) => `X-Extra-${i}: ${'v'.repeat(200)}`);
    const answer = await get(['GET /v1/countries/US HTTP/1.1', 'Host: x', `X-GEOAPI-KEY: ${key}`, ...many, 'Connection: close']);
    assert.ok([400, 431].includes(statusOf(answer)), answer);
  });

  test('100 small header fields are answered: only the headers geoapi reads are forwarded (its limit is 48)', async () => {
    const many = Array.from({ length: 100 }, (_, i) => `X-Extra-${i}: ${i}`);
    const answer = await get(['GET /v1/countries/US HTTP/1.1', 'Host: x', `X-GEOAPI-KEY: ${key}`, ...many, 'Connection: close']);
    assert.equal(statusOf(answer), 200, answer);
  });

  test('a header name with "_" is answered, and X_GEOAPI_KEY is read as the key', async () => {
    const plain = await get(['GET /v1/countries/US HTTP/1.1', 'Host: x', `X-GEOAPI-KEY: ${key}`, 'X_Custom_Trace: 1', 'Connection: close']);
    assert.equal(statusOf(plain), 200, plain);
    const underscored = await get(['GET /v1/countries/US HTTP/1.1', 'Host: x', `X_GEOAPI_KEY: ${key}`, 'Connection: close']);
    assert.equal(statusOf(underscored), 200, underscored);
    assert.match(underscored, /X-GEOAPI-Plan: business/i);
  });

  test('methods other than GET, HEAD and OPTIONS are answered 405 by nginx', async () => {
    const answer = await get(['DELETE /v1/countries/US HTTP/1.1', 'Host: x', `X-GEOAPI-KEY: ${key}`, 'Connection: close']);
    assert.equal(statusOf(answer), 405, answer);
    assert.equal(JSON.parse(bodyOf(answer)).status, 'error');
  });

  test('the response does not carry the uWebSockets fingerprint header', async () => {
    const answer = await get(['GET /v1/countries/US HTTP/1.1', 'Host: x', `X-GEOAPI-KEY: ${key}`, 'Connection: close']);
    assert.doesNotMatch(answer.slice(0, answer.indexOf('\r\n\r\n')), /^uWebSockets:/im);
  });
});

describe('geoapi without a proxy (documents the HTTP library limits the front exists for)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ snapshotDir: fixtureSnapshot() });
  });
  after(async () => server?.close());

  // uWebSockets.js speaks HTTP/1.1 only. Today an HTTP/1.0 request gets no answer at all (the
  // connection stays open until the client gives up); if a later version answers, it must be a
  // whole HTTP response. Never a partial one.
  test('an HTTP/1.0 request sent straight to geoapi gets no answer or a complete one', async (t) => {
    const answer = await server.raw(`GET /v1/countries/US HTTP/1.0\r\nX-GEOAPI-KEY: ${server.keys.business}\r\n\r\n`, 2000);
    t.diagnostic(`geoapi's own answer to HTTP/1.0: ${answer === '[client timeout]' ? 'none (client gave up after 2 s)' : JSON.stringify(answer.slice(0, 40))}`);
    assert.ok(answer === '[client timeout]' || answer === '' || /^HTTP\/1\.[01] \d{3} /.test(answer), answer);
  });

  test('49 header fields, or a header name with "_", sent straight to geoapi get no answer or a complete one', async (t) => {
    const key = `X-GEOAPI-KEY: ${server.keys.business}`;
    const cases: [string, string[]][] = [
      ['49 header fields', ['Host: x', key, ...Array.from({ length: 46 }, (_, i) => `X-H-${i}: a`), 'Connection: close']],
      ['a header named X_Trace', ['Host: x', key, 'X_Trace: 1', 'Connection: close']],
    ];
    for (const [what, headers] of cases) {
      const answer = await server.raw(`GET /v1/countries/US HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`, 2000);
      t.diagnostic(`geoapi's own answer to ${what}: ${answer === '[client timeout]' ? 'none (client gave up after 2 s)' : JSON.stringify(answer.slice(0, 40))}`);
      assert.ok(answer === '[client timeout]' || answer === '' || /^HTTP\/1\.[01] \d{3} /.test(answer), answer);
    }
  });
});
