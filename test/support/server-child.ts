// Child process of test/support/server.ts: runs startServer with the JSON options in argv[2], prints
// one `GEOAPI_TEST_READY <json>` line when listening (or `GEOAPI_TEST_FAILED <message>`), drains on
// SIGTERM and exits 0 once every worker is gone.
import { startServer, type ServerOptions } from '../../runtime/http/server.js';

const options = JSON.parse(process.argv[2] ?? '{}') as ServerOptions;

try {
  const server = await startServer({ ...options, log: (message) => process.stderr.write(`${message}\n`) });
  process.once('SIGTERM', () => {
    process.stderr.write('SIGTERM: draining\n');
    void server.close();
  });
  process.stdout.write(`GEOAPI_TEST_READY ${JSON.stringify({ port: server.port, url: server.url, uws: server.uws, store: server.store, threads: server.threads, quota: server.quota })}\n`);
  await server.exited;
  process.exitCode = 0;
} catch (error) {
  process.stdout.write(`GEOAPI_TEST_FAILED ${JSON.stringify((error as Error).message)}\n`);
  process.exitCode = 1;
}
