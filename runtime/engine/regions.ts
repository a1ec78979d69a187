// Regions and subregions: tiny tables (6 and 22 rows upstream), scanned linearly.
import type { Store } from '../store/types.js';

/** Rows of the subregions of one region, by id (the subregion row order). */
export function subregionRowsOfRegion(store: Store, regionRow: number): number[] {
  const rows: number[] = [];
  const parents = store.relations.subregionRegionRow;
  for (let row = 0; row < store.subregions.count; row++) if (parents[row] === regionRow) rows.push(row);
  return rows;
}
