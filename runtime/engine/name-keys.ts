// matchKey() of each row's name and native name, computed on first use and kept per snapshot, so
// `q` filters over large lists (16k US cities) fold each name once, not once per request.
//
// Stable API: rowMatchesQ(store, entity, row, key) — contains-match of a matchKey'd query on the
// row's name or native name.
import type { Store } from '../store/types.js';
import { matchKey } from '../text/normalise.js';
import { perStore } from './per-store.js';

export type NamedEntity = 'regions' | 'subregions' | 'countries' | 'states' | 'cities';

interface Keys {
  name: (string | undefined)[];
  native: string[];
}

const keysByEntity = perStore(() => new Map<NamedEntity, Keys>());

function keysOf(store: Store, entity: NamedEntity): Keys {
  const all = keysByEntity.get(store);
  let keys = all.get(entity);
  if (!keys) {
    keys = { name: new Array<string | undefined>(store[entity].count), native: new Array<string>(store[entity].count) };
    all.set(entity, keys);
  }
  return keys;
}

export function rowMatchesQ(store: Store, entity: NamedEntity, row: number, key: string): boolean {
  const keys = keysOf(store, entity);
  let name = keys.name[row];
  if (name === undefined) {
    const record = store[entity].record(row) as { name: string; native?: string | null };
    name = matchKey(record.name);
    keys.name[row] = name;
    keys.native[row] = record.native ? matchKey(record.native) : '';
  }
  return name.includes(key) || (keys.native[row] !== '' && keys.native[row]!.includes(key));
}
