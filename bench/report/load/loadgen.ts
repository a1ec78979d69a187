// A small HTTP/1.1 load generator on raw keep-alive sockets, run in its own process:
//   node dist/bench/report/load/loadgen.js '<json config>'   → one JSON result line on stdout.
// Two modes, both rotating through a request list file (one path per line):
// - closed: every connection sends its next request as soon as the previous answer arrives
//   (saturation, used when wrk is not installed);
// - open: requests are due at a fixed rate whatever the server does (wrk2 is not in Debian).
//   A request that waits for a free connection because every one is busy is timed from when it
//   was due, so a stalled server is not hidden by the generator slowing down with it (coordinated
//   omission); one delayed only by timer granularity while a connection was free is timed from
//   when it was sent. Requests still unsent at the end count with the time they waited so far.
// Only Content-Length bodies are understood (uWS and Node's http send them for whole bodies).
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LoadConfig {
  port: number;
  key: string;
  pathsFile: string;
  mode: 'closed' | 'open';
  connections: number;
  seconds: number;
  /** Load sent before the measured period (JIT, caches, connections), not recorded. */
  warmupSeconds?: number;
  /** Requests per second (open mode). */
  rate?: number;
  /** Percentiles are also computed per consecutive window of the measured period (default 1). */
  windows?: number;
  /** Sent as Accept-Encoding with every request when not empty. */
  acceptEncoding?: string;
  /**
   * Open mode: the rate grows linearly from 0 to `rate` over this many seconds from the start,
   * then holds, as a balancer's slow start sends a server just added (default 0: at once).
   */
  rampSeconds?: number;
}

export interface Percentiles {
  p50: number;
  p99: number;
  p999: number;
  max: number;
}

export interface LoadResult {
  mode: 'closed' | 'open';
  seconds: number;
  completed: number;
  requestsPerSecond: number;
  /** Bytes of the answers counted in requestsPerSecond, header blocks included, per second. */
  receivedBytesPerSecond: number;
  non2xx: number;
  errors: number;
  /** Connections the server closed after an answer (`Connection: close`), each replaced by a new one. */
  reconnects: number;
  /** Open mode: requests due but never sent before the end (counted in the percentiles). */
  unsent: number;
  targetRate: number | null;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  /** CPU the generator itself used (cores): near 1 means it, not the server, set the pace. */
  generatorCores: number;
  /** Percentiles of each consecutive window of the measured period. */
  windows: Percentiles[];
  /** The slowest requests of the measured period (latency as measured, path). */
  slowest: { ms: number; path: string }[];
  /** The slowest answer of each 100 ms of the measured period (by start time), ms: shows whether a tail is one stall or spread out. */
  worstPer100ms: number[];
}

const HEADER_END = Buffer.from('\r\n\r\n');

class Latencies {
  private values = new Float64Array(1 << 16);
  length = 0;

  push(ms: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = ms;
  }

  percentiles(): Percentiles {
    const sorted = this.values.slice(0, this.length).sort();
    const at = (q: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!);
    return { p50: at(0.5), p99: at(0.99), p999: at(0.999), max: at(1) };
  }
}

class Connection {
  busy = false;
  private header: Buffer | null = null;
  private bodyLeft = -1;
  private status = 0;
  private startedAt = 0;
  /** Index (in the rotation) of the request in flight. */
  index = 0;
  /** Bytes of the last answer, header block included. */
  answerBytes = 0;
  /** The last answer said `Connection: close` (a server draining, or evening out its threads): the next request needs a new connection. */
  closing = false;
  readonly socket: Socket;

  constructor(
    port: number,
    private readonly onDone: (conn: Connection, status: number, startedAt: number) => void,
    private readonly onError: (conn: Connection, error: Error) => void,
  ) {
    // One reused 1 MiB read buffer per connection: large answers (the country list is ~200 KiB)
    // arrive in few reads and allocate nothing; read() copies only partial header blocks.
    this.socket = connect({
      port,
      host: '127.0.0.1',
      onread: {
        buffer: Buffer.allocUnsafe(1 << 20),
        callback: (length: number, buffer: Uint8Array) => {
          this.read(Buffer.from(buffer.buffer, buffer.byteOffset, length));
          return true;
        },
      },
    });
    this.socket.setNoDelay(true);
    this.socket.on('error', (error) => this.onError(this, error));
    this.socket.on('close', () => {
      if (this.busy) this.onError(this, new Error('connection closed mid-request'));
    });
  }

  send(request: Buffer, startedAt: number, index: number): void {
    this.busy = true;
    this.index = index;
    this.startedAt = startedAt;
    this.header = null;
    this.bodyLeft = -1;
    this.socket.write(request);
  }

  private read(chunk: Buffer): void {
    if (!this.busy) return;
    let rest = chunk;
    if (this.bodyLeft < 0) {
      const bytes = this.header ? Buffer.concat([this.header, rest]) : rest;
      const end = bytes.indexOf(HEADER_END);
      if (end < 0) {
        this.header = Buffer.from(bytes);
        return;
      }
      this.header = null;
      // "HTTP/1.1 200 …": the status is bytes 9–11; the header names are compared as bytes.
      this.status = (bytes[9]! - 48) * 100 + (bytes[10]! - 48) * 10 + (bytes[11]! - 48);
      this.closing = hasHeader(bytes, end, CONNECTION_CLOSE);
      const length = contentLength(bytes, end);
      if (length < 0) {
        this.busy = false;
        this.onError(this, new Error(`answer without Content-Length: ${bytes.toString('latin1', 0, Math.min(end, 200)).split('\r\n')[0]}`));
        return;
      }
      this.bodyLeft = length;
      this.answerBytes = end + HEADER_END.length + length;
      rest = bytes.subarray(end + HEADER_END.length);
    }
    this.bodyLeft -= rest.length;
    if (this.bodyLeft <= 0) {
      this.busy = false;
      this.onDone(this, this.status, this.startedAt);
    }
  }
}

const CONTENT_LENGTH = [Buffer.from('\r\nContent-Length:'), Buffer.from('\r\ncontent-length:')];
const CONNECTION_CLOSE = [Buffer.from('\r\nConnection: close'), Buffer.from('\r\nconnection: close')];

/** Whether the header block bytes[0, end) has one of `lines`. */
function hasHeader(bytes: Buffer, end: number, lines: Buffer[]): boolean {
  for (const line of lines) {
    const at = bytes.indexOf(line);
    if (at >= 0 && at < end) return true;
  }
  return false;
}

/** The Content-Length value in the header block bytes[0, end), or -1. */
function contentLength(bytes: Buffer, end: number): number {
  for (const name of CONTENT_LENGTH) {
    const at = bytes.indexOf(name);
    if (at < 0 || at >= end) continue;
    let i = at + name.length;
    while (bytes[i] === 32) i++;
    let value = 0;
    let digits = 0;
    for (; bytes[i]! >= 48 && bytes[i]! <= 57; i++, digits++) value = value * 10 + bytes[i]! - 48;
    return digits > 0 ? value : -1;
  }
  return -1;
}

/**
 * When the n-th request of an open-loop run is due, ms from its start: every 1000 / rate ms, or
 * while the rate still grows over `rampSeconds`, at √(2 · rampSeconds · n / rate) s (the requests
 * due by t s are rate · t² / (2 · rampSeconds) then).
 */
export function dueOffsetMs(n: number, rate: number, rampSeconds = 0): number {
  if (rampSeconds > 0 && n < (rate * rampSeconds) / 2) return Math.sqrt((2 * rampSeconds * n) / rate) * 1000;
  return (rampSeconds / 2 + n / rate) * 1000;
}

export function runLoad(config: LoadConfig): Promise<LoadResult> {
  const paths = readFileSync(config.pathsFile, 'utf8').split('\n').filter((line) => line !== '');
  if (paths.length === 0) throw new Error(`${config.pathsFile}: expected request paths, found none`);
  const acceptEncoding = config.acceptEncoding ? `Accept-Encoding: ${config.acceptEncoding}\r\n` : '';
  const requests = paths.map((path) => Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${config.port}\r\nX-GEOAPI-KEY: ${config.key}\r\n${acceptEncoding}\r\n`, 'latin1'));
  const latencies = new Latencies();
  const windowCount = Math.max(1, Math.floor(config.windows ?? 1));
  const windowLatencies = Array.from({ length: windowCount }, () => new Latencies());
  const windowMs = (config.seconds * 1000) / windowCount;
  const record = (startedAt: number, ms: number, measureFrom: number): void => {
    latencies.push(ms);
    windowLatencies[Math.min(windowCount - 1, Math.floor((startedAt - measureFrom) / windowMs))]!.push(ms);
  };
  const open = config.mode === 'open';
  const rate = config.rate ?? 0;
  if (open && !(rate > 0)) throw new Error(`open mode: expected a positive rate, found ${config.rate}`);
  const rampSeconds = config.rampSeconds ?? 0;
  if (!(rampSeconds >= 0)) throw new Error(`rampSeconds: expected 0 or more seconds, found ${config.rampSeconds}`);
  const dueAfter = (n: number): number => dueOffsetMs(n, rate, rampSeconds);
  let next = 0; // requests sent (index into the rotation)
  let completed = 0;
  let receivedBytes = 0;
  let non2xx = 0;
  let errors = 0;
  let reconnects = 0;
  let stopping = false;
  const free: Connection[] = [];
  const worst: number[] = [];
  const SLOWEST = 5;
  const slowest: { ms: number; index: number }[] = [];
  const keepSlowest = (ms: number, index: number): void => {
    if (slowest.length === SLOWEST && ms <= slowest[SLOWEST - 1]!.ms) return;
    const known = slowest.find((s) => s.index === index);
    if (known) known.ms = Math.max(known.ms, ms);
    else slowest.push({ ms, index });
    slowest.sort((a, b) => b.ms - a.ms);
    if (slowest.length > SLOWEST) slowest.length = SLOWEST;
  };
  /** Since when at least one connection has been free without interruption (null: all busy). */
  let freeSince: number | null = null;

  return new Promise((done) => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const measureFrom = t0 + (config.warmupSeconds ?? 0) * 1000;
    const endAt = measureFrom + config.seconds * 1000;
    let finished = false;

    const finish = (): void => {
      if (finished) return;
      finished = true;
      const now = performance.now();
      let unsent = 0;
      if (open) {
        // Due but never sent: they waited at least until now.
        for (let i = next; t0 + dueAfter(i) < endAt; i++, unsent++) {
          const dueAt = t0 + dueAfter(i);
          if (dueAt >= measureFrom) record(dueAt, now - dueAt, measureFrom);
        }
      }
      for (const conn of connections) conn.socket.destroy();
      done({
        mode: config.mode,
        seconds: config.seconds,
        completed,
        requestsPerSecond: completed / config.seconds,
        receivedBytesPerSecond: receivedBytes / config.seconds,
        non2xx,
        errors,
        reconnects,
        unsent,
        targetRate: open ? rate : null,
        ...latencies.percentiles(),
        windows: windowLatencies.map((w) => w.percentiles()),
        slowest: slowest.map((s) => ({ ms: Math.round(s.ms * 100) / 100, path: paths[s.index]! })),
        worstPer100ms: Array.from(worst, (v) => Math.round((v ?? 0) * 100) / 100),
        generatorCores: (() => {
          const used = process.cpuUsage(cpu0);
          return (used.user + used.system) / 1000 / (now - t0);
        })(),
      });
    };

    const release = (conn: Connection): void => {
      if (free.length === 0) freeSince = performance.now();
      free.push(conn);
    };

    const sendOn = (conn: Connection, startedAt: number): void => {
      conn.send(requests[next % requests.length]!, startedAt, next % requests.length);
      next++;
      if (free.length === 0) freeSince = null;
    };

    const pump = (): void => {
      const now = performance.now();
      if (now >= endAt) {
        stopping = true;
        if (connections.every((c) => !c.busy)) finish();
        return;
      }
      if (!open) {
        while (free.length > 0) sendOn(free.pop()!, performance.now());
        return;
      }
      while (free.length > 0) {
        const dueAt = t0 + dueAfter(next);
        if (dueAt > now) break;
        // Late only because of the timer while a connection was free: time it from now.
        const startedAt = freeSince !== null && freeSince <= dueAt ? now : dueAt;
        sendOn(free.pop()!, startedAt);
      }
    };

    const onDone = (conn: Connection, status: number, startedAt: number): void => {
      const now = performance.now();
      // Answers arriving after the end still count as latencies, not as throughput.
      if (startedAt >= measureFrom && startedAt < endAt) {
        record(startedAt, now - startedAt, measureFrom);
        keepSlowest(now - startedAt, conn.index);
        const window = Math.floor((startedAt - measureFrom) / 100);
        worst[window] = Math.max(worst[window] ?? 0, now - startedAt);
        if (now <= endAt) {
          completed++;
          receivedBytes += conn.answerBytes;
        }
        if (status < 200 || status > 299) non2xx++;
      }
      // As any HTTP client does: a connection the server closes is replaced, and the next request
      // waits for its handshake (counted in its latency).
      if (conn.closing) {
        reconnects++;
        const fresh = new Connection(config.port, onDone, onError);
        connections[connections.indexOf(conn)] = fresh;
        conn = fresh;
      }
      release(conn);
      if (stopping) {
        if (connections.every((c) => !c.busy)) finish();
      } else pump();
    };

    const onError = (conn: Connection, error: Error): void => {
      errors++;
      if (errors <= 3) process.stderr.write(`loadgen: ${error.message}\n`);
      conn.busy = false;
      if (connections.every((c) => !c.busy) && stopping) finish();
    };

    const connections = Array.from({ length: config.connections }, () => new Connection(config.port, onDone, onError));
    for (const conn of connections) release(conn);
    freeSince = t0;

    const tick = (): void => {
      pump();
      if (finished) return;
      if (stopping) {
        // Give in-flight requests a moment, then stop whatever is still out.
        setTimeout(finish, 10_000).unref();
        return;
      }
      const wait = open ? Math.max(0, t0 + dueAfter(next) - performance.now()) : Math.max(0, endAt - performance.now());
      setTimeout(tick, Math.min(wait, Math.max(0, endAt - performance.now())));
    };
    tick();
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const config = JSON.parse(process.argv[2] ?? '') as LoadConfig;
  const result = await runLoad(config);
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}
