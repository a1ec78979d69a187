// Starts reading the snapshot a command will serve before the server's code loads. Loading it
// (~150–250 ms of modules for `serve` on the report's 2-core machine) keeps one core busy; the
// read runs on libuv's threadpool meanwhile, on the other, instead of after it.
import { loadSnapshotBytesAsync, type SnapshotBytes } from '../store/load.js';

export function readAhead(dir: string): Promise<SnapshotBytes> {
  const read = loadSnapshotBytesAsync(dir);
  // startServer awaits it after its own checks (uWS, policy, keys): a refused snapshot is reported
  // then, after those, as when the server reads it itself.
  read.catch(() => undefined);
  return read;
}
