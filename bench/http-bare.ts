// The "bare" server of bench/http.bench.ts: uWebSockets.js loaded exactly as geoapi loads it
// (runtime/http/uws.ts), one thread, one handler for every path that writes a fixed body of the
// same byte size as geoapi's answer for that request — status line, Content-Type, body, in one
// cork — and nothing else: no key, no routing, no parsing, no rendering. Its requests/s are the
// limit of what any handler can do over uWS on this machine, so geoapi ÷ bare says what geoapi's
// request path costs around the write. Started as a child process:
//   node dist/bench/http-bare.js <sizes.json>
// prints `listening <port>` when ready. sizes.json is BareSizes: the body size per request target
// ("path?query"), and per path a size for targets not listed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadUws, uwsCandidates, type UwsHttpRequest, type UwsHttpResponse } from '../runtime/http/uws.js';

export interface BareSizes {
  /** Body size in bytes per request target: the path, then `?query` when there is one. */
  byTarget: Record<string, number>;
  /** Body size per path, for targets not in byTarget. */
  byPath: Record<string, number>;
  /**
   * Then the first of these whose pattern (a RegExp source) matches the path: bench:report's floor
   * gives each operation its answers' mean size by the shape of its paths.
   */
  byPattern?: { pattern: string; size: number }[];
}

/** A body of exactly `size` bytes (a JSON array of spaces, so that it stays JSON from 2 bytes up). */
export function bodyOfSize(size: number): Buffer {
  if (!Number.isInteger(size) || size < 0) throw new RangeError(`body size must be a whole number of bytes, found ${size}`);
  const body = Buffer.alloc(size, 0x20);
  if (size >= 2) {
    body[0] = 0x5b;
    body[size - 1] = 0x5d;
  }
  return body;
}

/** Bodies by request target; bodies of equal size are one shared buffer. */
export class BareBodies {
  private readonly byTarget = new Map<string, Buffer>();
  private readonly byPath = new Map<string, Buffer>();
  private readonly byPattern: { pattern: RegExp; body: Buffer }[] = [];

  constructor(sizes: BareSizes) {
    const bySize = new Map<number, Buffer>();
    const body = (size: number): Buffer => {
      let found = bySize.get(size);
      if (found === undefined) bySize.set(size, (found = bodyOfSize(size)));
      return found;
    };
    for (const [target, size] of Object.entries(sizes.byTarget)) this.byTarget.set(target, body(size));
    for (const [path, size] of Object.entries(sizes.byPath)) this.byPath.set(path, body(size));
    for (const { pattern, size } of sizes.byPattern ?? []) this.byPattern.push({ pattern: new RegExp(pattern), body: body(size) });
  }

  /** The body for a request (`query` as uWS gives it: undefined or '' without one), or undefined: 404. */
  bodyFor(path: string, query: string | undefined): Buffer | undefined {
    const found = (query ? this.byTarget.get(`${path}?${query}`) : this.byTarget.get(path)) ?? this.byPath.get(path);
    if (found !== undefined || this.byPattern.length === 0) return found;
    return this.byPattern.find(({ pattern }) => pattern.test(path))?.body;
  }
}

export const BARE_CONTENT_TYPE = 'application/json; charset=utf-8';

/** This script, for the benches that start it as a child process. */
export const BARE_SCRIPT = fileURLToPath(import.meta.url);

/** The bare handler: one map lookup and one corked write. */
export function bareHandler(bodies: BareBodies): (res: UwsHttpResponse, req: UwsHttpRequest) => void {
  return (res, req) => {
    const body = bodies.bodyFor(req.getUrl(), req.getQuery());
    res.cork(() => {
      if (body === undefined) res.writeStatus('404 Not Found').end();
      else res.writeStatus('200 OK').writeHeader('Content-Type', BARE_CONTENT_TYPE).end(body);
    });
  };
}

if (process.argv[1] === BARE_SCRIPT) {
  const sizes = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as BareSizes;
  const { uws } = loadUws(uwsCandidates(process.env));
  const app = uws.App();
  app.any('/*', bareHandler(new BareBodies(sizes)));
  app.listen('127.0.0.1', 0, (socket) => {
    if (socket === false) {
      process.stderr.write('bare: could not listen\n');
      process.exit(1);
    }
    process.stdout.write(`listening ${uws.us_socket_local_port(socket)}\n`);
    process.on('SIGTERM', () => {
      uws.us_listen_socket_close(socket);
      process.exit(0);
    });
  });
}
