// State resolution inside a country (siso = the state's iso2 in the country's local system,
// case-insensitive) and ISO 3166-2 lookups.
import type { Store } from '../store/types.js';
import { perStore } from './per-store.js';

const localCodes = perStore((store) => {
  // `${countryRow}:${ISO2}` → the country's state rows with that code, ascending (rows are in name
  // order within a country). Usually one; a few countries reuse a code.
  const byLocalCode = new Map<string, number[]>();
  const parents = store.relations.stateCountryRow;
  for (let row = 0; row < store.states.count; row++) {
    const iso2 = store.states.record(row).iso2;
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
  for (let row = 0; row < store.states.count; row++) {
    const record = store.states.record(row);
    if (record.iso3166_2) push(canonical, record.iso3166_2.toUpperCase(), row);
    else if (record.iso2 && record.country_code) push(legacy, `${record.country_code}-${record.iso2}`.toUpperCase(), row);
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
