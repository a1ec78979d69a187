// State resolution inside a country (siso = the state's iso2 in the country's local system,
// case-insensitive) and ISO 3166-2 lookups.
import { rowValuesOf } from '../store/row-values.js';
import type { Store } from '../store/types.js';
import { perStore } from './per-store.js';

/**
 * A text field of every state row, read alone from the row bytes (RowValues) when the table has
 * them: decoding whole records for one field made the lookups below cost ~50 ms to build on the
 * full dataset, in one preparation step that held its thread that long during a live swap.
 */
function stateText(store: Store, name: 'iso2' | 'iso3166_2' | 'country_code'): (row: number) => string | null {
  const rows = store.states.rowBytes;
  const values = rows === null ? null : rowValuesOf(rows);
  const field = values?.field(name);
  if (values === null || field === undefined) return (row) => store.states.record(row)[name];
  return (row) => values.value(row, field) as string | null;
}

const localCodes = perStore((store) => {
  // `${countryRow}:${ISO2}` → the country's state rows with that code, ascending (rows are in name
  // order within a country). Usually one; a few countries reuse a code.
  const byLocalCode = new Map<string, number[]>();
  const parents = store.relations.stateCountryRow;
  const iso2Of = stateText(store, 'iso2');
  for (let row = 0; row < store.states.count; row++) {
    const iso2 = iso2Of(row);
    if (!iso2) continue;
    push(byLocalCode, `${parents[row]}:${iso2.toUpperCase()}`, row);
  }
  return byLocalCode;
});

const NO_ROWS: readonly number[] = Object.freeze([]);

/**
 * Rows of the states in the country at `countryRow` whose code (`iso2`, what cities carry as
 * `state_code`) equals `code` case-insensitively, ascending; empty when none.
 */
export function stateRowsInCountry(store: Store, countryRow: number, code: string): readonly number[] {
  if (countryRow < 0) return NO_ROWS;
  return localCodes.get(store).get(`${countryRow}:${code.trim().toUpperCase()}`) ?? NO_ROWS;
}

/** Row of the state with local code `siso` in the country at `countryRow` (the first by name when several share it), or -1. */
export function stateRowInCountry(store: Store, countryRow: number, siso: string): number {
  return stateRowsInCountry(store, countryRow, siso)[0] ?? -1;
}

const iso3166 = perStore((store) => {
  // Canonical codes first; the legacy fallback `CC-ISO2` only for rows whose iso3166_2 is null.
  const canonical = new Map<string, number[]>();
  const legacy = new Map<string, number[]>();
  const iso3166Of = stateText(store, 'iso3166_2');
  const iso2Of = stateText(store, 'iso2');
  const countryCodeOf = stateText(store, 'country_code');
  for (let row = 0; row < store.states.count; row++) {
    const iso3166 = iso3166Of(row);
    if (iso3166) {
      push(canonical, iso3166.toUpperCase(), row);
      continue;
    }
    const iso2 = iso2Of(row);
    const countryCode = countryCodeOf(row);
    if (iso2 && countryCode) push(legacy, `${countryCode}-${iso2}`.toUpperCase(), row);
  }
  return { canonical, legacy };
});

function push(map: Map<string, number[]>, key: string, row: number): void {
  const rows = map.get(key);
  if (rows) rows.push(row);
  else map.set(key, [row]);
}

/**
 * Row of the state with ISO 3166-2 code `code` (upper case, `US-CA`), or -1. iso3166_2 wins over the
 * legacy iso2; among several rows (a code held by an overseas territory and by its mother country,
 * e.g. FR-BL) the row whose country matches the code's prefix wins, then the lowest id.
 */
export function stateRowByIso3166(store: Store, code: string): number {
  const { canonical, legacy } = iso3166.get(store);
  const prefix = code.slice(0, 2);
  for (const rows of [canonical.get(code), legacy.get(code)]) {
    if (!rows || rows.length === 0) continue;
    let best = -1;
    let bestRank = Infinity;
    for (const row of rows) {
      const record = store.states.record(row);
      const rank = (record.country_code.toUpperCase() === prefix ? 0 : 1) * 1e12 + record.id;
      if (rank < bestRank) {
        bestRank = rank;
        best = row;
      }
    }
    return best;
  }
  return -1;
}
