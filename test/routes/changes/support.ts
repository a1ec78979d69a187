// Versions of a dataset for the change-feed tests: a copy of a contributions/ source with edits,
// written into a temp dir (unchanged files are symlinked, not copied: the full dataset is large).
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSnapshot, type BuildResult } from '../../../build-index/build.js';

export type Rows = Record<string, any>[];

/**
 * Copies `source` (a directory holding contributions/) to `target`: files named in `edit`
 * (paths under contributions/, e.g. `cities/US.json`) are read, passed to their edit function
 * and written; every other file is a symlink to the original.
 */
export function editedCopy(source: string, target: string, edit: Record<string, (rows: Rows) => Rows | void>): void {
  const from = join(source, 'contributions');
  const to = join(target, 'contributions');
  for (const folder of readdirSync(from)) {
    mkdirSync(join(to, folder), { recursive: true });
    for (const file of readdirSync(join(from, folder))) {
      const path = `${folder}/${file}`;
      const fn = edit[path];
      if (fn === undefined) {
        symlinkSync(join(from, path), join(to, path));
        continue;
      }
      const rows = JSON.parse(readFileSync(join(from, path), 'utf8')) as Rows;
      writeFileSync(join(to, path), JSON.stringify(fn(rows) ?? rows));
    }
  }
  for (const path of Object.keys(edit)) {
    // Files that do not exist in the source yet (a new cities/XX.json).
    try {
      readFileSync(join(to, path));
    } catch {
      writeFileSync(join(to, path), JSON.stringify(edit[path]!([]) ?? []));
    }
  }
}

/** A plain copy (for a fixture version written by hand). */
export function copyDataset(source: string, target: string): void {
  cpSync(source, target, { recursive: true });
}

/** Builds with a fixed build time (SOURCE_DATE_EPOCH), which becomes the events' changed_at. */
export function buildAt(iso: string, source: string, out: string, previous?: string): BuildResult {
  const saved = process.env.SOURCE_DATE_EPOCH;
  process.env.SOURCE_DATE_EPOCH = String(Date.parse(iso) / 1000);
  try {
    return buildSnapshot({ source, out, ...(previous !== undefined ? { previous } : {}) });
  } finally {
    if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
    else process.env.SOURCE_DATE_EPOCH = saved;
  }
}
