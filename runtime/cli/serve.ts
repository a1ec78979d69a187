// `geoapi serve`: runs the server until SIGTERM/SIGINT, then drains and exits 0.
// SIGHUP re-reads the key file and the policy at once (they are also watched).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer, type RunningServer, type ServerOptions } from '../http/server.js';
import { describeBuild } from '../http/uws.js';
import { DEFAULT_PORT } from './paths.js';
import { UsageError } from './usage.js';

/** How long a drain may take before the process is killed (uWS closes idle keep-alive connections after ~10 s). */
const STOP_TIMEOUT_MS = 30_000;

function integerOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`${name}: expected an integer from ${min} to ${max}, found ${JSON.stringify(value)}`);
  return Number(value);
}

export function serveOptionsFrom(args: string[], env: NodeJS.ProcessEnv = process.env): ServerOptions {
  const { values } = parseArgs({
    args,
    options: {
      snapshot: { type: 'string' },
      keys: { type: 'string' },
      port: { type: 'string' },
      threads: { type: 'string' },
      policy: { type: 'string' },
      host: { type: 'string' },
      redis: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const snapshotDir = values.snapshot ?? env['GEOAPI_SNAPSHOT'];
  const keysFile = values.keys ?? env['GEOAPI_KEYS'];
  if (!snapshotDir) throw new UsageError('serve: --snapshot <dir> (or GEOAPI_SNAPSHOT) is required');
  if (!keysFile) throw new UsageError('serve: --keys <file> (or GEOAPI_KEYS) is required; create one with geoapi keys add --plan <plan> --file <file>');
  const options: ServerOptions = {
    snapshotDir,
    keysFile,
    port: integerOption('--port', values.port ?? env['GEOAPI_PORT'], 0, 65535) ?? DEFAULT_PORT,
  };
  const threads = integerOption('--threads', values.threads ?? env['GEOAPI_THREADS'], 1, 256);
  if (threads !== undefined) options.threads = threads;
  const policyFile = values.policy ?? env['GEOAPI_POLICY'];
  if (policyFile) options.policyFile = policyFile;
  const host = values.host ?? env['GEOAPI_HOST'];
  if (host) options.host = host;
  // Quota counters in Redis, shared by every replica (GEOAPI_REDIS_URL is read by the quota module).
  if (values.redis !== undefined) options.quotaOptions = { redisUrl: values.redis };
  return options;
}

export function banner(server: RunningServer, options: ServerOptions): string[] {
  const counts = Object.entries(server.store.recordCounts)
    .map(([entity, count]) => `${count.toLocaleString('en-US')} ${entity}`)
    .join(', ');
  return [
    `geoapi listening on ${server.url} (${server.threads} thread${server.threads === 1 ? '' : 's'})`,
    `uWS: ${describeBuild(server.uws)} ${server.uws.binary}`,
    `snapshot: ${resolve(options.snapshotDir)} (dataVersion ${server.store.dataVersion}; ${counts})`,
    `keys: ${resolve(options.keysFile)}; quotas: ${server.quota}`,
  ];
}

/** Starts the server, prints the banner, resolves with the exit code once stopped. */
export async function serveUntilStopped(options: ServerOptions, print: (line: string) => void, afterBanner: string[] = []): Promise<number> {
  const server = await startServer(options);
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
  const reload = (): void => {
    server.reloadKeys();
    server.reloadPolicy();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', reload);
  // Printed only once the signal handlers are in place: whoever waits for the banner may stop us at once.
  for (const line of [...banner(server, options), ...afterBanner]) print(line);
  await server.exited;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  process.off('SIGHUP', reload);
  if (!stopping) {
    console.error('geoapi: every worker thread exited; stopping');
    return 1;
  }
  console.error('geoapi: stopped');
  return 0;
}

export async function runServeCommand(args: string[], print: (line: string) => void): Promise<number> {
  return serveUntilStopped(serveOptionsFrom(args), print);
}
