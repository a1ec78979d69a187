// Sorted orders and `q` selections of list ranges (`sort` and `q` on the country, state and city
// lists), kept per snapshot and thread. Each page of a sorted or filtered list (limit/offset) is a
// request of its own, whose rows are selected for the total its headers carry, even when the
// response cache holds its body: paging through the US's 16,731 cities by population, 100 at a
// time, sorted them all on every page (~4–8 ms a page), and each page of `q=an` over them (or the
// same request again, a cache hit) matched all their names again (~1.5 ms in process, ~3 ms on the
// server). A request without `q` sorts the whole range once and keeps its order; the next pages
// read it, and so do requests with `q` and the same sort when they select (a stable sort then a
// filter gives the filter then the sort: ties keep the range's order either way). A request with
// `q` keeps what it selected, the range filtered and sorted, under its range, sort and q: its
// next pages and repeats read that (routes/reference/common.ts rowListReply).
//
// Bounded: at most MAX_KEPT_ROWS rows (4 bytes each) per thread, the least recently used order
// dropped first; an order longer than that is not kept.
import type { Store } from '../store/types.js';
import { perStore } from './per-store.js';

/** Rows of kept orders per thread: 1 MiB (the US's cities, the largest range, are 16,731 rows). */
export const MAX_KEPT_ROWS = 1 << 18;

interface Kept {
  /** By key, least recently used first (a Map keeps insertion order). */
  orders: Map<string, Int32Array>;
  rows: number;
}

const keptOrders = perStore((): Kept => ({ orders: new Map(), rows: 0 }));

/** The order kept under `key` (it becomes the most recently used), or undefined. `key` names the range and the sort keys. */
export function keptSortedRows(store: Store, key: string): Int32Array | undefined {
  const kept = keptOrders.get(store);
  const order = kept.orders.get(key);
  if (order !== undefined) {
    kept.orders.delete(key);
    kept.orders.set(key, order);
  }
  return order;
}

/** The order kept under `key`, else `sort()`'s, kept when it fits. */
export function sortedRows(store: Store, key: string, sort: () => Int32Array): Int32Array {
  const held = keptSortedRows(store, key);
  if (held !== undefined) return held;
  const kept = keptOrders.get(store);
  const order = sort();
  if (order.length > MAX_KEPT_ROWS) return order;
  for (const [oldest, dropped] of kept.orders) {
    if (kept.rows + order.length <= MAX_KEPT_ROWS) break;
    kept.orders.delete(oldest);
    kept.rows -= dropped.length;
  }
  kept.orders.set(key, order);
  kept.rows += order.length;
  return order;
}
