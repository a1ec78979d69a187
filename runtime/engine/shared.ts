// Structures derived from a snapshot that are immutable once built and identical in every worker
// thread — trigram membership bitmaps, the trigram index of the changed docs and the codes of the
// others (name-matches.ts), autocomplete's PrefixTop, the lists' row-to-name-key tables
// (name-keys.ts), city kinds and nearby's per-node bounds (the KD-trees' population maxima, the
// cities' kind masks), postcode locality
// offsets and block filters, postcode rows grouped by filter column — built here once, in the main thread, into
// SharedArrayBuffers that go to the workers with their snapshot (at start a 'derived' message
// once they listen, Store.adoptDerived; on a swap with the bytes in snapshot-prepare,
// SnapshotBytes.derived), so they belong to their snapshot and go with it. Each worker thread
// adopts them instead of building its own copy (~20 MiB per thread on the full dataset). Built in the main thread rather than by build-index:
// no snapshot format change, existing snapshots keep working, and the bytes never sit on disk;
// the cost is a few hundred ms of the main thread per load, while the workers, which no longer
// build them, get ready sooner. Per-search scratch (mutable) stays per thread.
import { openStore } from '../store/open.js';
import type { SnapshotBytes } from '../store/load.js';
import { NAMED_ENTITIES, trigramPlainQuerySection, trigramSection } from '../format/sections.js';
import { sharedNameEntries } from './name-keys.js';
import { PostcodeEngine } from './postcodes/engine.js';
import { buildPrefixTop } from './search/autocomplete.js';
import { ENTITY_OF, SearchContext } from './search/context.js';
import { SHARED } from './shared-names.js';

/**
 * The snapshot's bytes with the structures every thread would otherwise build. When building
 * them fails, `log` says why and the bytes come back without them: each thread then builds its
 * own as before (and a request needing a broken index reports the problem itself).
 */
export function withSharedStructures(bytes: SnapshotBytes, log: (message: string) => void): SnapshotBytes {
  const derived = sharedStructures(bytes, log);
  return derived === null ? withoutDerived(bytes) : { ...bytes, derived };
}

/** withSharedStructures' structures alone (null when building them failed, which `log` says), for threads that already have the bytes. */
export function sharedStructures(bytes: SnapshotBytes, log: (message: string) => void): Record<string, SharedArrayBuffer> | null {
  try {
    return deriveStructures(bytes);
  } catch (error) {
    log(`shared structures: ${(error as Error).message}; each thread builds its own`);
    return null;
  }
}

function deriveStructures(bytes: SnapshotBytes): Record<string, SharedArrayBuffer> {
  // A private store and context: nothing here is kept once the buffers are made.
  const store = openStore(withoutDerived(bytes));
  const search = new SearchContext(store);
  const derived: Record<string, SharedArrayBuffer> = {};
  for (const entity of Object.values(ENTITY_OF)) {
    const indexes = search.indexes(entity);
    derived[SHARED.trigramLongLists(trigramSection(entity))] = indexes.trigram.sharedLongLists();
    derived[SHARED.trigramLongLists(trigramPlainQuerySection(entity))] = indexes.trigramPlainQuery.sharedLongLists();
    // Built when the private context opened the indexes (its store has none shared): taken, not built again.
    derived[SHARED.trigramChanged(entity)] = indexes.trigramChangedBytes;
    derived[SHARED.unchangedCodes(entity)] = indexes.unchangedCodes.buffer as SharedArrayBuffer;
    const top = buildPrefixTop(indexes);
    if (top !== null) derived[SHARED.prefixTop(entity)] = top.shared();
    derived[SHARED.nodePopulationMaxima(entity)] = sharedCopy(search.nodePopulationMaxima(entity));
  }
  for (const entity of NAMED_ENTITIES) derived[SHARED.nameEntries(entity)] = sharedNameEntries(store, entity);
  derived[SHARED.cityKinds] = sharedCopy(search.cityKinds());
  derived[SHARED.nodeKindMasks] = sharedCopy(search.nodeCityKindMasks());
  const postcodes = new PostcodeEngine(store);
  derived[SHARED.localityByteStarts] = postcodes.sharedLocalityByteStarts();
  derived[SHARED.localityBlocks] = postcodes.sharedLocalityBlocks();
  Object.assign(derived, postcodes.sharedRowGroups());
  return derived;
}

/** A typed array's bytes in a SharedArrayBuffer of their own. */
function sharedCopy(array: Uint8Array | Float64Array): SharedArrayBuffer {
  const shared = new SharedArrayBuffer(array.byteLength);
  new Uint8Array(shared).set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  return shared;
}

function withoutDerived(bytes: SnapshotBytes): SnapshotBytes {
  return { dir: bytes.dir, manifest: bytes.manifest, sections: bytes.sections };
}
