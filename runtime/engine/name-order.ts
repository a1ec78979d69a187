// Each row's rank in name order (`order.<entity>`, runtime/format/name-order.ts), opened once per
// Store. Without ranks — regions and subregions, a snapshot built before them, or a malformed
// section (reported by checkNameRanks, a preparation step) — name sorts fold and compare the
// names themselves: the same order, at a higher cost.
import { openNameOrder } from '../format/name-order.js';
import { nameOrderSection, NAMED_ENTITIES, type NamedEntity as RankedEntity } from '../format/sections.js';
import type { Store } from '../store/types.js';
import type { NamedEntity } from './name-keys.js';
import { perStore } from './per-store.js';

const openedByEntity = perStore(() => new Map<NamedEntity, Int32Array | null | Error>());

const isRanked = (entity: NamedEntity): entity is RankedEntity => (NAMED_ENTITIES as readonly string[]).includes(entity);

function opened(store: Store, entity: NamedEntity): Int32Array | null | Error {
  const all = openedByEntity.get(store);
  let ranks = all.get(entity);
  if (ranks === undefined) {
    const section = isRanked(entity) ? nameOrderSection(entity) : null;
    try {
      ranks = section !== null && store.hasSection(section) ? openNameOrder(store.section(section), store[entity].count, section) : null;
    } catch (error) {
      ranks = error instanceof Error ? error : new Error(String(error));
    }
    all.set(entity, ranks);
  }
  return ranks;
}

/** The ranks of `entity`'s rows in name order, or null when it has none (see above). */
export function nameRanks(store: Store, entity: NamedEntity): Int32Array | null {
  const ranks = opened(store, entity);
  return ranks instanceof Int32Array ? ranks : null;
}

/** Throws what is wrong with `entity`'s `order.<entity>` section, if anything. */
export function checkNameRanks(store: Store, entity: NamedEntity): void {
  const ranks = opened(store, entity);
  if (ranks instanceof Error) throw ranks;
}
