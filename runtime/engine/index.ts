// The engine as handlers see it: one object per Store (engineFor(store), built on first use and
// dropped with the Store) that answers questions over the snapshot and returns rows or plain
// values, never JSON. Each method is the single implementation of its lookup; the per-Store
// tables behind them are built lazily (perStore) by the modules named below.
import type { Store } from '../store/types.js';
import { countryRowByIso2, countryRowByIso3, countryRowByNumericCode, countryRowsOfSubregion, resolveCountryRow } from './countries.js';
import { currencyList, type CurrencyInfo } from './currency.js';
import { rowMatchesQ, type NamedEntity } from './name-keys.js';
import { perStore } from './per-store.js';
import { matchPhoneDigits, phoneEntries, phoneEntriesByCode, phoneEntryOfRow, type PhoneEntry, type PhoneMatch } from './phone.js';
import { PostcodeEngine } from './postcodes/engine.js';
import { subregionRowsOfRegion } from './regions.js';
import { searchContext, type SearchContext } from './search/context.js';
import { stateRowByIso3166, stateRowInCountry, stateRowsInCountry } from './states.js';
import { countryZone } from './timezone.js';

export class Engine {
  constructor(readonly store: Store) {}

  // Countries (countries.ts). Codes: first row wins when two rows share one.

  /** Row of the country named by a ciso path segment (alpha-2, alpha-3 or numeric id), or -1. */
  countryRow(ciso: string): number {
    return resolveCountryRow(this.store, ciso);
  }

  countryRowByIso2(iso2: string): number {
    return countryRowByIso2(this.store, iso2);
  }

  countryRowByIso3(iso3: string): number {
    return countryRowByIso3(this.store, iso3);
  }

  countryRowByNumericCode(numeric: number): number {
    return countryRowByNumericCode(this.store, numeric);
  }

  countryRowsOfSubregion(subregionRow: number): number[] {
    return countryRowsOfSubregion(this.store, subregionRow);
  }

  // States (states.ts).

  /** Row of the state with local code `siso` in the country (first by name when shared), or -1. */
  stateRow(countryRow: number, siso: string): number {
    return stateRowInCountry(this.store, countryRow, siso);
  }

  /** Every state row of the country with this local code, ascending. */
  stateRows(countryRow: number, code: string): readonly number[] {
    return stateRowsInCountry(this.store, countryRow, code);
  }

  stateRowByIso3166(code: string): number {
    return stateRowByIso3166(this.store, code);
  }

  // Regions (regions.ts).

  subregionRowsOfRegion(regionRow: number): number[] {
    return subregionRowsOfRegion(this.store, regionRow);
  }

  // `q` filters of the lists (name-keys.ts).

  rowMatchesQ(entity: NamedEntity, row: number, key: string): boolean {
    return rowMatchesQ(this.store, entity, row, key);
  }

  // Currency, phone, timezone.

  currencies(code: string | null): CurrencyInfo[] {
    return currencyList(this.store, code);
  }

  phoneEntries(): readonly PhoneEntry[] {
    return phoneEntries(this.store);
  }

  phoneEntriesByCode(digits: string): PhoneEntry[] {
    return phoneEntriesByCode(this.store, digits);
  }

  phoneEntryOfRow(countryRow: number): PhoneEntry | null {
    return phoneEntryOfRow(this.store, countryRow);
  }

  matchPhone(digits: string, nowMs: number): PhoneMatch {
    return matchPhoneDigits(this.store, digits, nowMs);
  }

  countryZone(countryRow: number): string | null {
    return countryZone(this.store, countryRow);
  }

  // Search and postcodes: their own per-Store engines.

  get search(): SearchContext {
    return searchContext(this.store);
  }

  get postcodes(): PostcodeEngine {
    return PostcodeEngine.of(this.store);
  }
}

const engines = perStore((store) => new Engine(store));

/** The engine of a Store (one per Store). */
export function engineFor(store: Store): Engine {
  return engines.get(store);
}
