import assert from 'node:assert/strict';
import { openSync, closeSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { buildSnapshot } from '../../build-index/build.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { loadSnapshotBytes, loadSnapshotBytesAsync, loadStore, openStore } from '../../runtime/store/index.js';
import { fixtureDir, tempDir } from '../build-index/support.js';

let pristine: string;
let work: { dir: string; cleanup: () => void };
let copyIndex = 0;

/** A fresh copy of the fixture snapshot to damage. */
function snapshotCopy(): string {
  const out = join(work.dir, `copy-${copyIndex++}`);
  buildSnapshot({ source: fixtureDir, out });
  return out;
}

function manifestOf(dir: string): { sections: Record<string, { file: string; bytes: number }>; formatVersion: number } {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
}

function flipByte(file: string, position: number): void {
  const fd = openSync(file, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, position);
    byte[0] = byte[0]! ^ 0xff;
    writeSync(fd, byte, 0, 1, position);
  } finally {
    closeSync(fd);
  }
}

function loadError(dir: string): SnapshotFormatError {
  try {
    loadStore(dir);
  } catch (err) {
    if (err instanceof SnapshotFormatError) return err;
    throw err;
  }
  assert.fail(`expected ${dir} to be refused`);
}

before(() => {
  work = tempDir();
  pristine = join(work.dir, 'pristine');
  buildSnapshot({ source: fixtureDir, out: pristine });
});
after(() => work.cleanup());

describe('snapshot loader', () => {
  test('loads every section into its own SharedArrayBuffer', () => {
    const bytes = loadSnapshotBytes(pristine);
    const manifest = manifestOf(pristine);
    assert.deepEqual(Object.keys(bytes.sections).sort(), Object.keys(manifest.sections).sort());
    for (const [name, buffer] of Object.entries(bytes.sections)) {
      assert.ok(buffer instanceof SharedArrayBuffer, name);
      assert.equal(buffer.byteLength, manifest.sections[name]!.bytes - 64);
    }
  });

  test('refuses a corrupted byte in any section, naming the file and both CRCs', () => {
    const dir = snapshotCopy();
    for (const [name, entry] of Object.entries(manifestOf(dir).sections)) {
      const file = join(dir, entry.file);
      const position = 64 + Math.floor((entry.bytes - 64) / 2);
      flipByte(file, position);
      const err = loadError(dir);
      assert.match(err.message, new RegExp(`${entry.file.replace(/\./g, '\\.')}: corrupt section "${name}": expected CRC-32 [0-9a-f]{8}, found [0-9a-f]{8}`));
      flipByte(file, position);
    }
    assert.doesNotThrow(() => loadStore(dir));
  });

  test('reads at once (a server\'s start) the same bytes as one section after another, in chunks of any size', async () => {
    const expected = loadSnapshotBytes(pristine);
    for (const chunkBytes of [4096, 1000, 8 * 1024 * 1024]) {
      const bytes = await loadSnapshotBytesAsync(pristine, chunkBytes);
      assert.deepEqual(bytes.manifest, expected.manifest);
      assert.deepEqual(Object.keys(bytes.sections), Object.keys(expected.sections));
      for (const [name, buffer] of Object.entries(bytes.sections)) {
        assert.ok(buffer instanceof SharedArrayBuffer, name);
        assert.ok(Buffer.from(buffer).equals(Buffer.from(expected.sections[name]!)), `${name} in chunks of ${chunkBytes}`);
      }
    }
  });

  test('reading at once, refuses a corrupted byte in any chunk of any section, naming the file and both CRCs', async () => {
    const dir = snapshotCopy();
    for (const [name, entry] of Object.entries(manifestOf(dir).sections)) {
      const file = join(dir, entry.file);
      // The last payload byte: in the last chunk, after the CRC has run through the others.
      const position = entry.bytes - 1;
      flipByte(file, position);
      await assert.rejects(loadSnapshotBytesAsync(dir, 4096), (err: Error) => {
        assert.ok(err instanceof SnapshotFormatError);
        assert.match(err.message, new RegExp(`${entry.file.replace(/\./g, '\\.')}: corrupt section "${name}": expected CRC-32 [0-9a-f]{8}, found [0-9a-f]{8}`));
        return true;
      });
      flipByte(file, position);
    }
    await loadSnapshotBytesAsync(dir, 4096);
  });

  test('reading at once, names the first corrupt section in manifest order and leaves no file open', async () => {
    const dir = snapshotCopy();
    const entries = Object.entries(manifestOf(dir).sections);
    for (const [, entry] of entries) flipByte(join(dir, entry.file), entry.bytes - 1);
    const openBefore = readdirSync('/proc/self/fd').length;
    await assert.rejects(loadSnapshotBytesAsync(dir, 4096), new RegExp(`corrupt section "${entries[0]![0].replace(/\./g, '\\.')}"`));
    assert.equal(readdirSync('/proc/self/fd').length, openBefore);
  });

  test('refuses a damaged header', () => {
    const dir = snapshotCopy();
    const file = join(dir, manifestOf(dir).sections['records.cities']!.file);
    flipByte(file, 0);
    assert.match(loadError(dir).message, /records\.cities\.bin: not a geoapi section: expected magic "GEOAPISN"/);
  });

  test('refuses a truncated section file, naming expected and found sizes', () => {
    const dir = snapshotCopy();
    const entry = manifestOf(dir).sections['relations']!;
    truncateSync(join(dir, entry.file), entry.bytes - 10);
    assert.match(loadError(dir).message, new RegExp(`relations\\.bin: truncated section "relations": expected ${entry.bytes} bytes \\(manifest\\.json\\), found ${entry.bytes - 10}`));
  });

  test('refuses a snapshot of the previous format version (manifest)', () => {
    const dir = snapshotCopy();
    const manifestFile = join(dir, 'manifest.json');
    writeFileSync(manifestFile, JSON.stringify({ ...manifestOf(dir), formatVersion: 4 }));
    assert.match(loadError(dir).message, /manifest\.json: snapshot format version mismatch: expected 5, found 4/);
  });

  test('refuses a section file of another format version (header)', () => {
    const dir = snapshotCopy();
    const file = join(dir, manifestOf(dir).sections['ids.states']!.file);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from([7, 0, 0, 0]), 0, 4, 8);
    closeSync(fd);
    assert.match(loadError(dir).message, /ids\.states\.bin: snapshot format version mismatch: expected 5, found 7/);
  });

  test('refuses a missing section file', () => {
    const dir = snapshotCopy();
    rmSync(join(dir, 'records.postcodes.bin'));
    assert.match(loadError(dir).message, /records\.postcodes\.bin: missing section "records\.postcodes" \(listed in manifest\.json\)/);
  });

  test('refuses a manifest without a section the store needs', () => {
    const dir = snapshotCopy();
    const manifest = manifestOf(dir);
    delete manifest.sections['relations'];
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    assert.match(loadError(dir).message, /missing section "relations"/);
  });

  test('refuses a section file swapped for another section', () => {
    const dir = snapshotCopy();
    const { sections } = manifestOf(dir);
    writeFileSync(join(dir, sections['ids.regions']!.file), readFileSync(join(dir, sections['ids.subregions']!.file)));
    const message = loadError(dir).message;
    assert.match(message, /ids\.regions\.bin: (wrong size for section "ids\.regions"|expected section "ids\.regions", found "ids\.subregions")/);
  });

  test('says where to look when there is no snapshot', () => {
    assert.match(loadError(join(work.dir, 'nothing-here')).message, /manifest\.json: no snapshot here/);
  });

  test('snapshot bytes can be posted to a worker thread, which opens the same store', async () => {
    const bytes = loadSnapshotBytes(pristine);
    const storeModule = new URL('../../runtime/store/index.js', import.meta.url).href;
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       import(${JSON.stringify(storeModule)}).then(({ openStore }) => {
         const store = openStore(workerData);
         const shared = Object.values(workerData.sections).every((b) => b instanceof SharedArrayBuffer);
         new Uint8Array(workerData.sections['records.regions'])[0] ^= 0; // touch without changing
         parentPort.postMessage({ shared, city: store.cities.record(store.cities.rowById(15101)) });
       });`,
      { eval: true, workerData: bytes },
    );
    const reply = await new Promise<{ shared: boolean; city: unknown }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    assert.equal(reply.shared, true);
    const store = openStore(bytes);
    assert.deepEqual(reply.city, store.cities.record(store.cities.rowById(15101)));
  });
});
