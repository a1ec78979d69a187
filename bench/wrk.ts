// Shared by the HTTP benches: one wrk run (C, Debian package `wrk`) parsed into numbers, and the
// setup they all start with (the snapshot to serve, a key file holding one Business key).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addKey, newKeyFile, writeKeyFile } from '../runtime/access/keys.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WrkResult {
  requestsPerSecond: number;
  /** Requests completed in the run (NaN when wrk does not say). */
  requests: number;
  p50: number;
  p99: number;
  /** Non-2xx/3xx responses plus socket errors. */
  bad: number;
}

/** How wrk sends the key: one `x-geoapi-key` header, or a Lua script (e.g. rotating over many keys). */
export type WrkAuth = { key: string } | { script: string };

const toMs = (value: string, unit: string): number => Number(value) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

/** One wrk run (one thread) in its own process. */
export function runWrk(url: string, auth: WrkAuth, seconds: number, connections: number): WrkResult {
  const authArgs = 'key' in auth ? ['-H', `x-geoapi-key: ${auth.key}`] : ['-s', auth.script];
  const run = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...authArgs, url], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`wrk failed (${run.status}): ${run.stderr}`);
  const out = run.stdout;
  const percentile = (p: string): number => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
    if (!m) throw new Error(`wrk output without a ${p}% latency:\n${out}`);
    return toMs(m[1]!, m[2]!);
  };
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!rps) throw new Error(`wrk output without Requests/sec:\n${out}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  return { requestsPerSecond: Number(rps[1]), requests, p50: percentile('50'), p99: percentile('99'), bad: non2xx + socketErrors };
}

/** GEOAPI_BENCH_SNAPSHOT, else the default snapshot (built if needed). */
export async function benchSnapshotDir(): Promise<string> {
  const wanted = process.env['GEOAPI_BENCH_SNAPSHOT'];
  if (wanted) return wanted;
  const { ensureDefaultSnapshot } = await import('../build-index/default-snapshot.js');
  return (await ensureDefaultSnapshot(join(REPO_ROOT, 'data/snapshots/default'))).dir;
}

/** Writes `dir`/keys.json holding one Business key named "bench". */
export function writeBenchKey(dir: string): { key: string; keysFile: string } {
  const keyFile = newKeyFile();
  const { key } = addKey(keyFile, { plan: 'business', name: 'bench' });
  const keysFile = join(dir, 'keys.json');
  writeKeyFile(keysFile, keyFile);
  return { key, keysFile };
}
