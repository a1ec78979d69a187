// Pieces the three search operations share: the response cache and building the Reply.
import { BodyCache } from '../../engine/search/body-cache.js';
import { perStore } from '../../engine/per-store.js';
import type { Store } from '../../store/types.js';
import type { Reply } from '../types.js';

// One bounded LRU per operation per Store (a reloaded snapshot starts with empty caches).
const caches = perStore(() => new Map<string, BodyCache>());

export function searchCache(store: Store, operation: string): BodyCache {
  const byOperation = caches.get(store);
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

export function searchReply(body: string | Uint8Array, cacheHit: boolean): Reply {
  return { status: 200, body, headers: { 'X-Cache': cacheHit ? 'HIT' : 'MISS' } };
}
