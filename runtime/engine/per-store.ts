// Lazily built per-snapshot lookup tables (iso code maps, name keys …), dropped with the Store.
import type { Store } from '../store/types.js';

export interface PerStore<T> {
  get(store: Store): T;
}

export function perStore<T>(build: (store: Store) => T): PerStore<T> {
  const built = new WeakMap<Store, T>();
  return {
    get(store) {
      let value = built.get(store);
      if (value === undefined) {
        value = build(store);
        built.set(store, value);
      }
      return value;
    },
  };
}
