// A snapshot that does not load at start: the first worker thread, started while it is read (it
// loads its code meanwhile), ends with the main thread, which exits 1 naming the section; the
// other threads start only once the first listens. The CLI starts the read before it loads the
// server's code (runtime/cli/read-ahead.ts); what the server checks before the snapshot is still
// reported first. A worker thread that fails while starting fails the start too, its stack logged
// as an error, also when it is a later one and the first already listens.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from '../../build-index/build.js';
import { addKey, newKeyFile, writeKeyFile } from '../../runtime/access/keys.js';
import { fixtureSource } from '../support/paths.js';
import { startTestServer } from '../support/server.js';
import { corruptCopy } from '../support/snapshots.js';

const CLI = fileURLToPath(new URL('../../runtime/cli/main.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'geoapi-start-refused-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The fixture snapshot, and a copy with one section corrupted, each built once for the tests below. */
let good: string | null = null;
function goodSnapshot(): string {
  if (good === null) {
    good = join(work, 'good');
    buildSnapshot({ source: fixtureSource, out: good });
  }
  return good;
}
let corrupt: string | null = null;
function corruptSnapshot(): string {
  if (corrupt === null) {
    corrupt = join(work, 'corrupt');
    corruptCopy(goodSnapshot(), corrupt);
  }
  return corrupt;
}

/** `geoapi serve` on the corrupt snapshot with `keysFile`, run to its end. */
function serveCorrupt(keysFile: string, threads: number) {
  return spawnSync(process.execPath, [CLI, 'serve', '--snapshot', corruptSnapshot(), '--keys', keysFile, '--port', '0', '--threads', String(threads)], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, GEOAPI_QUOTA: 'off' },
  });
}

describe('serve with a snapshot that does not load', () => {
  it('exits 1 with the loader’s message, its worker threads ended, nothing listening', () => {
    const keysFile = join(work, 'keys.json');
    const keys = newKeyFile();
    addKey(keys, { plan: 'business' });
    writeKeyFile(keysFile, keys);

    const run = serveCorrupt(keysFile, 2);
    assert.equal(run.signal, null, 'it exits by itself');
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /corrupt section "records\.cities": expected CRC-32 [0-9a-f]{8}, found [0-9a-f]{8}/);
    assert.doesNotMatch(run.stderr, /listening on|exited unexpectedly/);
  });

  it('names what else is wrong first, as before the snapshot was read ahead of the server code', () => {
    const run = serveCorrupt(join(work, 'no-such-keys.json'), 1);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /keys file .*no-such-keys\.json does not exist/);
    assert.doesNotMatch(run.stderr, /corrupt section|unhandled|Unhandled/);
  });
});

describe('a worker thread that fails while starting', () => {
  it('fails the start, its stack logged at level error', async () => {
    const operationsModule = fileURLToPath(new URL('./fixtures/broken-store.js', import.meta.url));
    await assert.rejects(startTestServer({ operationsModule, threads: 1 }), (error: Error) => {
      assert.match(error.message, /test server did not start: deliberate failure opening the store/);
      const events = error.message.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: string; msg: string });
      const stack = events.find((event) => event.msg.startsWith('failed while starting: Error: deliberate failure opening the store'));
      assert.ok(stack, `expected the thread's stack among the logs:\n${error.message}`);
      assert.equal(stack.level, 'error');
      assert.match(stack.msg, /\n\s+at /);
      return true;
    });
  });

  it('fails the start when a later thread fails after the first one listens', async () => {
    const operationsModule = fileURLToPath(new URL('./fixtures/broken-later-thread.js', import.meta.url));
    await assert.rejects(startTestServer({ operationsModule, snapshotDir: goodSnapshot(), threads: 2 }), (error: Error) => {
      assert.match(error.message, /test server did not start: deliberate failure opening the store in a later thread/);
      const events = error.message.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: string; msg: string; thread?: number });
      const stack = events.find((event) => event.msg.startsWith('failed while starting: Error: deliberate failure opening the store in a later thread'));
      assert.ok(stack, `expected the thread's stack among the logs:\n${error.message}`);
      assert.equal(stack.thread, 1);
      return true;
    });
  });
});
