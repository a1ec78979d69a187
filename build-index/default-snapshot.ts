// Makes sure the default snapshot (built from the installed @countrystatecity/countries package)
// exists and matches this version's format and the installed package; rebuilds it otherwise.
// Used by `npm start`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FILE, type Manifest } from '../runtime/format/manifest.js';
import { SNAPSHOT_FORMAT_VERSION, SnapshotFormatError } from '../runtime/format/section.js';
import { installedPackageDir, packageRelease } from './adapters/npm-package.js';
import { buildSnapshot, type BuildResult } from './build.js';
import { BuildError } from './diagnostics.js';
import { geoNamesRelease } from './enrich/geonames.js';
import { PROMINENCE_SECTION } from '../runtime/format/sections.js';
import { missingSections } from '../runtime/format/required-sections.js';

export interface DefaultSnapshot {
  dir: string;
  built: boolean;
  /** Why it was (re)built, when it was. */
  reason?: string;
  result?: BuildResult;
}

/** Why the snapshot in `dir` must be rebuilt, or null when it is current. */
export function staleReason(dir: string, expectedRelease: string): string | null {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) return 'no snapshot yet';
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as Partial<Manifest>;
  } catch {
    return 'unreadable manifest.json';
  }
  if (manifest.formatVersion !== SNAPSHOT_FORMAT_VERSION) return `format version ${manifest.formatVersion} ≠ ${SNAPSHOT_FORMAT_VERSION}`;
  if (manifest.sourceRelease !== expectedRelease) return `source ${manifest.sourceRelease} ≠ installed ${expectedRelease}`;
  // The default snapshot is enriched whenever it can be (a snapshot from before enrichment is stale).
  if (geoNamesRelease() !== null && !(PROMINENCE_SECTION in (manifest.sections ?? {}))) return `no ${PROMINENCE_SECTION} section (GeoNames enrichment)`;
  // A snapshot of this format from before a section was added (e.g. trigram-ua.*) is stale too.
  const missing = missingSections(Object.keys(manifest.sections ?? {}));
  if (missing.length > 0) return `no ${missing.join(', ')} section${missing.length === 1 ? '' : 's'}`;
  for (const entry of Object.values(manifest.sections ?? {})) {
    if (!existsSync(join(dir, entry.file))) return `missing ${entry.file}`;
  }
  return null;
}

export async function ensureDefaultSnapshot(dir = 'data/snapshots/default'): Promise<DefaultSnapshot> {
  const packageDir = installedPackageDir();
  if (!packageDir) throw new BuildError('the default dataset package @countrystatecity/countries is not installed (run npm install)');
  const release = packageRelease(packageDir) ?? 'unknown';
  const reason = staleReason(dir, release);
  if (reason === null) return { dir, built: false };
  // The snapshot being replaced feeds the change log when it is readable in this format.
  const previous = reason.startsWith('source ') || (reason.startsWith('no ') && reason !== 'no snapshot yet') ? dir : undefined;
  let result: BuildResult;
  try {
    result = buildSnapshot({ source: packageDir, out: dir, ...(previous !== undefined ? { previous } : {}) });
  } catch (err) {
    // A damaged previous snapshot costs the history, never the start.
    if (previous === undefined || !(err instanceof SnapshotFormatError)) throw err;
    console.warn(`geoapi: previous snapshot unreadable, change history starts over: ${err.message}`);
    result = buildSnapshot({ source: packageDir, out: dir });
  }
  return { dir, built: true, reason, result };
}
