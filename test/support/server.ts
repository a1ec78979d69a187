// Test helper: a real geoapi server in a child process on a free port, with a fresh key file
// (one key per plan, plus any extra keys) and a policy file.
//
//   import { startTestServer } from '../support/server.js';
//   const server = await startTestServer();                 // default snapshot, real operations
//   const res = await server.get('/v1/countries', { plan: 'starter' });   // {status, headers, body, json()}
//   await fetch(`${server.url}/v1/countries`, { headers: { 'X-GEOAPI-KEY': server.keys.business } });
//   await server.close();
//
// Options (all optional):
//   snapshotDir       snapshot directory; default the default snapshot (built on first use,
//                     data/snapshots/default, via build-index/default-snapshot.js)
//   operationsModule  path of a module exporting `operations` or `allOperations()`, and optionally
//                     openStore(dir) in place of a snapshot (the server's one test seam,
//                     OperationsModule in runtime/http/protocol.ts); default the real registry
//   policy            policy object, or path of a policy file; default data/policy.json
//   editPolicy        (policy) => void, applied to a copy of the policy before it is written
//   extraKeys         [{label, plan, expires?: ISO, revoked?: boolean}] → server.extraKeys[label]
//   threads           worker threads; default 1
//   quota             'off' (default: counters would interfere with contract tests) or 'default'
//                     (the quota settings of the environment, as `geoapi serve` reads them)
//   fixedNow          ISO time every request sees (RequestContext.now, quota windows)
//   env               extra environment for the child (e.g. GEOAPI_KEY_HEADER_ALIASES)
//   watchIntervalMs   key/policy file (and snapshot manifest.json) check interval; default 100
//   nodeArgs          extra node options for the child (e.g. ['--expose-gc'])
//
// The returned TestServer:
//   url, port, keys (plaintext key per plan), extraKeys, keysFile, policyFile, dir (temp dir),
//   uws (the uWS build in use), dataVersion, metricsUrl (with --metrics-port in args), logs() (child stderr so far),
//   stdout() (child stdout so far: V8's --trace-* output with nodeArgs), pid,
//   waitForLog(pattern, timeoutMs = 10000) — resolves with the matching line (logs arrive asynchronously),
//   get(path, {plan?, key?, headers?}) — one request on a fresh connection, no keep-alive,
//   raw(bytes) — writes raw bytes on a socket, resolves with everything read until the server closes,
//   freePort() (exported) — a free TCP port for CLI tests.
//   close() — SIGTERM, then SIGKILL if it has not exited after 3 s; removes the temp dir,
//   stop() — SIGTERM and resolves with the exit code (no SIGKILL; for shutdown tests),
//   exit() — resolves with the exit code and signal once the process has ended by itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { addKey, newKeyFile, writeKeyFile } from '../../runtime/access/keys.js';
import { DEFAULT_POLICY_FILE, PLAN_NAMES } from '../../runtime/access/policy.js';
import type { OperationsModule } from '../../runtime/http/protocol.js';
import type { UwsBuild } from '../../runtime/http/uws.js';
import type { ChildOptions } from './server-child.js';
import type { PlanName } from '../../runtime/contract/index.js';

import { repoRoot } from './paths.js';

/** The repository root (test/support/paths.ts). */
export const REPO_ROOT = repoRoot;
const CHILD = fileURLToPath(new URL('./server-child.js', import.meta.url));

/** `{key}` when there is one (exactOptionalPropertyTypes: never `{key: undefined}`). */
function keyOption(key: string | undefined): { key?: string } {
  return key === undefined ? {} : { key };
}

/** Keys by plan: every plan of data/policy.json has one. */
export type TestKeys = Readonly<Record<'community' | 'starter' | 'supporter' | 'professional' | 'business' | 'legacy' | 'playground', string>> & Readonly<Record<PlanName, string>>;

export interface ExtraKey {
  label: string;
  plan: PlanName;
  expires?: string;
  revoked?: boolean;
}

export interface TestServerOptions {
  snapshotDir?: string;
  operationsModule?: string;
  policy?: string | Record<string, unknown>;
  editPolicy?: (policy: Record<string, any>) => void;
  extraKeys?: ExtraKey[];
  threads?: number;
  quota?: 'off' | 'default';
  fixedNow?: string;
  env?: Record<string, string>;
  watchIntervalMs?: number;
  nodeArgs?: string[];
  /** Extra `geoapi serve` flags (e.g. ['--metrics-port', '0', '--access-log']). */
  args?: string[];
}

export interface TestResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Raw body bytes (compressed when the request asked for it). */
  bytes: Buffer;
  body: string;
  json(): any;
}

export interface RequestOptions {
  plan?: PlanName;
  key?: string;
  headers?: Record<string, string>;
  method?: string;
}

export interface TestServer {
  url: string;
  port: number;
  /** One key per plan of the policy; the shipped plans by name. */
  keys: TestKeys;
  extraKeys: Record<string, string>;
  keysFile: string;
  policyFile: string;
  dir: string;
  uws: UwsBuild;
  /** What its request threads run: the worker bundle or the modules (runtime/http/worker-code.ts). */
  workerCode: { bundled: boolean; description: string };
  dataVersion: string;
  /** http://127.0.0.1:<port>/metrics when the server was started with --metrics-port, else null. */
  metricsUrl: string | null;
  pid: number;
  logs(): string;
  stdout(): string;
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Waits until /readyz answers 200 (every thread warmed); the server itself resolves once it listens, before that. */
  untilReady(timeoutMs?: number): Promise<void>;
  get(path: string, options?: RequestOptions): Promise<TestResponse>;
  raw(bytes: string | Buffer, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
  stop(): Promise<number | null>;
  /** How the server process ended, once it has (without asking it to). */
  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** How long a test server may take to print that it listens (the full dataset's load is well within). */
const READY_LINE_TIMEOUT_MS = 120_000;

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

let defaultSnapshot: Promise<string> | undefined;

/** The default snapshot directory, built once per test process when missing or stale. */
export function defaultSnapshotDir(): Promise<string> {
  defaultSnapshot ??= import('../../build-index/default-snapshot.js').then(async ({ ensureDefaultSnapshot }) => {
    const result = await ensureDefaultSnapshot(join(REPO_ROOT, 'data/snapshots/default'));
    return result.dir;
  });
  return defaultSnapshot;
}

export { freePort } from './ports.js';

/** One GET (or `method`) on a fresh connection. */
export function request(url: string, options: RequestOptions & { key?: string } = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['X-GEOAPI-KEY'] = options.key;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const body = bytes.toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, body, json: () => JSON.parse(body) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Writes raw bytes and collects the answer until the server closes the connection (or timeoutMs). */
export function rawRequest(port: number, bytes: string | Buffer, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes));
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (suffix: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1') + suffix);
    };
    const timer = setTimeout(() => finish('[client timeout]'), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => finish(''));
    socket.on('error', (error) => finish(`[${error.message}]`));
  });
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'geoapi-test-'));
  try {
    let policy: Record<string, any>;
    if (typeof options.policy === 'object') policy = structuredClone(options.policy);
    else policy = JSON.parse(readFileSync(options.policy ?? DEFAULT_POLICY_FILE, 'utf8')) as Record<string, any>;
    options.editPolicy?.(policy);
    const policyFile = join(dir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify(policy, null, 2));

    const keyFile = newKeyFile();
    const keyByPlan: Record<string, string> = {};
    for (const plan of PLAN_NAMES) keyByPlan[plan] = addKey(keyFile, { plan, name: `test ${plan}` }).key;
    const keys = keyByPlan as TestKeys;
    const extraKeys: Record<string, string> = {};
    for (const extra of options.extraKeys ?? []) {
      const { record, key } = addKey(keyFile, { plan: extra.plan, name: extra.label, expires: extra.expires ? new Date(extra.expires) : null });
      record.revoked = extra.revoked ?? false;
      extraKeys[extra.label] = key;
    }
    const keysFile = join(dir, 'keys.json');
    writeKeyFile(keysFile, keyFile);

    // A seam module with its own store needs no snapshot: the temp dir stands in for one.
    const seam = options.operationsModule ? ((await import(pathToFileURL(options.operationsModule).href)) as OperationsModule) : null;
    const snapshotDir = options.snapshotDir ?? (typeof seam?.openStore === 'function' ? dir : await defaultSnapshotDir());
    const args = ['--snapshot', snapshotDir, '--keys', keysFile, '--policy', policyFile, '--port', '0', '--host', '127.0.0.1', '--threads', String(options.threads ?? 1)];
    if (options.quota !== 'default') args.push('--quota', 'off');
    args.push(...(options.args ?? []));
    const childOptions: ChildOptions = { args, watchIntervalMs: options.watchIntervalMs ?? 100 };
    if (options.operationsModule) childOptions.operationsModule = options.operationsModule;
    if (options.fixedNow) childOptions.fixedNow = options.fixedNow;

    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CHILD, JSON.stringify(childOptions)], {
      cwd: REPO_ROOT,
      // Quota counters persist into the temp dir, never into the repository's data/ (tests would share them).
      // A short soak before ready (300 requests per thread, 100 of them over a loopback socket; the default is 9,000): the path runs, starts stay quick.
      env: { ...process.env, GEOAPI_QUOTA_STATE_FILE: join(dir, 'quota-state.json'), GEOAPI_WARM_UP_REQUESTS: '300', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }));
    const exited = exit.then(({ code }) => code);

    let stdout = '';
    const ready = await new Promise<{ port: number; url: string; uws: UwsBuild; workerCode: { bundled: boolean; description: string }; store: { dataVersion: string }; metricsUrl: string | null }>((resolve, reject) => {
      // Found anywhere in a line, not only at its start: with --trace-* node options, V8 prints to
      // the same stdout through C's buffer, flushed at any byte, so the child's line (one write)
      // can follow half a trace line. Looking only at line starts, a start waited forever.
      const marker = /GEOAPI_TEST_(READY|FAILED) ([^\n]*)\n/;
      const timer = setTimeout(() => reject(new Error(`test server printed no GEOAPI_TEST_READY line within ${READY_LINE_TIMEOUT_MS / 1000} s; logs:\n${stderr}`)), READY_LINE_TIMEOUT_MS);
      let settled = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        // Once settled, only kept for stdout(): a traced child prints megabytes after ready.
        if (settled) return;
        const found = marker.exec(stdout);
        if (found === null) return;
        settled = true;
        clearTimeout(timer);
        if (found[1] === 'READY') resolve(JSON.parse(found[2]!));
        else reject(new Error(`test server did not start: ${JSON.parse(found[2]!)}\n${stderr}`));
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`test server exited (code ${code}) before it was ready:\n${stderr}`));
      });
    });

    const url = `http://127.0.0.1:${ready.port}`;
    const stop = async (): Promise<number | null> => {
      child.kill('SIGTERM');
      return exited;
    };
    return {
      url,
      port: ready.port,
      keys,
      extraKeys,
      keysFile,
      policyFile,
      dir,
      uws: ready.uws,
      workerCode: ready.workerCode,
      dataVersion: ready.store.dataVersion,
      metricsUrl: ready.metricsUrl,
      pid: child.pid!,
      logs: () => stderr,
      stdout: () => stdout,
      waitForLog: async (pattern, timeoutMs = 10_000) => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const line = stderr.split('\n').find((candidate) => pattern.test(candidate));
          if (line !== undefined) return line;
          if (Date.now() > deadline) throw new Error(`no log line matching ${pattern} within ${timeoutMs} ms; logs:\n${stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
      untilReady: async (timeoutMs = 30_000) => {
        const deadline = Date.now() + timeoutMs;
        while ((await request(`${url}/readyz`, {})).status !== 200) {
          if (Date.now() > deadline) throw new Error(`the server did not get ready within ${timeoutMs / 1000} s; logs:\n${stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      get: (path, requestOptions = {}) => request(`${url}${path}`, { ...requestOptions, ...keyOption(requestOptions.key ?? (requestOptions.plan ? keys[requestOptions.plan] : undefined)) }),
      raw: (bytes, timeoutMs) => rawRequest(ready.port, bytes, timeoutMs),
      stop,
      exit: () => exit,
      close: async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
