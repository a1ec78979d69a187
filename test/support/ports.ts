// A free TCP port, for the test server, CLI tests and the benches' child processes.
import { createServer, type AddressInfo } from 'node:net';

/** A port that was free a moment ago (for commands that take --port / GEOAPI_PORT). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
