// Country resolution: ciso = alpha-2, alpha-3 or the numeric internal id (`1` and `001` equal),
// letters case-insensitive. Returns rows (-1 when unknown); callers decode what they need.
// The one code → row lookup of the runtime: when two rows share a code, the first row wins.
import type { Store } from '../store/types.js';
import { perStore } from './per-store.js';

const codeIndex = perStore((store) => {
  const byIso2 = new Map<string, number>();
  const byIso3 = new Map<string, number>();
  const byNumeric = new Map<number, number>();
  for (let row = 0; row < store.countries.count; row++) {
    const record = store.countries.record(row);
    if (record.iso2 && !byIso2.has(record.iso2.toUpperCase())) byIso2.set(record.iso2.toUpperCase(), row);
    if (record.iso3 && !byIso3.has(record.iso3.toUpperCase())) byIso3.set(record.iso3.toUpperCase(), row);
    if (record.numeric_code && /^\d{1,3}$/.test(record.numeric_code)) {
      const numeric = Number(record.numeric_code);
      if (!byNumeric.has(numeric)) byNumeric.set(numeric, row);
    }
  }
  return { byIso2, byIso3, byNumeric };
});

const ALPHA2_RE = /^[A-Za-z]{2}$/;
const ALPHA3_RE = /^[A-Za-z]{3}$/;
const DIGITS_RE = /^\d{1,10}$/;

/** Row of the country named by a ciso path segment, or -1. */
export function resolveCountryRow(store: Store, ciso: string): number {
  const text = ciso.trim();
  if (ALPHA2_RE.test(text)) return countryRowByIso2(store, text);
  if (ALPHA3_RE.test(text)) return countryRowByIso3(store, text);
  if (DIGITS_RE.test(text)) return store.countries.rowById(Number(text));
  return -1;
}

export function countryRowByIso2(store: Store, iso2: string): number {
  return codeIndex.get(store).byIso2.get(iso2.toUpperCase()) ?? -1;
}

export function countryRowByIso3(store: Store, iso3: string): number {
  return codeIndex.get(store).byIso3.get(iso3.toUpperCase()) ?? -1;
}

/** By ISO 3166-1 numeric code (`4`, `04`, `004` equal). */
export function countryRowByNumericCode(store: Store, numeric: number): number {
  return codeIndex.get(store).byNumeric.get(numeric) ?? -1;
}

/** Rows of the countries of one subregion, in the country list's order (by name). */
export function countryRowsOfSubregion(store: Store, subregionRow: number): number[] {
  const rows: number[] = [];
  const parents = store.relations.countrySubregionRow;
  for (let row = 0; row < store.countries.count; row++) if (parents[row] === subregionRow) rows.push(row);
  return rows;
}

/** ISO 3166-1 numeric code as 3 digits, or null. */
export function paddedNumericCode(numericCode: string | null): string | null {
  if (!numericCode || !/^\d{1,3}$/.test(numericCode)) return null;
  return numericCode.padStart(3, '0');
}
