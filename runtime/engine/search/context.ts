// Everything search needs from one Store, opened on first use and kept for the Store's lifetime
// (WeakMap: a reloaded snapshot gets a fresh context): the index views of each searchable entity,
// code lookups for the country/state filters, and the city kind of every row.
// Lookups decode records once per Store (250 countries; a country's states on first use; every
// city's `type` for kinds), never per request.
import * as flatbuffers from 'flatbuffers';
import { City, CityTable } from '../../format/generated/geoapi/fb.js';
import { PROMINENCE_SECTION, recordsSection } from '../../format/sections.js';
import { openProminence } from '../../format/prominence.js';
import { GeoIndex } from '../../indexes/geo-index.js';
import { PrefixIndex } from '../../indexes/prefix-index.js';
import { TrigramIndex } from '../../indexes/trigram-index.js';
import type { Store } from '../../store/types.js';
import { cityKind, KIND_CODE } from './city-kind.js';

/** The `type` parameter of the search operations. */
export type SearchType = 'city' | 'state' | 'country';
export type SearchEntity = 'cities' | 'states' | 'countries';

export const ENTITY_OF: Readonly<Record<SearchType, SearchEntity>> = { city: 'cities', state: 'states', country: 'countries' };

export interface EntityIndexes {
  readonly geo: GeoIndex;
  readonly prefix: PrefixIndex;
  readonly prefixTranslations: PrefixIndex;
  readonly trigram: TrigramIndex;
  /** Population per row (-1 unknown), from relations: the dataset's value (filters, fuzzy). */
  readonly population: Float64Array;
  /**
   * Autocomplete's rule-4 value per row: `prominence.cities` when the snapshot has it (dataset
   * population, else the matched GeoNames population), else `population`.
   */
  readonly prominence: Float64Array;
  readonly rowCount: number;
  idAt(row: number): number;
}

export class SearchContext {
  private readonly entities = new Map<SearchEntity, EntityIndexes>();
  private countryRows: Map<string, number> | null = null;
  private readonly stateRowsByCountry = new Map<number, Map<string, number[]>>();
  private kinds: Uint8Array | null = null;

  constructor(readonly store: Store) {}

  indexes(entity: SearchEntity): EntityIndexes {
    let opened = this.entities.get(entity);
    if (!opened) {
      const store = this.store;
      const table = store[entity];
      const population =
        entity === 'cities' ? store.relations.cityPopulation : entity === 'states' ? store.relations.statePopulation : store.relations.countryPopulation;
      opened = {
        geo: GeoIndex.from(store.section(`geo.${entity}`), `geo.${entity}`),
        prefix: PrefixIndex.from(store.section(`prefix.${entity}`), 0, `prefix.${entity}`),
        prefixTranslations: PrefixIndex.from(store.section(`prefix-tr.${entity}`), 0, `prefix-tr.${entity}`),
        trigram: TrigramIndex.from(store.section(`trigram.${entity}`), 0, `trigram.${entity}`),
        population,
        prominence:
          entity === 'cities' && store.hasSection(PROMINENCE_SECTION)
            ? openProminence(store.section(PROMINENCE_SECTION), table.count, PROMINENCE_SECTION).prominence
            : population,
        rowCount: table.count,
        idAt: (row: number) => table.idAt(row),
      };
      this.entities.set(entity, opened);
    }
    return opened;
  }

  /** Row of the country with this alpha-2 code (upper case), or -1. */
  countryRow(iso2: string): number {
    if (!this.countryRows) {
      const rows = new Map<string, number>();
      const countries = this.store.countries;
      for (let row = 0; row < countries.count; row++) rows.set(countries.record(row).iso2.toUpperCase(), row);
      this.countryRows = rows;
    }
    return this.countryRows.get(iso2) ?? -1;
  }

  /**
   * Rows of the country's states whose code (`iso2`, what cities carry as `state_code`) equals
   * `code` case-insensitively; usually one, empty when none.
   */
  stateRows(countryRow: number, code: string): readonly number[] {
    let byCode = this.stateRowsByCountry.get(countryRow);
    if (!byCode) {
      byCode = new Map();
      const { start, end } = this.store.relations.countryStates;
      for (let row = start[countryRow]!; row < end[countryRow]!; row++) {
        const iso2 = this.store.states.record(row).iso2;
        if (iso2 === null) continue;
        const key = iso2.toUpperCase();
        const list = byCode.get(key);
        if (list) list.push(row);
        else byCode.set(key, [row]);
      }
      this.stateRowsByCountry.set(countryRow, byCode);
    }
    return byCode.get(code.toUpperCase()) ?? [];
  }

  /**
   * KIND_CODE of every city row, built on first use from the `type` field alone (FlatBuffers
   * accessors over `records.cities`, ~30× cheaper than decoding whole records).
   */
  cityKinds(): Uint8Array {
    if (!this.kinds) {
      const table = CityTable.getRootAsCityTable(new flatbuffers.ByteBuffer(new Uint8Array(this.store.section(recordsSection('cities')))));
      const count = table.rowsLength();
      if (count !== this.store.cities.count) throw new Error(`records.cities: expected ${this.store.cities.count} rows, found ${count}`);
      const kinds = new Uint8Array(count);
      const city = new City();
      const codeOfType = new Map<string | null, number>();
      for (let row = 0; row < count; row++) {
        const type = table.rows(row, city)!.type();
        let code = codeOfType.get(type);
        if (code === undefined) codeOfType.set(type, (code = KIND_CODE[cityKind(type)]));
        kinds[row] = code;
      }
      this.kinds = kinds;
    }
    return this.kinds;
  }
}

const contexts = new WeakMap<Store, SearchContext>();

export function searchContext(store: Store): SearchContext {
  let context = contexts.get(store);
  if (!context) {
    context = new SearchContext(store);
    contexts.set(store, context);
  }
  return context;
}
