// Helpers for the operations tests: the fixture snapshot (built once per test process into a temp
// dir), the geoapi CLI run as a real process, and nginx run in the foreground from a temp prefix.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSnapshot } from '../../build-index/build.js';
import { REPO_ROOT } from '../support/server.js';

export const CLI = join(REPO_ROOT, 'dist/runtime/cli/main.js');
const FIXTURE_SOURCE = join(REPO_ROOT, 'test/fixtures/csc');

let fixture: string | undefined;

/** A fresh temp directory removed when the test process exits. */
export function tempDir(prefix = 'geoapi-ops-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The fixture dataset's snapshot (do not modify it: copy with buildFixtureSnapshot). */
export function fixtureSnapshot(): string {
  fixture ??= buildFixtureSnapshot();
  return fixture;
}

/** Builds the fixture dataset into a new directory (to damage or inspect). */
export function buildFixtureSnapshot(out = join(tempDir(), 'snapshot')): string {
  buildSnapshot({ source: FIXTURE_SOURCE, out });
  return out;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `geoapi <args>` to completion. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, cwd = REPO_ROOT): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function nginxMissing(): string | null {
  return spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0 ? null : 'nginx is not installed (apt-get install -y nginx-light)';
}

export interface RunningNginx {
  port: number;
  prefix: string;
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Runs nginx (foreground, temp prefix) with `httpConf` included in its http block. Resolves once
 * nginx has written its pid file (it listens before that).
 */
export async function startNginx(httpConf: string, port: number): Promise<RunningNginx> {
  const prefix = tempDir('geoapi-nginx-');
  mkdirSync(join(prefix, 'tmp'), { recursive: true, mode: 0o777 });
  writeFileSync(join(prefix, 'geoapi.conf'), httpConf);
  const userLine = process.getuid?.() === 0 ? 'user root;' : '';
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `${userLine}
worker_processes 1;
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log info;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  include ${prefix}/geoapi.conf;
}
`,
  );
  const check = spawnSync('nginx', ['-t', '-q', '-p', prefix, '-e', join(prefix, 'error.log'), '-c', join(prefix, 'nginx.conf')], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx -t refused the configuration:\n${check.stderr}`);
  const child: ChildProcess = spawn('nginx', ['-p', prefix, '-e', join(prefix, 'error.log'), '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.once('exit', () => child.kill('SIGKILL'));
  const pidFile = join(prefix, 'nginx.pid');
  while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
    if (child.exitCode !== null) throw new Error(`nginx exited before it was ready: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    port,
    prefix,
    errorLog: () => (existsSync(join(prefix, 'error.log')) ? readFileSync(join(prefix, 'error.log'), 'utf8') : ''),
    stop: async () => {
      child.kill('SIGQUIT');
      await exited;
    },
  };
}

/** deploy/nginx/geoapi.conf with its listen address and upstream port replaced for a test run. */
export function renderDeployNginxConf(listenPort: number, upstreamPort: number): string {
  const conf = readFileSync(join(REPO_ROOT, 'deploy/nginx/geoapi.conf'), 'utf8');
  const rendered = conf.replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${listenPort};`).replace(/server 127\.0\.0\.1:8080\b/, `server 127.0.0.1:${upstreamPort}`);
  if (!rendered.includes(`listen 127.0.0.1:${listenPort};`) || !rendered.includes(`127.0.0.1:${upstreamPort}`)) {
    throw new Error('deploy/nginx/geoapi.conf: expected "listen 80;" and "server 127.0.0.1:8080" to template');
  }
  return rendered;
}

export interface StartedProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when stdout+stderr so far match `pattern`; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Resolves when the process has exited and both its pipes closed (every writer to them is gone). */
  closed: Promise<number | null>;
}

/** Spawns a long-running command with piped output (killed with SIGKILL if the test process exits first). */
export function startProcess(command: string, args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): StartedProcess {
  const child = spawn(command, args, { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    for (const check of waiters) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  process.once('exit', () => child.kill('SIGKILL'));
  let exitCode: number | null = null;
  let exited = false;
  const closed = new Promise<number | null>((resolve) => {
    child.once('close', (code) => {
      exited = true;
      exitCode = code;
      for (const check of waiters) check();
      resolve(code);
    });
  });
  return {
    child,
    output: () => output,
    closed,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(output)) {
            waiters.delete(check);
            resolve();
          } else if (exited) {
            waiters.delete(check);
            reject(new Error(`process exited (${exitCode}) before printing ${pattern}:\n${output}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
