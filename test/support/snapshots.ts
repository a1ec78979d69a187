// Snapshots for tests. The fixture dataset is built once per test process; the full
// dataset (../shared/data/csc) once per machine into /tmp/geoapi-test-full-snapshot/<stamp>, shared
// by every test file and run: <stamp> hashes the source files' names, sizes and mtimes and the
// compiled build-index, runtime/format and runtime/indexes code, so a changed dataset, format or
// builder gets a fresh build (a manifest's dataVersion is only known after building, so it cannot
// be the key). A missing full dataset skips those tests locally and fails them when CI=true.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSnapshot } from '../../build-index/build.js';
import { loadStore } from '../../runtime/store/index.js';
import type { Store } from '../../runtime/store/types.js';
import { fixtureSource, fullDatasetPresent, fullSource, repoRoot } from './paths.js';

export { fixtureSource, fullDatasetPresent, fullDatasetSkip, fullSource } from './paths.js';
const FULL_CACHE_ROOT = join(tmpdir(), 'geoapi-test-full-snapshot');

let fixture: { dir: string; store: Store } | null = null;

/** The fixture snapshot (built on first use in this process). */
export function fixtureSnapshot(): { dir: string; store: Store } {
  if (!fixture) {
    const dir = mkdtempSync(join(tmpdir(), 'geoapi-fixture-'));
    const out = join(dir, 'snapshot');
    buildSnapshot({ source: fixtureSource, out });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    fixture = { dir: out, store: loadStore(out) };
  }
  return fixture;
}

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listFiles(path, out);
    else out.push(path);
  }
  return out;
}

function stamp(): string {
  const hash = createHash('sha256');
  for (const file of listFiles(join(fullSource, 'contributions'))) {
    const s = statSync(file);
    hash.update(`${file}\0${s.size}\0${s.mtimeMs}\n`);
  }
  for (const file of listFiles(join(repoRoot, 'dist/build-index')).filter((f) => f.endsWith('.js'))) hash.update(readFileSync(file));
  // The index builders (TrigramIndexBuilder and the others) live beside their readers.
  for (const dir of ['dist/runtime/format', 'dist/runtime/indexes']) {
    for (const file of listFiles(join(repoRoot, dir)).filter((f) => f.endsWith('.js'))) hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

let full: { dir: string; store: Store } | null = null;

/** The full-dataset snapshot; throws (test failure) when the dataset is absent. */
export function fullSnapshot(): { dir: string; store: Store } {
  if (full) return full;
  if (!fullDatasetPresent()) throw new Error(`full dataset expected at ${fullSource}, found nothing (CI=${process.env.CI ?? ''})`);
  const dir = join(FULL_CACHE_ROOT, stamp());
  if (!existsSync(join(dir, 'manifest.json'))) {
    mkdirSync(FULL_CACHE_ROOT, { recursive: true });
    const work = mkdtempSync(join(FULL_CACHE_ROOT, 'building-'));
    try {
      buildSnapshot({ source: fullSource, out: join(work, 'snapshot') });
      try {
        renameSync(join(work, 'snapshot'), dir);
      } catch (err) {
        // Another test process finished the same build first: use theirs.
        if (!existsSync(join(dir, 'manifest.json'))) throw err;
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  full = { dir, store: loadStore(dir) };
  return full;
}

/** A copy of `snapshot` at `out` with one byte of a section's payload flipped: loading it fails that section's CRC check. */
export function corruptCopy(snapshot: string, out: string, section = 'records.cities'): void {
  cpSync(snapshot, out, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { sections: Record<string, { file: string }> };
  const damaged = join(out, manifest.sections[section]!.file);
  const bytes = readFileSync(damaged);
  bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
  writeFileSync(damaged, bytes);
}
