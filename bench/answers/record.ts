// Records the answers of one checkout: builds the full snapshot with that checkout's `geoapi build`
// (or reuses one), creates one key per plan with its `geoapi keys add`, starts its `geoapi serve`
// (one thread, quotas off, fixed cursor secret and clock), sends the seeded request list one at a
// time and writes one JSON line per request.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { freePort } from '../report/processes.js';
import { KEY_PLANS, planRequests, type Step } from './requests.js';

export const CURSOR_SECRET = 'answers-comparison-fixed-cursor-secret';
export const FIXED_NOW = '2026-01-15T12:00:00.000Z';
const CLOCK = fileURLToPath(new URL('./fixed-clock.js', import.meta.url));

/** Headers left out: they change from request to request or run to run by design. */
const VOLATILE_HEADERS = /^(date|x-request-id|uwebsockets|connection|keep-alive|transfer-encoding|content-length|x-geoapi-(daily|monthly)-(used|remaining|reset)|retry-after)$/;

export interface RecordOptions {
  checkout: string;
  out: string;
  dataset: string;
  seed: number;
  count: number;
  /** A snapshot directory to reuse; built there by the checkout when it holds no manifest. */
  snapshot?: string;
  log: (line: string) => void;
}

export interface Answer {
  index: number;
  kind: string;
  caller: string;
  /** Path and query as sent (after a cursor was appended). */
  path: string;
  requestHeaders: Record<string, string>;
  status: number;
  /** Every response header but the volatile ones, lower-case names, sorted. */
  headers: Record<string, string>;
  /** SHA-256 and length of the body after undoing Content-Encoding. */
  bodySha256: string;
  bodyLength: number;
  /** The first 400 characters of the decoded body, to read diffs. */
  bodyHead: string;
  /** SHA-256 and length of the bytes on the wire (compressed when encoded). */
  wireSha256: string;
  wireLength: number;
  /** The same with the data version and cursor signatures factored out (see normaliseText). */
  normalised: { path: string; bodySha256: string; headers: Record<string, string> };
}

export interface Skipped {
  index: number;
  kind: string;
  skipped: string;
}

export interface RecordingHeader {
  recording: 'geoapi-answers';
  version: 1;
  checkout: string;
  commit: string;
  seed: number;
  count: number;
  dataVersion: string;
  fixedNow: string;
}

function cli(checkout: string): string {
  const main = join(checkout, 'dist/runtime/cli/main.js');
  if (!existsSync(main)) throw new Error(`expected a compiled checkout with ${main}, found none (run npx tsc -p tsconfig.json there)`);
  return main;
}

function runCli(checkout: string, args: string[], cwd: string): string {
  const result = spawnSync(process.execPath, [cli(checkout), ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`geoapi ${args.join(' ')}: exit ${result.status}\n${result.stderr}`);
  return result.stdout;
}


/** Polls /readyz until it answers 200, or 404 (a build from before readiness probes). */
async function waitForReady(port: number, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const status = await new Promise<number>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', () => resolve(0));
    });
    if (status === 200 || status === 404) return;
    if (performance.now() > deadline) throw new Error(`geoapi serve on port ${port} was not ready within ${timeoutMs / 1000} s (last /readyz status ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function waitForBanner(child: ChildProcess, stderr: () => string): Promise<void> {
  return new Promise((resolveReady, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('geoapi listening on')) resolveReady();
    });
    child.once('exit', (code) => reject(new Error(`geoapi serve exited with ${code} before listening\n${out}\n${stderr()}`)));
  });
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function send(agent: http.Agent, port: number, path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolveResponse, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolveResponse({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding) {
    case undefined:
    case 'identity':
      return body;
    case 'gzip':
      return gunzipSync(body);
    case 'br':
      return brotliDecompressSync(body);
    case 'deflate':
      return inflateSync(body);
    default:
      throw new Error(`unexpected Content-Encoding ${JSON.stringify(encoding)}`);
  }
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * Factors out what a changed snapshot layout may legitimately change: the data version (a hash
 * of the sections) and, through it, cursor tokens (payload carries the data version; signature
 * covers the payload). A cursor becomes `cursor(<payload with the data version replaced>)`.
 */
export function normaliseText(text: string, dataVersion: string): string {
  const replaced = text.replace(/[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/g, (token) => {
    const [payload] = token.split('.');
    try {
      const decoded = Buffer.from(payload!, 'base64url').toString('utf8');
      if (!decoded.startsWith('[')) return token;
      return `cursor(${decoded.split(dataVersion).join('<dataVersion>')})`;
    } catch {
      return token;
    }
  });
  return dataVersion === '' ? replaced : replaced.split(dataVersion).join('<dataVersion>');
}

function keptHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) {
    if (VOLATILE_HEADERS.test(name)) continue;
    const value = headers[name];
    kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}

export async function record(options: RecordOptions): Promise<{ answers: number; skipped: number }> {
  const checkout = resolve(options.checkout);
  const work = mkdtempSync(join(tmpdir(), 'geoapi-answers-'));
  let child: ChildProcess | null = null;
  try {
    const snapshot = resolve(options.snapshot ?? join(work, 'snapshot'));
    if (!existsSync(join(snapshot, 'manifest.json'))) {
      mkdirSync(dirname(snapshot), { recursive: true });
      options.log(`building the snapshot of ${options.dataset} with ${checkout} into ${snapshot}`);
      runCli(checkout, ['build', '--source', resolve(options.dataset), '--out', snapshot], work);
    }
    const dataVersion = (JSON.parse(readFileSync(join(snapshot, 'manifest.json'), 'utf8')) as { dataVersion: string }).dataVersion;
    const keysFile = join(work, 'keys.json');
    const keys: Record<string, string> = {};
    for (const plan of KEY_PLANS) {
      const lines = runCli(checkout, ['keys', 'add', '--plan', plan, '--name', `answers-${plan}`, '--file', keysFile], work).trim().split('\n');
      keys[plan] = lines[lines.length - 1]!.trim();
    }
    keys['unknown-key'] = 'gk_not-a-key-this-server-knows';

    const steps: Step[] = planRequests(options.seed, options.dataset, options.count);
    const port = await freePort();
    let stderr = '';
    child = spawn(process.execPath, ['--import', CLOCK, cli(checkout), 'serve', '--snapshot', snapshot, '--keys', keysFile, '--port', String(port), '--threads', '1', '--host', '127.0.0.1'], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        GEOAPI_QUOTA: 'off',
        GEOAPI_QUOTA_STATE_FILE: 'none',
        GEOAPI_CURSOR_SECRET: CURSOR_SECRET,
        GEOAPI_CURSOR_SECRET_PREVIOUS: '',
        GEOAPI_ANSWERS_NOW: FIXED_NOW,
        TZ: 'UTC',
      },
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await waitForBanner(child, () => stderr);
    // Requests start once it is ready (its warm-up fills caches: answered before, X-Cache would
    // depend on timing); a build without /readyz (404) is ready once it listens.
    await waitForReady(port);
    options.log(`serving ${checkout} on port ${port}; sending ${steps.length} requests`);

    const commit = spawnSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
    const out = createWriteStream(options.out);
    const header: RecordingHeader = { recording: 'geoapi-answers', version: 1, checkout, commit, seed: options.seed, count: options.count, dataVersion, fixedNow: FIXED_NOW };
    out.write(`${JSON.stringify(header)}\n`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const cursors = new Map<number, string | null>();
    const etags = new Map<number, string | null>();
    let skipped = 0;
    for (const step of steps) {
      let path = step.path;
      const headers: Record<string, string> = { ...step.headers };
      if (step.cursorFrom !== undefined) {
        const cursor = cursors.get(step.cursorFrom);
        if (!cursor) {
          skipped++;
          cursors.set(step.index, null);
          out.write(`${JSON.stringify({ index: step.index, kind: step.kind, skipped: `step ${step.cursorFrom} gave no next_cursor` } satisfies Skipped)}\n`);
          continue;
        }
        path += `${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
      }
      if (step.etagFrom !== undefined) {
        const etag = etags.get(step.etagFrom);
        if (!etag) {
          skipped++;
          out.write(`${JSON.stringify({ index: step.index, kind: step.kind, skipped: `step ${step.etagFrom} gave no ETag` } satisfies Skipped)}\n`);
          continue;
        }
        headers['If-None-Match'] = etag;
      }
      if (step.caller !== 'none') headers['X-GEOAPI-KEY'] = keys[step.caller]!;
      const res = await send(agent, port, path, headers);
      const body = decode(res.body, res.headers['content-encoding'] as string | undefined);
      const text = body.toString('utf8');
      let nextCursor: string | null = null;
      if (res.status === 200 && text.startsWith('{')) {
        try {
          nextCursor = (JSON.parse(text) as { pagination?: { next_cursor?: string | null } }).pagination?.next_cursor ?? null;
        } catch {
          nextCursor = null;
        }
      }
      cursors.set(step.index, nextCursor);
      etags.set(step.index, (res.headers.etag as string | undefined) ?? null);
      const kept = keptHeaders(res.headers);
      const requestHeaders = { ...headers };
      delete requestHeaders['X-GEOAPI-KEY'];
      const normalisedHeaders: Record<string, string> = {};
      const cursorInBody = nextCursor !== null;
      for (const [name, value] of Object.entries(kept)) {
        // An ETag hashes the body, so it follows any cursor inside it; the normalised body stands for it.
        normalisedHeaders[name] = name === 'etag' && cursorInBody ? '<etag of a body with a cursor>' : normaliseText(value, dataVersion);
      }
      const answer: Answer = {
        index: step.index,
        kind: step.kind,
        caller: step.caller,
        path,
        requestHeaders,
        status: res.status,
        headers: kept,
        bodySha256: sha256(body),
        bodyLength: body.length,
        bodyHead: text.slice(0, 400),
        wireSha256: sha256(res.body),
        wireLength: res.body.length,
        normalised: { path: normaliseText(path, dataVersion), bodySha256: sha256(normaliseText(text, dataVersion)), headers: normalisedHeaders },
      };
      out.write(`${JSON.stringify(answer)}\n`);
    }
    agent.destroy();
    await new Promise<void>((done) => out.end(done));
    return { answers: steps.length - skipped, skipped };
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(work, { recursive: true, force: true });
  }
}
