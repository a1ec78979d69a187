// Open-loop HTTP/1.1 load at a fixed rate (what wrk2 does; wrk itself is closed-loop): request i
// is due at start + i/rate whatever the server is doing, requests are pipelined on keep-alive
// connections (round robin), and each latency runs from the request's due time to the end of its
// response. A server that stalls therefore shows its stall in the tail instead of slowing the sender
// (no coordinated omission). The sender's own lateness is reported (maxSendLagMs) so that a
// generator starved of CPU is not mistaken for a slow server.
//
// Runs in its own process (bench/http.bench.ts starts it through openLoop()):
//   node dist/bench/open-loop.js <url> <rate per s> <seconds> <connections> ['Name: value'...]
// and prints one JSON line (OpenLoopResult). Responses must carry Content-Length (uWS always does).
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

export interface OpenLoopResult {
  /** Requests sent (rate × seconds). */
  sent: number;
  /** Complete responses received. */
  received: number;
  /** Responses whose status was not 200. */
  non200: number;
  /** Requests without a response by the end (connection errors, lost answers). */
  missing: number;
  socketErrors: number;
  /** received ÷ time from the first due request to the last response. */
  achievedRate: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  /** Largest delay between a request's due time and its write (generator starved of CPU when large). */
  maxSendLagMs: number;
}

const SCRIPT = fileURLToPath(import.meta.url);

/** Runs the generator in a child process and returns its result. */
export function openLoop(url: string, headers: string[], rate: number, seconds: number, connections: number): OpenLoopResult {
  const run = spawnSync(process.execPath, [SCRIPT, url, String(rate), String(seconds), String(connections), ...headers], {
    encoding: 'utf8',
    timeout: (seconds + 60) * 1000,
  });
  if (run.status !== 0) throw new Error(`open-loop generator failed (${run.status ?? run.signal}): ${run.stderr}`);
  return JSON.parse(run.stdout) as OpenLoopResult;
}

/** Where one connection is in its stream of responses. */
interface ResponseReader {
  /** Due times of the requests sent and not yet answered, oldest first (a queue over an array). */
  due: number[];
  dueHead: number;
  /** Bytes of a response head not complete yet. */
  pendingHead: Buffer | null;
  /** Body bytes still to skip for the current response (-1: reading a head). */
  bodyRemaining: number;
  /** Status of the response whose body is being skipped. */
  status200: boolean;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH_RE = /\r\ncontent-length:[ \t]*(\d+)/i;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(args: string[]): Promise<void> {
  const [urlText, rateText, secondsText, connectionsText, ...headerLines] = args;
  const url = new URL(urlText!);
  const rate = Number(rateText);
  const seconds = Number(secondsText);
  const connectionCount = Number(connectionsText);
  if (!(rate > 0) || !(seconds > 0) || !Number.isInteger(connectionCount) || connectionCount < 1) {
    throw new Error(`usage: open-loop.js <url> <rate> <seconds> <connections> [header...]; found ${args.join(' ')}`);
  }
  const request = Buffer.from(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${headerLines.map((line) => `${line}\r\n`).join('')}\r\n`,
    'latin1',
  );
  // Requests due in one pump are written to their connection in one write.
  const batches: Buffer[] = [];
  const batchOf = (count: number): Buffer => (batches[count] ??= Buffer.concat(Array.from({ length: count }, () => request)));

  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  let received = 0;
  let non200 = 0;
  let lastResponseAt = 0;

  const complete = (connection: ResponseReader): void => {
    const now = performance.now();
    const due = connection.due[connection.dueHead++]!;
    if (connection.dueHead > 4096) {
      connection.due = connection.due.slice(connection.dueHead);
      connection.dueHead = 0;
    }
    if (!connection.status200) non200++;
    latencies[received++] = now - due;
    lastResponseAt = now;
    connection.bodyRemaining = -1;
  };

  // Heads are parsed, bodies only counted (large list bodies are never copied).
  const onData = (connection: ResponseReader, chunk: Buffer): void => {
    let data = chunk;
    let offset = 0;
    while (offset < data.length) {
      if (connection.bodyRemaining > 0) {
        const take = Math.min(connection.bodyRemaining, data.length - offset);
        connection.bodyRemaining -= take;
        offset += take;
        if (connection.bodyRemaining === 0) complete(connection);
        continue;
      }
      if (connection.pendingHead !== null) {
        data = Buffer.concat([connection.pendingHead, data.subarray(offset)]);
        offset = 0;
        connection.pendingHead = null;
      }
      const headerEnd = data.indexOf(HEADER_END, offset);
      if (headerEnd < 0) {
        connection.pendingHead = Buffer.from(data.subarray(offset));
        return;
      }
      const head = data.toString('latin1', offset, headerEnd);
      const length = CONTENT_LENGTH_RE.exec(head);
      if (!length) throw new Error(`response without Content-Length: ${JSON.stringify(head.slice(0, 200))}`);
      connection.status200 = head.startsWith('HTTP/1.1 200 ');
      connection.bodyRemaining = Number(length[1]);
      offset = headerEnd + 4;
      if (connection.bodyRemaining === 0) complete(connection);
    }
  };

  // Reads land in one reused buffer per connection (net `onread`): list bodies of hundreds of KB at
  // thousands per second would otherwise cost a fresh Buffer per read.
  let socketErrors = 0;
  const connections = await Promise.all(
    Array.from({ length: connectionCount }, () => new Promise<{ reader: ResponseReader; socket: net.Socket }>((resolve, reject) => {
      const reader: ResponseReader = { due: [], dueHead: 0, pendingHead: null, bodyRemaining: -1, status200: false };
      const onread = {
        buffer: Buffer.allocUnsafe(256 * 1024),
        callback: (bytes: number, buffer: Uint8Array): boolean => {
          onData(reader, Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
          return true;
        },
      };
      const socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true, onread }, () => {
        socket.off('error', reject);
        socket.on('error', () => socketErrors++);
        resolve({ reader, socket });
      });
      socket.once('error', reject);
    })),
  );

  const interval = 1000 / rate;
  const start = performance.now() + 20;
  let next = 0;
  let maxSendLagMs = 0;
  const counts = new Int32Array(connectionCount);
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      const now = performance.now();
      counts.fill(0);
      let any = false;
      while (next < total) {
        const due = start + next * interval;
        if (due > now) break;
        connections[next % connectionCount]!.reader.due.push(due);
        counts[next % connectionCount]!++;
        if (now - due > maxSendLagMs) maxSendLagMs = now - due;
        next++;
        any = true;
      }
      if (any) for (let c = 0; c < connectionCount; c++) if (counts[c]! > 0) connections[c]!.socket.write(batchOf(counts[c]!));
      // A 1 ms timer, not setImmediate: a spinning generator would take the CPU the server needs
      // (2 cores here). Requests sent up to ~1 ms late count that lateness in their latency.
      if (next < total) setTimeout(pump, 1);
      else resolve();
    };
    setTimeout(pump, 20);
  });

  // Answers still due: wait for them (at most 5 s).
  const deadline = performance.now() + 5000;
  while (received < total && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  for (const connection of connections) connection.socket.destroy();

  const sorted = latencies.subarray(0, received).sort();
  const result: OpenLoopResult = {
    sent: total,
    received,
    non200,
    missing: total - received,
    socketErrors,
    achievedRate: received / ((lastResponseAt - start) / 1000),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    maxSendLagMs,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1] === SCRIPT) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
}
