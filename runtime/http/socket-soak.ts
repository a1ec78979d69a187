// The warm-up's last part: requests a thread sends itself over a loopback socket before it says
// ready, to a uWS app of its own whose routes run the warm-up's pipeline (its own keys, response
// cache, counters and quota gate: nothing of the thread's own is touched). The in-process soak
// (app.ts soakStep) hands the pipeline stand-ins for uWS's request and response; V8 optimized the
// pipeline for those, and the first real request, with uWS's own objects, deoptimized serveRequest
// and everything inlined into it ("wrong map"), which the first real load then compiled again
// while it queued. Real uWS objects first leave code that takes both.
import { connect, type Socket } from 'node:net';
import type { UwsApp, UwsListenSocket, UwsModule } from './uws.js';

export interface SocketSoakOptions {
  uws: UwsModule;
  /** Registers the warm-up's routes on the soak's own app. */
  register(app: UwsApp): void;
  /** Request targets (path and query, encoded), sent in turn. */
  targets: readonly string[];
  /** The warm-up's key. */
  key: string;
  /** Requests to send (in rotation over the targets). */
  count: number;
  /** No request is sent after this long, whatever the count: a slow machine still gets ready. */
  budgetMs: number;
  log(message: string): void;
}

/**
 * Of a thread's warm-up requests (--warm-up-requests), those sent over a socket: a third, at most
 * this many. Measured on the full dataset, 2 threads on 2 cores, the report's mix at 6,000 req/s
 * from 2 s after ready, a new server each run (4 runs of each, alternated): with 6,000 requests in
 * process and then 3,000 over the socket the first second's p50 was 0.9–10.6 ms; with 1,000 over
 * the socket 12–196 ms; with none 8.8–230 ms.
 */
export const SOCKET_SOAK_MAX_REQUESTS = 3000;

/** How many of `count` warm-up requests go over the socket. */
export function socketShareOf(count: number): number {
  return Math.min(SOCKET_SOAK_MAX_REQUESTS, Math.floor(count / 3));
}

/** What a soak did. */
export interface SocketSoakResult {
  /** Answers read (all statuses). */
  answered: number;
  /** Answers of a status the request should not get (see expectedStatuses). */
  unexpected: number;
}

/** Connections to the soak's own app, and requests pipelined on each. */
const CONNECTIONS = 4;
const IN_FLIGHT = 8;
/**
 * Every this many requests, one presents a key nobody has (answered 401): the key index's first
 * look at a key (its HMAC) has then run before a real key's first request, which otherwise
 * deoptimized authorize and the pipeline inlined into it.
 */
const UNKNOWN_KEY_EVERY = 16;
/** Every other request asks for a compressed answer, as a browser does. */
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** After the budget, answers still missing are waited for this long before the soak gives up on them. */
const DRAIN_MS = 2000;

/** Statuses a soak request may get: 200, or 404 for a list the data leave empty (a state without cities); 401 for an unknown key. */
function expectedStatuses(unknownKey: boolean): readonly string[] {
  return unknownKey ? ['401'] : ['200', '404'];
}

/**
 * Sends `count` requests to an app of its own on 127.0.0.1 and resolves once all are answered (or
 * the budget and the drain after it are spent, or a connection fails: logged). Never rejects.
 */
export function socketSoak(options: SocketSoakOptions): Promise<SocketSoakResult> {
  const result: SocketSoakResult = { answered: 0, unexpected: 0 };
  const { uws, targets, count } = options;
  if (targets.length === 0 || count <= 0) return Promise.resolve(result);
  const app = uws.App();
  options.register(app);
  let listening: UwsListenSocket | null = null;
  app.listen('127.0.0.1', 0, (socket) => {
    listening = socket === false ? null : socket;
  });
  if (listening === null) {
    options.log('warm-up: over a socket: could not listen on 127.0.0.1; skipped');
    return Promise.resolve(result);
  }
  const listenSocket: UwsListenSocket = listening;
  const port = uws.us_socket_local_port(listenSocket);
  // The n-th request sent: its target, its key, whether it asks for compression.
  const unknownKey = (n: number): boolean => n % UNKNOWN_KEY_EVERY === UNKNOWN_KEY_EVERY - 1;
  const targetAt = (n: number): string => targets[n % targets.length]!;
  const requestBytes = (n: number): string =>
    `GET ${targetAt(n)} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GEOAPI-KEY: ${unknownKey(n) ? `${options.key}-unknown-${n}` : options.key}\r\n${n % 2 === 1 ? `Accept-Encoding: ${ACCEPT_ENCODING}\r\n` : ''}\r\n`;
  const deadline = performance.now() + options.budgetMs;
  return new Promise((resolve) => {
    const sockets: Socket[] = [];
    let sent = 0;
    let open = CONNECTIONS;
    let firstUnexpected = '';
    let ended = false;
    const end = (problem: string | null): void => {
      if (ended) return;
      ended = true;
      clearTimeout(giveUp);
      for (const socket of sockets) socket.destroy();
      uws.us_listen_socket_close(listenSocket);
      const missing = sent - result.answered;
      const why = problem ?? (missing > 0 ? `${missing} of ${sent} requests were not answered (their connection closed)` : null);
      if (why !== null) options.log(`warm-up: over a socket: ${why}`);
      if (result.unexpected > 0) options.log(`warm-up: over a socket: ${result.unexpected} of ${result.answered} answers were unexpected (the first: ${firstUnexpected})`);
      resolve(result);
    };
    const giveUp = setTimeout(() => end(`answers missing ${DRAIN_MS} ms after the budget (${options.budgetMs} ms)`), options.budgetMs + DRAIN_MS);
    for (let c = 0; c < CONNECTIONS; c++) {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      // The requests in flight on this connection (their n), oldest first: HTTP/1.1 answers them in order.
      const inFlight: number[] = [];
      let pending: Buffer = Buffer.alloc(0);
      const fill = (): void => {
        while (inFlight.length < IN_FLIGHT && sent < count && performance.now() < deadline) {
          socket.write(requestBytes(sent));
          inFlight.push(sent++);
        }
        if (inFlight.length === 0) socket.end();
      };
      socket.setNoDelay(true);
      socket.on('connect', fill);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (;;) {
          const answer = nextAnswer(pending);
          if (answer === null) break;
          if (answer.length < 0 || inFlight.length === 0) {
            end('an answer could not be read');
            return;
          }
          pending = pending.subarray(answer.length);
          const n = inFlight.shift()!;
          result.answered++;
          if (!expectedStatuses(unknownKey(n)).includes(answer.status)) {
            result.unexpected++;
            firstUnexpected ||= `GET ${targetAt(n)} answered ${answer.status}`;
          }
        }
        fill();
      });
      socket.on('error', (error) => end(error.message));
      socket.on('close', () => {
        if (--open === 0) end(null);
      });
    }
  });
}

/**
 * The first complete answer in `bytes`: its status code and its length (head and Content-Length
 * body; uWS gives every answer one), null when it is not all there yet, length −1 when it cannot
 * be read.
 */
export function nextAnswer(bytes: Buffer): { status: string; length: number } | null {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const head = bytes.toString('latin1', 0, headEnd);
  const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
  if (status === undefined) return { status: '', length: -1 };
  const lengthHeader = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  const length = headEnd + 4 + (lengthHeader === undefined ? 0 : Number(lengthHeader));
  return bytes.length >= length ? { status, length } : null;
}
