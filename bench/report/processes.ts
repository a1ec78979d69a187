// Server processes for the report: spawn, time spawn → first 200, read resident memory, stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { jsonFromChild } from './load/child-json.js';
import type { SingleAnswersConfig, SingleAnswersResult } from './load/single-answers.js';

export { freePort } from '../../test/support/ports.js';

const SINGLE_ANSWERS = fileURLToPath(new URL('./load/single-answers.js', import.meta.url));
/** Untimed /healthz requests the single-answer client sends first (its own code compiled; no server cache touched). */
const CLIENT_WARM_UP_REQUESTS = 1000;

export interface Reply {
  status: number;
  body: string;
}

/** One GET on a fresh connection. */
export function get(url: string, key: string, timeoutMs = 30_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { 'X-GEOAPI-KEY': key }, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

export interface ServiceTimes {
  count: number;
  p50: number;
  p99: number;
  max: number;
  /** The slowest requests (ms, path). */
  slowest: { ms: number; path: string }[];
  /**
   * The server's own time for the same answers (geoapi only; null when not read): from its latency
   * histogram, how many took over 5 ms; from its slow-request log (`--slow-ms`), the slowest
   * answers it logged, exact, named by the client's path (matched on X-Request-ID), slowest first,
   * at most 3 (none: every answer took less than `loggedFromMs`).
   */
  server: { over5ms: number; loggedFromMs: number; slowest: { ms: number; path: string }[] } | null;
}

/**
 * Times `paths` one at a time on one keep-alive connection: the cost of each answer without
 * queueing. The client runs in a process of its own (load/single-answers.ts), so the report's own
 * collections never stop it mid-answer, and sends CLIENT_WARM_UP_REQUESTS to /healthz first. With
 * `pathsById`, each answer's X-Request-ID is mapped to its path there (to name what the server logs).
 */
export async function serviceTimes(url: string, key: string, paths: string[], pathsById?: Map<string, string>): Promise<ServiceTimes> {
  const { hostname, port } = new URL(url);
  const config: SingleAnswersConfig = { host: hostname, port: Number(port), key, paths, warmUp: { path: '/healthz', requests: CLIENT_WARM_UP_REQUESTS } };
  const answers = await jsonFromChild<SingleAnswersResult>(SINGLE_ANSWERS, 'single-answer client', [], JSON.stringify(config));
  if (answers.ms.length !== paths.length) throw new Error(`single-answer client: expected ${paths.length} answers, found ${answers.ms.length}`);
  const timed = paths.map((path, i) => ({ ms: answers.ms[i]!, path }));
  if (pathsById !== undefined) answers.requestIds.forEach((requestId, i) => requestId !== '' && pathsById.set(requestId, paths[i]!));
  const sorted = timed.map((t) => t.ms).sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1), slowest: timed.sort((a, b) => b.ms - a.ms).slice(0, 3), server: null };
}

export interface RunningServer {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
  /** spawn → first 200 on `probePath`, ms. */
  startupMs: number;
  /** performance.now() at spawn. */
  spawnedAt: number;
  output(): string;
}

/**
 * Spawns `node args…` listening on `port`, then polls `probePath` every 10 ms until it answers
 * 200: the time from spawn to that answer is the startup time a user waits for.
 */
export async function startServer(name: string, args: string[], port: number, probePath: string, key: string, env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = `${code ?? signal}`));
  const url = `http://127.0.0.1:${port}`;
  const deadline = started + 300_000;
  for (;;) {
    if (exited !== null) throw new Error(`${name} exited (${exited}) before answering:\n${output}`);
    try {
      const reply = await get(`${url}${probePath}`, key, 5_000);
      if (reply.status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer ${probePath} with 200 within 300 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { name, url, port, child, startupMs: performance.now() - started, spawnedAt: started, output: () => output };
}

/** Polls `path` (no key: a probe) every 10 ms until it answers 200; returns spawn → that answer, ms. */
export async function waitReady(server: RunningServer, path: string, timeoutMs = 300_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const reply = await get(`${server.url}${path}`, '', 5_000).catch(() => null);
    if (reply?.status === 200) return performance.now() - server.spawnedAt;
    if (performance.now() > deadline) throw new Error(`${server.name} did not answer ${path} with 200 within ${timeoutMs / 1000} s:\n${server.output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function stopServer(server: RunningServer): Promise<void> {
  return new Promise((resolve) => {
    const child = server.child;
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function statusField(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `pid` and its descendants (node:cluster workers are child processes). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree: number[] = [];
  const walk = (p: number): void => {
    tree.push(p);
    for (const child of children.get(p) ?? []) walk(child);
  };
  walk(pid);
  return tree;
}

/** Sum of RssFile (bytes): resident pages mapped from files (binaries, libraries), which other processes mapping the same files share. */
export function fileRssBytes(pids: number[]): number {
  return pids.reduce((sum, p) => sum + statusField(p, 'RssFile'), 0);
}

/** Sum of VmRSS (bytes) over `pid` and its descendants. */
export function treeRssBytes(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + statusField(p, 'VmRSS'), 0);
}

/**
 * Sum of proportional set sizes (bytes): pages shared by several processes (PostgreSQL's shared
 * buffers, mapped by every backend) count once in total instead of once per process.
 */
export function pssBytes(pids: number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (match) sum += Number(match[1]) * 1024;
    } catch {
      // Gone, or not readable.
    }
  }
  return sum;
}

/** CPU time (user + system, seconds) used so far by the given processes (all their threads). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat, i.e. 12 and 13 after the command name.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** Busy CPU time of the whole machine (seconds, every core): /proc/stat minus idle and iowait. */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [, ...values] = line.trim().split(/\s+/);
  const ticks = values.map(Number);
  const total = ticks.slice(0, 8).reduce((sum, n) => sum + n, 0); // user … steal (guest is inside user)
  return (total - ticks[3]! - ticks[4]!) / 100;
}

/**
 * TCP segments retransmitted so far on this machine (/proc/net/snmp). On loopback a
 * retransmission means a dropped segment, which costs its request at least the 200 ms minimum
 * retransmission timeout: a latency run with any is disturbed (usually by other heavy loopback
 * traffic on a shared machine).
 */
export function tcpRetransmits(): number {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((line) => line.startsWith('Tcp:'));
    const names = lines[0]!.trim().split(/\s+/);
    const values = lines[1]!.trim().split(/\s+/);
    return Number(values[names.indexOf('RetransSegs')]);
  } catch {
    return 0;
  }
}

/** CPU time the hypervisor gave to other guests while this machine wanted it (seconds, every core). */
export function stealSeconds(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  return Number(values[7] ?? 0) / 100;
}
