// Nearby's filters (country/state rows, kind, min_population) as a row predicate for the KD-tree
// walk, and the same constraints as bounds on the tree's nodes (GeoPrune), so the walk skips the
// parts of the tree the predicate would reject whole.
import type { GeoPrune } from '../../indexes/geo-index.js';
import type { SearchContext, SearchEntity } from './context.js';
import type { RowRanges } from './row-filter.js';

/**
 * The row predicate of nearby's filters (the allowed rows, a kind code or -1, a least population
 * or 0) and the same constraints as tree-node bounds (GeoPrune); both null when nothing filters.
 */
export function nearbyFilter(
  context: SearchContext,
  entity: SearchEntity,
  rows: RowRanges,
  kindCode: number,
  minPopulation: number,
): { filter: ((row: number) => boolean) | null; prune: GeoPrune | null } {
  if (rows.isAll && kindCode < 0 && minPopulation === 0) return { filter: null, prune: null };
  const kinds = kindCode < 0 ? null : context.cityKinds();
  const population = context.indexes(entity).population;
  const allRows = rows.isAll;
  const filter = (row: number): boolean =>
    (allRows || rows.has(row)) && (kinds === null || kinds[row] === kindCode) && (minPopulation === 0 || population[row]! >= minPopulation);
  const [rowStart, rowEnd] = rows.span;
  const prune: GeoPrune = {
    rowStart,
    rowEnd,
    maxima: minPopulation === 0 ? null : context.nodePopulationMaxima(entity),
    minValue: minPopulation,
    masks: kinds === null ? null : context.nodeCityKindMasks(),
    mask: kinds === null ? 0 : 1 << kindCode,
  };
  return { filter, prune };
}
