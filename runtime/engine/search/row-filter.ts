// Which rows a search may return, as half-open row ranges: snapshot row orders make a country's
// cities, a state's cities and a country's states contiguous (runtime/store/types.ts), so the
// country and state filters are ranges and the trigram search can be cut to them.
import type { Store } from '../../store/types.js';
import { countryRowByIso2 } from '../countries.js';
import { stateRowsInCountry } from '../states.js';
import type { SearchEntity } from './context.js';

const everyRow = new Map<number, RowRanges>();

export class RowRanges {
  /** [start0, end0, start1, end1, …], ascending, non-overlapping, no empty range. */
  private readonly bounds: Int32Array;
  /** True when every row of the entity is allowed (no filter): callers skip has(). */
  readonly isAll: boolean;

  constructor(ranges: readonly (readonly [number, number])[], isAll = false) {
    const sorted = ranges.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
    this.bounds = Int32Array.from(sorted.flat());
    this.isAll = isAll;
  }

  static all(rowCount: number): RowRanges {
    // Immutable, so one per row count serves every request.
    let all = everyRow.get(rowCount);
    if (!all) everyRow.set(rowCount, (all = new RowRanges([[0, rowCount]], true)));
    return all;
  }

  static none(): RowRanges {
    return new RowRanges([]);
  }

  get isEmpty(): boolean {
    return this.bounds.length === 0;
  }

  /** True when the allowed rows are one range (= span): a search cut to the span needs no has(). */
  get isOneRange(): boolean {
    return this.bounds.length === 2;
  }

  /** The smallest range holding every allowed row ([0, 0) when none). */
  get span(): [number, number] {
    const b = this.bounds;
    return b.length === 0 ? [0, 0] : [b[0]!, b[b.length - 1]!];
  }

  has(row: number): boolean {
    const b = this.bounds;
    // One range in the common case; a few when a state code names several states.
    for (let i = 0; i < b.length; i += 2) {
      if (row < b[i]!) return false;
      if (row < b[i + 1]!) return true;
    }
    return false;
  }
}

/**
 * Rows of `entity` the country (alpha-2) and state (code within that country) filters allow.
 * An unknown country or state allows no row: the search answers an empty list.
 */
export function filterRows(store: Store, entity: SearchEntity, country: string | null, state: string | null): RowRanges {
  if (country === null) return RowRanges.all(store[entity].count);
  const countryRow = countryRowByIso2(store, country);
  if (countryRow < 0) return RowRanges.none();
  const { relations } = store;
  if (entity === 'states') return new RowRanges([[relations.countryStates.start[countryRow]!, relations.countryStates.end[countryRow]!]]);
  if (entity !== 'cities') return RowRanges.none(); // type=country takes no country filter (refused before)
  if (state === null) return new RowRanges([[relations.countryCities.start[countryRow]!, relations.countryCities.end[countryRow]!]]);
  const { start, end } = relations.stateCities;
  return new RowRanges(stateRowsInCountry(store, countryRow, state).map((stateRow) => [start[stateRow]!, end[stateRow]!] as [number, number]));
}
