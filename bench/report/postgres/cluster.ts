// A throwaway PostgreSQL 15 cluster (Debian postgresql-15 binaries; as user postgres when run as
// root), listening on TCP for a separate server process and reporting its start time and
// processes (bench/search.bench.ts starts one with lighter settings). Removed by stop().
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../processes.js';

export const PG_BIN = process.env.GEOAPI_BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * Settings a team would give a read-only reference database behind an API on this machine: the
 * data fits in shared_buffers, JIT off and no parallel workers (both only slow short concurrent
 * queries), no durability work (nothing is written), and no background work once loaded: no
 * autovacuum (the loader vacuums once: load.ts settleDatabase) and no timed checkpoint (its writes,
 * spread over minutes, went on while other systems were measured; the cluster keeps running then).
 */
const SETTINGS = [
  'listen_addresses=127.0.0.1',
  'shared_buffers=1GB',
  'effective_cache_size=4GB',
  'work_mem=16MB',
  'maintenance_work_mem=512MB',
  'max_connections=100',
  'jit=off',
  'max_parallel_workers_per_gather=0',
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'autovacuum=off',
  'checkpoint_timeout=1d',
];

export interface PgCluster {
  host: string;
  port: number;
  user: string;
  version: string;
  /** pg_ctl start → accepting connections, ms. */
  startMs: number;
  dataDir: string;
  /** The postmaster's pid (its children are the backends). */
  postmasterPid(): number;
  stop(): void;
}

/** Why a cluster cannot be started here, or null when it can. */
export function postgresUnavailable(): string | null {
  if (!existsSync(join(PG_BIN, 'initdb'))) return `PostgreSQL 15 is not installed (${PG_BIN}/initdb not found; apt-get install postgresql-15)`;
  return null;
}

export interface ClusterOptions {
  /** `-c` settings for the server (default: the report's, above). */
  settings?: readonly string[];
  /** Prefix of the temporary directory holding the cluster. */
  tmpPrefix?: string;
}

export async function startCluster({ settings = SETTINGS, tmpPrefix = 'geoapi-report-pg-' }: ClusterOptions = {}): Promise<PgCluster> {
  const reason = postgresUnavailable();
  if (reason) throw new Error(reason);
  const dir = mkdtempSync(join(tmpdir(), tmpPrefix));
  const asRoot = process.getuid?.() === 0;
  const run = (bin: string, args: string[]): string => {
    const command = asRoot ? 'runuser' : join(PG_BIN, bin);
    const argv = asRoot ? ['-u', 'postgres', '--', join(PG_BIN, bin), ...args] : args;
    const result = spawnSync(command, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${bin} failed (${result.status}): ${result.stderr || result.stdout}`);
    return result.stdout;
  };
  const dataDir = join(dir, 'data');
  let started = false;
  try {
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    const port = await freePort();
    run('initdb', ['-D', dataDir, '--locale=C.UTF-8', '--encoding=UTF8', '-U', 'postgres', '--auth=trust']);
    const options = [`-p ${port}`, `-k ${dir}`, ...settings.map((s) => `-c ${s}`)].join(' ');
    const t = performance.now();
    run('pg_ctl', ['-D', dataDir, '-l', join(dir, 'log'), '-w', '-o', options, 'start']);
    started = true;
    const startMs = performance.now() - t;
    const version = run('postgres', ['--version']).trim().replace(/^postgres \(PostgreSQL\) /, '');
    return {
      host: '127.0.0.1',
      port,
      user: 'postgres',
      version,
      startMs,
      dataDir,
      postmasterPid: () => Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
      stop() {
        try {
          run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    if (started) spawnSync(asRoot ? 'runuser' : join(PG_BIN, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), '-D', dataDir, '-m', 'immediate', 'stop'] : ['-D', dataDir, '-m', 'immediate', 'stop']);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Pids of the postmaster and every process it started (backends, checkpointer …). */
export function clusterPids(postmasterPid: number): number[] {
  const pids = [postmasterPid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) follows the parenthesised command name, which may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmasterPid) pids.push(Number(entry));
    } catch {
      // The process exited while we looked.
    }
  }
  return pids;
}
