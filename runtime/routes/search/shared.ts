// Pieces the three search operations share: the response cache, the row ranges of the
// country/state filters, and building the Reply.
import { BodyCache } from '../../engine/search/body-cache.js';
import type { SearchContext, SearchEntity } from '../../engine/search/context.js';
import { RowRanges } from '../../engine/search/row-filter.js';
import type { Store } from '../../store/types.js';
import type { Reply } from '../types.js';

// One bounded LRU per operation per Store (a reloaded snapshot starts with empty caches).
const caches = new WeakMap<Store, Map<string, BodyCache>>();

export function searchCache(store: Store, operation: string): BodyCache {
  let byOperation = caches.get(store);
  if (!byOperation) {
    byOperation = new Map();
    caches.set(store, byOperation);
  }
  let cache = byOperation.get(operation);
  if (!cache) {
    cache = new BodyCache();
    byOperation.set(operation, cache);
  }
  return cache;
}

/** A cache key from already validated, normalised values (order fixed by the caller). */
export function cacheKey(parts: readonly (string | number | boolean | null)[]): string {
  // JSON keeps parts unambiguous whatever characters q holds.
  return JSON.stringify(parts);
}

export function searchReply(body: string, cacheHit: boolean): Reply {
  return { status: 200, body, headers: { 'X-Cache': cacheHit ? 'HIT' : 'MISS' } };
}

/**
 * Rows of `entity` the country (alpha-2) and state (code within that country) filters allow.
 * An unknown country or state allows no row: the search answers an empty list.
 */
export function filterRows(context: SearchContext, entity: SearchEntity, country: string | null, state: string | null): RowRanges {
  const store = context.store;
  if (country === null) return RowRanges.all(store[entity].count);
  const countryRow = context.countryRow(country);
  if (countryRow < 0) return RowRanges.none();
  const { relations } = store;
  if (entity === 'states') return new RowRanges([[relations.countryStates.start[countryRow]!, relations.countryStates.end[countryRow]!]]);
  if (entity !== 'cities') return RowRanges.none(); // type=country takes no country filter (refused before)
  if (state === null) return new RowRanges([[relations.countryCities.start[countryRow]!, relations.countryCities.end[countryRow]!]]);
  const { start, end } = relations.stateCities;
  return new RowRanges(context.stateRows(countryRow, state).map((stateRow) => [start[stateRow]!, end[stateRow]!] as [number, number]));
}
