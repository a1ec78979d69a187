// The snapshot manifest (manifest.json): what was built, from what, and each section's bytes.
import type { EntityName } from './model.js';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'geoapi-snapshot';

export interface SectionEntry {
  /** File name inside the snapshot directory. */
  file: string;
  /** Size of the whole file (header + payload). */
  bytes: number;
  /** SHA-256 of the whole file, hex. */
  sha256: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  formatVersion: number;
  /** Short content hash of the normalised dataset (also served as X-GEOAPI-Data-Version). */
  dataVersion: string;
  /** SHA-256 of the normalised dataset, hex. */
  datasetHash: string;
  sourceRelease: string;
  /** ISO time; reproducible: SOURCE_DATE_EPOCH, else the newest source file's mtime. */
  builtAt: string;
  recordCounts: Record<EntityName, number>;
  sections: Record<string, SectionEntry>;
}
