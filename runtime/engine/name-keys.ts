// `q` filters over lists: a contains-match of matchKey(q) on each row's matchKey'd name or native
// name. For countries, states and cities the keys are already in the snapshot, as UTF-8 bytes in
// their names prefix index (`prefix.<entity>`, the one autocomplete reads). A row's name and
// native entries are found once per snapshot (an Int32Array of two per row, 1.2 MiB for the
// cities of the full dataset: built by the main thread for every thread, shared.ts, else by the
// thread's preparation) and matched as bytes: no record is decoded and no name folded. Built per
// thread by its first request, the cities' table made that request 3–8 ms longer on the server
// (the US's cities with `q=an`) and took 1.2 MiB in each thread. Before that, each row's record
// was decoded and its names folded and kept as strings on first use: the first such request over
// the US's 16,731 cities took 40–80 ms, over every state 90–100 ms (in process). Regions and subregions, without a prefix index and with few rows, still
// fold their names on first use.
//
// Stable API: rowMatchesQ(store, entity, row, key) — contains-match of a matchKey'd query on the
// row's name or native name.
import { prefixSection, NAMED_ENTITIES, type NamedEntity as PrefixedEntity } from '../format/sections.js';
import { PrefixIndex } from '../indexes/prefix-index.js';
import type { Store } from '../store/types.js';
import { matchKey } from '../text/normalise.js';
import { perStore } from './per-store.js';
import { SHARED } from './shared-names.js';

export type NamedEntity = 'regions' | 'subregions' | 'countries' | 'states' | 'cities';

/** Each row's keys in the prefix index (PrefixIndex.entriesByRow: its name entry, then its native entry, -1 for none), found on first use. */
interface IndexedKeys {
  index: PrefixIndex;
  entries: Int32Array | null;
}

/** Keys folded from the records (entities without a prefix index). */
interface FoldedKeys {
  name: (string | undefined)[];
  native: string[];
}

const keysByEntity = perStore(() => new Map<NamedEntity, IndexedKeys | FoldedKeys>());

function isPrefixed(entity: NamedEntity): entity is PrefixedEntity {
  return (NAMED_ENTITIES as readonly string[]).includes(entity);
}

function keysOf(store: Store, entity: NamedEntity): IndexedKeys | FoldedKeys {
  const all = keysByEntity.get(store);
  let keys = all.get(entity);
  if (!keys) {
    if (isPrefixed(entity)) {
      const section = prefixSection(entity);
      keys = { index: PrefixIndex.from(store.section(section), 0, section), entries: null };
    } else {
      const count = store[entity].count;
      keys = { name: new Array<string | undefined>(count), native: new Array<string>(count) };
    }
    all.set(entity, keys);
  }
  return keys;
}

/** The names prefix index of countries, states or cities (matchKey of each row's name and native name), opened once per snapshot. */
export function namesIndexOf(store: Store, entity: PrefixedEntity): PrefixIndex {
  return (keysOf(store, entity) as IndexedKeys).index;
}

/** The entity's row-to-entries table: the main thread's (SHARED.nameEntries), else made here. */
function entriesOf(store: Store, entity: PrefixedEntity, index: PrefixIndex): Int32Array {
  const count = store[entity].count;
  const shared = store.derived(SHARED.nameEntries(entity));
  if (shared === null) return index.entriesByRow(count);
  if (shared.byteLength !== 8 * count) throw new Error(`${SHARED.nameEntries(entity)}: expected ${8 * count} bytes (2 entries of ${count} rows), found ${shared.byteLength}`);
  return new Int32Array(shared);
}

/** The entity's row-to-entries table in a SharedArrayBuffer, for the main thread to build once for every thread (shared.ts). */
export function sharedNameEntries(store: Store, entity: PrefixedEntity): SharedArrayBuffer {
  const entries = namesIndexOf(store, entity).entriesByRow(store[entity].count);
  const shared = new SharedArrayBuffer(entries.byteLength);
  new Int32Array(shared).set(entries);
  return shared;
}

/** The entity's row-to-entries table, adopted (or made) ahead of the first `q` (a preparation step). */
export function prepareNameKeys(store: Store, entity: PrefixedEntity): void {
  const keys = keysOf(store, entity) as IndexedKeys;
  keys.entries ??= entriesOf(store, entity, keys.index);
}

export function rowMatchesQ(store: Store, entity: NamedEntity, row: number, key: string): boolean {
  const keys = keysOf(store, entity);
  if ('index' in keys) {
    // Every string contains '' (the index leaves empty keys out).
    if (key === '') return true;
    const index = keys.index;
    const entries = (keys.entries ??= entriesOf(store, entity as PrefixedEntity, index));
    const name = entries[2 * row]!;
    if (name >= 0 && index.keyContains(name, key)) return true;
    const native = entries[2 * row + 1]!;
    return native >= 0 && index.keyContains(native, key);
  }
  let name = keys.name[row];
  if (name === undefined) {
    const record = store[entity].record(row) as { name: string; native?: string | null };
    name = matchKey(record.name);
    keys.name[row] = name;
    keys.native[row] = record.native ? matchKey(record.native) : '';
  }
  return name.includes(key) || (keys.native[row] !== '' && keys.native[row]!.includes(key));
}
