// `geoapi serve`: runs the server until SIGTERM/SIGINT, then drains and exits 0.
// SIGHUP re-reads the key file and the policy at once (they are also watched) and reloads the
// snapshot (live swap, runtime/http/snapshot-swap.ts). The process id goes to the pid file
// (pid-file.ts), where `geoapi reload` finds it.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeAllocator } from './allocator.js';
import { describeCompat, describeConfig, pidFileFor, type Env, type GeoapiConfig } from './config.js';
import { dataHome } from './paths.js';
import { startServer, type RunningServer } from '../http/server.js';
import { describeBuild } from '../http/uws.js';
import type { BackgroundPriority } from '../http/background-priority.js';
import type { SnapshotBytes } from '../store/load.js';
import { removePidFile, signalServer, writePidFile } from './pid-file.js';

/** The banner's line on background threads: `nice +10 for 6 threads (why)` or `unchanged (why)`. */
function describeBackground(background: BackgroundPriority): string {
  if (background.nice === 0) return background.why;
  return `nice +${background.nice} for ${background.threads} thread${background.threads === 1 ? '' : 's'} (${background.why})`;
}

/** How long a drain may take before the process is killed (uWS closes idle keep-alive connections after ~10 s). */
const STOP_TIMEOUT_MS = 30_000;

/** The start banner: where it listens, what it serves, and the configuration (describeConfig: no secrets). */
export function banner(server: RunningServer, config: GeoapiConfig, env: Env = process.env): string[] {
  const allocator = describeAllocator(env);
  const counts = Object.entries(server.store.recordCounts)
    .map(([entity, count]) => `${count.toLocaleString('en-US')} ${entity}`)
    .join(', ');
  return [
    `geoapi listening on ${server.url} (${server.threads} thread${server.threads === 1 ? '' : 's'})`,
    `uWS: ${describeBuild(server.uws)} ${server.uws.binary}`,
    `snapshot: ${config.snapshotDir} (dataVersion ${server.store.dataVersion}; ${counts})`,
    ...describeConfig(config),
    ...(allocator === null ? [] : [allocator]),
    `gc: scavenges ${server.scavenge.parallel ? 'split over helper threads' : 'on the collecting thread alone'} (${server.scavenge.why})`,
    `background threads: ${describeBackground(server.background)}`,
    `worker code: ${server.workerCode.description}`,
    `compat: ${describeCompat(server.compat)}`,
    ...(server.metricsUrl === null ? [] : [`metrics: ${server.metricsUrl}`]),
  ];
}

export interface ServeHooks {
  /** Runs on SIGHUP before the snapshot is reloaded (`geoapi start`: rebuild the default snapshot when stale). */
  beforeSnapshotReload?(): Promise<void>;
}

/**
 * Starts the server, prints the banner, resolves with the exit code once stopped. `snapshotRead`:
 * the read of config.snapshotDir when the caller started it (read-ahead.ts).
 */
export async function serveUntilStopped(config: GeoapiConfig, print: (line: string) => void, afterBanner: string[] = [], hooks: ServeHooks = {}, snapshotRead?: Promise<SnapshotBytes>): Promise<number> {
  const server = await startServer(snapshotRead === undefined ? { config } : { config, snapshotRead });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      console.error(`geoapi: ${signal} again: exiting without waiting for open connections`);
      process.kill(process.pid, 'SIGKILL');
      return;
    }
    stopping = true;
    console.error(`geoapi: ${signal}: no new connections; finishing open ones`);
    setTimeout(() => {
      console.error(`geoapi: connections still open after ${STOP_TIMEOUT_MS / 1000} s; exiting anyway`);
      // process.exit with live uWS threads aborts in libuv; SIGKILL is the honest equivalent.
      process.kill(process.pid, 'SIGKILL');
    }, STOP_TIMEOUT_MS).unref();
    void server.close();
  };
  // SIGHUPs while one is handled collapse into one more round (the swapper coalesces too).
  let hangups: Promise<void> | null = null;
  let hangupAgain = false;
  const reloadAll = async (): Promise<void> => {
    do {
      hangupAgain = false;
      server.reloadKeys();
      server.reloadPolicy();
      try {
        await hooks.beforeSnapshotReload?.();
      } catch (error) {
        console.error(`geoapi: SIGHUP: ${(error as Error).message}; reloading the snapshot on disk as it is`);
      }
      await server.reloadSnapshot('SIGHUP');
    } while (hangupAgain && !stopping);
  };
  const reload = (): void => {
    if (stopping) return;
    if (hangups !== null) {
      hangupAgain = true;
      return;
    }
    hangups = reloadAll().finally(() => {
      hangups = null;
    });
  };
  // An exception nothing caught in this thread: Node would exit with the worker threads' uWS
  // sockets open, and libuv aborts the process then. Stopped as on SIGTERM instead, exit code 1.
  let failed = false;
  const uncaught = (error: unknown): void => {
    console.error(`geoapi: uncaught exception: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    if (stopping) return;
    failed = true;
    stop('uncaught exception');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', reload);
  process.on('uncaughtException', uncaught);
  const pidFile = writePidFile(config.pidFile, (message) => console.error(`geoapi: ${message}`));
  // Printed only once the signal handlers are in place: whoever waits for the banner may stop us at once.
  for (const line of [...banner(server, config), ...afterBanner]) print(line);
  await server.exited;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  process.off('SIGHUP', reload);
  process.off('uncaughtException', uncaught);
  if (pidFile) removePidFile(config.pidFile);
  if (!stopping) {
    console.error('geoapi: every worker thread exited; stopping');
    return 1;
  }
  console.error('geoapi: stopped');
  return failed ? 1 : 0;
}

/**
 * `geoapi reload [--snapshot <dir>] [--pid-file <file>]`: tells the running server to reload its
 * snapshot (and keys and policy): SIGHUP to the process named in its pid file. The server logs the
 * outcome (`snapshot: now serving …` or `snapshot: refused …`).
 */
export function runReloadCommand(args: string[], print: (line: string) => void, env: Env): number {
  const { values } = parseArgs({ args, options: { snapshot: { type: 'string' }, 'pid-file': { type: 'string' } }, strict: true, allowPositionals: false });
  // Same defaults as serve/start: the snapshot `geoapi start` serves when none is named.
  const snapshotDir = values.snapshot ?? env['GEOAPI_SNAPSHOT'] ?? join(dataHome(env), 'snapshots', 'default');
  const pidFile = values['pid-file'] ?? (env['GEOAPI_PID_FILE'] || pidFileFor(snapshotDir));
  const pid = signalServer(pidFile);
  print(`Sent SIGHUP to the geoapi server (pid ${pid}, ${pidFile}); it reloads the snapshot, keys and policy and logs the outcome.`);
  return 0;
}
