// The report's single answers, in a process of their own: paths sent one at a time on one
// keep-alive connection, a new one when the server closes it (a raw socket, not Node's http
// client, whose own parsing and collections added up to a few ms), each timed from its write to
// its answer's last byte.
//   node dist/bench/report/load/single-answers.js   ← one JSON SingleAnswersConfig on stdin
//                                                   → one JSON SingleAnswersResult line on stdout
// Not in the report's own process: that process reads the whole dataset and holds the workloads,
// and a collection of its heap (a scavenge took 3–7 ms there, a full one tens to hundreds of ms)
// stopped the client in the middle of an answer, which then counted as the server's time.
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SingleAnswersConfig {
  host: string;
  port: number;
  key: string;
  paths: string[];
  /**
   * Sent this many times first, untimed: a path that leaves the server's caches as they were
   * (geoapi's /healthz), so that the client's own code runs compiled when the timing starts.
   */
  warmUp: { path: string; requests: number };
}

export interface SingleAnswersResult {
  /** Per path, in order: ms from the request's write to the answer's last byte, to the µs. */
  ms: number[];
  /** Per path: the answer's X-Request-ID ('' when it has none). */
  requestIds: string[];
}

/** Sends `config.paths` one at a time and times each answer. */
export async function timeSingleAnswers(config: SingleAnswersConfig): Promise<SingleAnswersResult> {
  const { host, port, key, paths } = config;
  let received: Buffer = Buffer.alloc(0);
  let answered: ((head: string) => void) | null = null;
  let failed: ((error: Error) => void) | null = null;
  const open = async (): Promise<Socket> => {
    const opened = connect(port, host);
    opened.setNoDelay(true);
    await new Promise<void>((resolve, reject) => {
      opened.once('connect', resolve);
      opened.once('error', reject);
    });
    received = Buffer.alloc(0);
    opened.on('data', (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd < 0 || answered === null) return;
      const head = received.subarray(0, headEnd).toString('latin1');
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      const total = headEnd + 4 + (length ? Number(length[1]) : 0);
      if (received.length < total) return;
      received = received.subarray(total);
      const done = answered;
      answered = null;
      done(head);
    });
    // A connection replaced after the server closed it says nothing more.
    opened.on('error', (error) => opened === socket && failed?.(error));
    opened.on('close', () => opened === socket && failed?.(new Error(`${host}:${port}: connection closed while timing single answers`)));
    return opened;
  };
  let socket: Socket | null = null;
  socket = await open();
  const answer = (path: string): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      answered = resolve;
      failed = reject;
      socket!.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nX-GEOAPI-KEY: ${key}\r\n\r\n`);
    });
  // A server may close the connection after an answer (geoapi evening out its threads, README: How
  // requests spread over the threads): a new one is opened then, before the next request is timed.
  const reopenAfter = async (head: string): Promise<void> => {
    if (!/\r\nconnection: *close/i.test(head)) return;
    failed = null;
    socket!.destroy();
    socket = await open();
  };
  const result: SingleAnswersResult = { ms: [], requestIds: [] };
  try {
    // Each pass runs in a new process: its first answers used to take the client's compiling too.
    for (let i = 0; i < config.warmUp.requests; i++) await reopenAfter(await answer(config.warmUp.path));
    for (const path of paths) {
      const t = performance.now();
      const head = await answer(path);
      result.ms.push(Math.round((performance.now() - t) * 1000) / 1000); // µs are enough, and a shorter line
      result.requestIds.push(/\r\nx-request-id: *([^\r]*)/i.exec(head)?.[1] ?? '');
      await reopenAfter(head);
    }
  } finally {
    failed = null;
    socket.destroy();
  }
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const result = await timeSingleAnswers(JSON.parse(Buffer.concat(chunks).toString('utf8')) as SingleAnswersConfig);
  // Exits once the line has left: a pipe takes 64 KiB at a time, and exiting at once cut 2,000
  // answers' line short.
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}
