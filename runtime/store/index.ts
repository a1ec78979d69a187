// Snapshot store: load bytes (main thread), open a Store (any thread).
export { loadSnapshotBytes, loadSnapshotBytesAsync, readManifest, type SnapshotBytes } from './load.js';
export { openStore } from './open.js';
export { REQUIRED_SECTIONS, missingSections } from '../format/required-sections.js';
export { verifySnapshot, type SectionVerdict, type VerifyReport } from './verify.js';
export type { EntityTable, RangesByParent, Relations, Store } from './types.js';

import { loadSnapshotBytes } from './load.js';
import { openStore } from './open.js';
import type { Store } from './types.js';

/** Loads and opens a snapshot directory in one step. */
export function loadStore(dir: string): Store {
  return openStore(loadSnapshotBytes(dir));
}
