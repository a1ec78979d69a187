// Child process of test/support/server.ts and test/quota/fixtures/replica.ts: reads its
// configuration as the CLI does — `args` (serve flags) and this process's environment, through
// configFrom — and runs startServer with the test-only options (the operations module seam, a fixed
// clock, the file-check interval) from the JSON in argv[2]. Prints one `GEOAPI_TEST_READY <json>`
// line when listening (or `GEOAPI_TEST_FAILED <message>`), reloads on SIGHUP, drains on SIGTERM and exits 0 once
// every worker is gone.
import { configFrom } from '../../runtime/cli/config.js';
import { startServer, type ServerOptions } from '../../runtime/http/server.js';

/** What the parent passes: serve flags plus the ServerOptions that only tests set. */
export interface ChildOptions extends Omit<ServerOptions, 'config' | 'log'> {
  args: string[];
}

const options = JSON.parse(process.argv[2] ?? '{}') as ChildOptions;

try {
  const { args, ...testOptions } = options;
  const server = await startServer({ ...testOptions, config: configFrom(args, process.env), log: (message) => process.stderr.write(`${message}\n`) });
  // As `geoapi serve` does (runtime/cli/serve.ts): keys, policy and a live snapshot swap.
  process.on('SIGHUP', () => {
    server.reloadKeys();
    server.reloadPolicy();
    void server.reloadSnapshot('SIGHUP');
  });
  process.once('SIGTERM', () => {
    process.stderr.write('SIGTERM: draining\n');
    void server.close();
  });
  process.stdout.write(`GEOAPI_TEST_READY ${JSON.stringify({ port: server.port, url: server.url, uws: server.uws, workerCode: { bundled: server.workerCode.bundled, description: server.workerCode.description }, store: server.store, threads: server.threads, quota: server.quota, metricsUrl: server.metricsUrl })}\n`);
  await server.exited;
  process.exitCode = 0;
} catch (error) {
  process.stdout.write(`GEOAPI_TEST_FAILED ${JSON.stringify((error as Error).message)}\n`);
  process.exitCode = 1;
}
