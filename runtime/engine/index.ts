// The engine as handlers see it: one object per Store (engineFor(store), built on first use and
// dropped with the Store) that answers questions over the snapshot and returns rows or plain
// values, never JSON. Each method is the single implementation of its lookup; the per-Store
// tables behind them are built lazily (perStore) by the modules named below.
import type { Store } from '../store/types.js';
import { NAMED_ENTITIES } from '../format/sections.js';
import { countryRowByIso2, countryRowByIso3, countryRowByNumericCode, countryRowsOfSubregion, resolveCountryRow } from './countries.js';
import { currencyList, type CurrencyInfo } from './currency.js';
import { prepareNameKeys, rowMatchesQ, type NamedEntity } from './name-keys.js';
import { checkNameRanks, nameRanks } from './name-order.js';
import { perStore } from './per-store.js';
import { matchPhoneDigits, phoneEntries, phoneEntriesByCode, phoneEntryOfRow, type PhoneEntry, type PhoneMatch } from './phone.js';
import { PostcodeEngine } from './postcodes/engine.js';
import { subregionRowsOfRegion } from './regions.js';
import { searchContext, type SearchContext } from './search/context.js';
import { keptSortedRows, sortedRows } from './sorted-rows.js';
import { stateRowByIso3166, stateRowInCountry, stateRowsInCountry } from './states.js';
import { countryZone } from './timezone.js';
import { autocompleteSearch, prepareAutocomplete } from './search/autocomplete.js';
import { fuzzySearch, prepareFuzzy } from './search/fuzzy.js';
import { ENTITY_OF } from './search/context.js';
import { RowRanges } from './search/row-filter.js';
import { matchKey } from '../text/normalise.js';

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

  // `sort` and `q` of the lists: orders and selections of row ranges kept (sorted-rows.ts), names by rank (name-order.ts).

  /** The rows kept under `key` (a row range, its sort keys, and `q` for a selection), else `sort()`'s, then kept. */
  sortedRows(key: string, sort: () => Int32Array): Int32Array {
    return sortedRows(this.store, key, sort);
  }

  /** The order kept under `key`, or undefined. */
  keptSortedRows(key: string): Int32Array | undefined {
    return keptSortedRows(this.store, key);
  }

  /** Each row's rank in name order, or null when the snapshot has none for `entity`. */
  nameRanks(entity: NamedEntity): Int32Array | null {
    return nameRanks(this.store, entity);
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

/**
 * What the engine otherwise builds on the first request that needs it (index views, trigram
 * bitmaps, scratch arrays, autocomplete's rank structure, city kinds, postcode locality offsets,
 * code lookups; the immutable ones are adopted from the main thread when it built them once for
 * every thread, shared.ts), as separate steps of at most some tens of ms each: the server runs them one per
 * event-loop turn after loading, so a request arriving meanwhile waits for one step at most and no
 * request pays a whole preparation.
 */
export function preparationSteps(store: Store): (() => void)[] {
  const engine = engineFor(store);
  const steps: (() => void)[] = [
    () => engine.countryRow('US'),
    () => engine.stateRow(0, '-'),
    () => engine.postcodes,
    () => engine.postcodes.prepare(),
    () => engine.search.cityKinds(),
    // Nearby's per-node bounds (filters that would reject whole parts of the tree).
    () => engine.search.postcodeGeo().geo.prepare(),
    () => engine.search.nodeCityKindMasks(),
    // Opened now; a malformed section is reported here (its name sorts fold the names instead).
    ...Object.values(ENTITY_OF).map((entity) => () => checkNameRanks(store, entity)),
    // The lists' `q` reads each row's name keys through a table (the main thread's, else made here).
    ...NAMED_ENTITIES.map((entity) => () => prepareNameKeys(store, entity)),
  ];
  for (const entity of Object.values(ENTITY_OF)) {
    steps.push(
      () => engine.search.indexes(entity).trigram.prepare(),
      () => engine.search.indexes(entity).trigramChanged.prepare(),
      () => engine.search.indexes(entity).trigramPlainQuery.prepare(),
      () => prepareAutocomplete(engine.search.indexes(entity)),
      () => prepareFuzzy(engine.search.indexes(entity)),
      () => {
        engine.search.indexes(entity).geo.prepare();
        engine.search.nodePopulationMaxima(entity);
      },
    );
  }
  // Searches of 128 names spread over the table, so the first real ones run compiled code; 4 per
  // step, since a step holds its thread for its whole length (a swap's preparation runs while the
  // thread serves; 16 per step took 30–50 ms there on the full dataset).
  const cities = store.cities;
  for (let first = 0; first < 128 && cities.count > 0; first += 4) {
    steps.push(() => {
      const indexes = engine.search.indexes('cities');
      const rows = RowRanges.all(cities.count);
      for (let n = first; n < first + 4; n++) {
        const name = cities.nameAt(Math.floor((n * cities.count) / 128) % cities.count);
        for (const q of [name.slice(0, 2 + ((n >> 3) % 5)), name]) {
          if (q.trim().length < 2) continue;
          autocompleteSearch(indexes, { q, key: matchKey(q), rows, limit: 10 });
          fuzzySearch(indexes, { q, threshold: 0.3, rows, limit: 10 });
        }
      }
    });
  }
  return steps;
}
