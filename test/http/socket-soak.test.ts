// The warm-up a thread sends itself over a loopback socket (runtime/http/socket-soak.ts): a real
// uWS app of its own on 127.0.0.1, real connections, answers read back and checked.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { nextAnswer, socketShareOf, socketSoak, SOCKET_SOAK_MAX_REQUESTS } from '../../runtime/http/socket-soak.js';
import { loadUws, type UwsApp, type UwsHttpRequest, type UwsHttpResponse, type UwsModule } from '../../runtime/http/uws.js';

const { uws } = loadUws();
const KEY = 'soak-key';

interface Seen {
  requests: number;
  unknownKeys: number;
  compressed: number;
  paths: Set<string>;
}

/** An app answering 200 to the soak's key, 401 to any other, 404 on /empty: as the pipeline would. */
function pipelineLike(seen: Seen, status: (req: UwsHttpRequest) => string = () => '200 OK'): (app: UwsApp) => void {
  return (app) => {
    for (const path of ['/a', '/b', '/empty']) {
      app.get(path, (res: UwsHttpResponse, req: UwsHttpRequest) => {
        seen.requests++;
        seen.paths.add(`${req.getUrl()}?${req.getQuery() ?? ''}`);
        if (req.getHeader('accept-encoding') !== '') seen.compressed++;
        const known = req.getHeader('x-geoapi-key') === KEY;
        if (!known) seen.unknownKeys++;
        res.writeStatus(!known ? '401 Unauthorized' : path === '/empty' ? '404 Not Found' : status(req)).end(`{"path":"${path}"}`);
      });
    }
  };
}

function newSeen(): Seen {
  return { requests: 0, unknownKeys: 0, compressed: 0, paths: new Set() };
}

describe('the warm-up over a loopback socket', () => {
  it('sends its count to an app of its own, over several pipelined connections, and reads every answer back', async () => {
    const seen = newSeen();
    const logged: string[] = [];
    const result = await socketSoak({ uws, register: pipelineLike(seen), targets: ['/a?q=1', '/b', '/empty'], key: KEY, count: 320, budgetMs: 10_000, log: (line) => logged.push(line) });
    assert.deepEqual(result, { answered: 320, unexpected: 0 });
    assert.equal(seen.requests, 320);
    assert.deepEqual([...seen.paths].sort(), ['/a?q=1', '/b?', '/empty?']);
    // One in 16 presents a key nobody has (the key index's first look at a key runs before ready), answered 401 as expected.
    assert.equal(seen.unknownKeys, 20);
    // Every other one asks for a compressed answer.
    assert.equal(seen.compressed, 160);
    assert.deepEqual(logged, []);
  });

  it('logs answers a request should not get, with the first of them, and still ends', async () => {
    const seen = newSeen();
    const logged: string[] = [];
    const result = await socketSoak({ uws, register: pipelineLike(seen, () => '500 Internal Server Error'), targets: ['/a'], key: KEY, count: 32, budgetMs: 10_000, log: (line) => logged.push(line) });
    assert.deepEqual(result, { answered: 32, unexpected: 30 }); // the two with an unknown key got their 401
    assert.deepEqual(logged, ['warm-up: over a socket: 30 of 32 answers were unexpected (the first: GET /a answered 500)']);
  });

  it('logs the requests left unanswered when the app drops them', async () => {
    const logged: string[] = [];
    const result = await socketSoak({ uws, register: (app) => app.get('/silent', (res) => res.onAborted(() => {})), targets: ['/silent'], key: KEY, count: 100, budgetMs: 10_000, log: (line) => logged.push(line) });
    assert.equal(result.answered, 0);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^warm-up: over a socket: (\d+) of \1 requests were not answered \(their connection closed\)$/);
  });

  it('gives up on connections that stay open unanswered, once its budget and the drain after it are spent', async () => {
    // A listener that reads and never writes, standing in for the app (uWS closes such connections itself).
    const silent = createServer((socket) => socket.on('data', () => {}));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const standIn = { App: () => ({ listen: (_host: string, _port: number, cb: (socket: unknown) => void) => cb({}) }), us_socket_local_port: () => port, us_listen_socket_close: () => silent.close() };
    const logged: string[] = [];
    const started = performance.now();
    const result = await socketSoak({ uws: standIn as unknown as UwsModule, register: () => {}, targets: ['/a'], key: KEY, count: 100, budgetMs: 100, log: (line) => logged.push(line) });
    const tookMs = performance.now() - started;
    assert.deepEqual(result, { answered: 0, unexpected: 0 });
    assert.ok(tookMs >= 2000 && tookMs < 10_000, `took ${tookMs} ms`);
    assert.deepEqual(logged, ['warm-up: over a socket: answers missing 2000 ms after the budget (100 ms)']);
  });

  it('sends nothing, and opens nothing, for no targets or a count of 0', async () => {
    const seen = newSeen();
    assert.deepEqual(await socketSoak({ uws, register: pipelineLike(seen), targets: [], key: KEY, count: 10, budgetMs: 1000, log: () => {} }), { answered: 0, unexpected: 0 });
    assert.deepEqual(await socketSoak({ uws, register: pipelineLike(seen), targets: ['/a'], key: KEY, count: 0, budgetMs: 1000, log: () => {} }), { answered: 0, unexpected: 0 });
    assert.equal(seen.requests, 0);
  });

  it('takes a third of the warm-up requests, at most SOCKET_SOAK_MAX_REQUESTS', () => {
    assert.equal(socketShareOf(0), 0);
    assert.equal(socketShareOf(2), 0);
    assert.equal(socketShareOf(2000), 666);
    assert.equal(socketShareOf(9000), SOCKET_SOAK_MAX_REQUESTS);
    assert.equal(socketShareOf(100_000), SOCKET_SOAK_MAX_REQUESTS);
  });
});

describe('reading pipelined answers', () => {
  const answer = (status: string, body: string): string => `HTTP/1.1 ${status}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

  it('finds the first complete answer and its length, head and body', () => {
    const bytes = Buffer.from(answer('200 OK', '{"a":1}') + answer('404 Not Found', '{}'));
    const first = nextAnswer(bytes)!;
    assert.deepEqual(first, { status: '200', length: answer('200 OK', '{"a":1}').length });
    assert.deepEqual(nextAnswer(bytes.subarray(first.length)), { status: '404', length: answer('404 Not Found', '{}').length });
  });

  it('waits for an answer not all there yet: its head or its body cut short', () => {
    const whole = answer('200 OK', '{"a":1}');
    assert.equal(nextAnswer(Buffer.from(whole.slice(0, 10))), null);
    assert.equal(nextAnswer(Buffer.from(whole.slice(0, -1))), null);
  });

  it('says an answer without a status line cannot be read', () => {
    assert.deepEqual(nextAnswer(Buffer.from('garbage\r\n\r\n')), { status: '', length: -1 });
  });

  it('takes an answer without Content-Length as a head alone', () => {
    assert.deepEqual(nextAnswer(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n')), { status: '204', length: 27 });
  });
});
