// `q` filters over lists: a contains-match of matchKey(q) on each row's matchKey'd name or native
// name. For countries, states and cities the keys are already in the snapshot, as UTF-8 bytes in
// their names prefix index (`prefix.<entity>`, the one autocomplete reads). A row's name and
// native entries are found once per snapshot and thread (an Int32Array of two per row, made by
// the first such request: ~2.5 ms for the cities) and matched as bytes: no record is decoded and
// no name folded. Before, each row's record was decoded and its names folded and kept as strings
// on first use: the first such request over the US's 16,731 cities took 40–80 ms, over every state
// 90–100 ms (in process). Regions and subregions, without a prefix index and with few rows, still
// fold their names on first use.
//
// Stable API: rowMatchesQ(store, entity, row, key) — contains-match of a matchKey'd query on the
// row's name or native name.
import { prefixSection, NAMED_ENTITIES, type NamedEntity as PrefixedEntity } from '../format/sections.js';
import { PrefixIndex } from '../indexes/prefix-index.js';
import type { Store } from '../store/types.js';
import { matchKey } from '../text/normalise.js';
import { perStore } from './per-store.js';

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

export function rowMatchesQ(store: Store, entity: NamedEntity, row: number, key: string): boolean {
  const keys = keysOf(store, entity);
  if ('index' in keys) {
    // Every string contains '' (the index leaves empty keys out).
    if (key === '') return true;
    const index = keys.index;
    const entries = (keys.entries ??= index.entriesByRow(store[entity].count));
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
