// `geoapi serve`: runs the server until SIGTERM/SIGINT, then drains and exits 0.
// SIGHUP re-reads the key file and the policy at once (they are also watched).
import { configFrom, describeConfig, type Env, type GeoapiConfig } from './config.js';
import { startServer, type RunningServer } from '../http/server.js';
import { describeBuild } from '../http/uws.js';

/** How long a drain may take before the process is killed (uWS closes idle keep-alive connections after ~10 s). */
const STOP_TIMEOUT_MS = 30_000;

/** The start banner: where it listens, what it serves, and the configuration (describeConfig: no secrets). */
export function banner(server: RunningServer, config: GeoapiConfig): string[] {
  const counts = Object.entries(server.store.recordCounts)
    .map(([entity, count]) => `${count.toLocaleString('en-US')} ${entity}`)
    .join(', ');
  return [
    `geoapi listening on ${server.url} (${server.threads} thread${server.threads === 1 ? '' : 's'})`,
    `uWS: ${describeBuild(server.uws)} ${server.uws.binary}`,
    `snapshot: ${config.snapshotDir} (dataVersion ${server.store.dataVersion}; ${counts})`,
    ...describeConfig(config),
    ...(server.metricsUrl === null ? [] : [`metrics: ${server.metricsUrl}`]),
  ];
}

/** Starts the server, prints the banner, resolves with the exit code once stopped. */
export async function serveUntilStopped(config: GeoapiConfig, print: (line: string) => void, afterBanner: string[] = []): Promise<number> {
  const server = await startServer({ config });
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
  for (const line of [...banner(server, config), ...afterBanner]) print(line);
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

export async function runServeCommand(args: string[], print: (line: string) => void, env: Env): Promise<number> {
  return serveUntilStopped(configFrom(args, env), print);
}
