// Everything search needs from one Store, opened on first use and kept for the Store's lifetime
// (perStore: a reloaded snapshot gets a fresh context): the index views of each searchable entity
// and the city kind of every row, built once per Store (every city's `type`), never per request.
// The country/state filters use the shared code lookups (engine/countries.ts, engine/states.ts).
import * as flatbuffers from 'flatbuffers';
import { City, CityTable } from '../../format/generated/geoapi/fb.js';
import { ArrayPack } from '../../format/array-pack.js';
import { SnapshotFormatError } from '../../format/section.js';
import {
  geoSection,
  PROMINENCE_SECTION,
  prefixSection,
  prefixTranslationsSection,
  recordsSection,
  trigramPlainQueryInfoSection,
  trigramPlainQuerySection,
  trigramSection,
  trigramUnaccentSection,
} from '../../format/sections.js';
import { openProminence } from '../../format/prominence.js';
import { GeoIndex } from '../../indexes/geo-index.js';
import { PrefixIndex } from '../../indexes/prefix-index.js';
import { TrigramIndex } from '../../indexes/trigram-index.js';
import type { Store } from '../../store/types.js';
import { perStore } from '../per-store.js';
import { SHARED } from '../shared-names.js';
import { cityKind, KIND_CODE } from './city-kind.js';
import { changedDocsOf, type NameTrigrams } from './name-matches.js';
import type { NearbyIndexes } from './nearby.js';

/** The `type` parameter of the search operations. */
export type SearchType = 'city' | 'state' | 'country';
export type SearchEntity = 'cities' | 'states' | 'countries';

export const ENTITY_OF: Readonly<Record<SearchType, SearchEntity>> = { city: 'cities', state: 'states', country: 'countries' };

export interface EntityIndexes extends NameTrigrams {
  readonly geo: GeoIndex;
  readonly prefix: PrefixIndex;
  readonly prefixTranslations: PrefixIndex;
  /** Population per row (-1 unknown), from relations: the dataset's value (filters, fuzzy). */
  readonly population: Float64Array;
  /**
   * Autocomplete's rule-4 value per row: `prominence.cities` when the snapshot has it (dataset
   * population, else the matched GeoNames population), else `population`.
   */
  readonly prominence: Float64Array;
  readonly rowCount: number;
  idAt(row: number): number;
  /** PrefixTop.shared() of `prefix`, built once by the main thread (shared.ts), or null: autocomplete builds its own. */
  readonly prefixTopBytes: ArrayBufferLike | null;
  /** trigramChanged's bytes (TrigramIndex.subset): the main thread's, or built by this thread, which shared.ts then shares. */
  readonly trigramChangedBytes: SharedArrayBuffer;
}

/** A shared per-node array, checked against the tree it summarises (one value per heap-numbered node). */
function nodeArray<T extends Uint8Array | Float64Array>(values: T, geo: GeoIndex, name: string): T {
  if (values.length !== geo.summaryLength) throw new Error(`${name} (shared): expected ${geo.summaryLength} nodes, found ${values.length}`);
  return values;
}

export class SearchContext {
  private readonly entities = new Map<SearchEntity, EntityIndexes>();
  private postcodes: NearbyIndexes | null = null;
  private kinds: Uint8Array | null = null;
  private readonly populationMaxima = new Map<SearchEntity, Float64Array>();
  private kindMasks: Uint8Array | null = null;

  constructor(readonly store: Store) {}

  indexes(entity: SearchEntity): EntityIndexes {
    let opened = this.entities.get(entity);
    if (!opened) {
      const store = this.store;
      const table = store[entity];
      const population =
        entity === 'cities' ? store.relations.cityPopulation : entity === 'states' ? store.relations.statePopulation : store.relations.countryPopulation;
      const trigram = TrigramIndex.from(store.section(trigramSection(entity)), 0, trigramSection(entity));
      const trigramPlainQuery = TrigramIndex.from(store.section(trigramPlainQuerySection(entity)), 0, trigramPlainQuerySection(entity));
      const infoSection = trigramPlainQueryInfoSection(entity);
      const info = ArrayPack.from(store.section(infoSection), 0, infoSection);
      const plainQueryOwnDocs = info.get(1, Uint8Array, infoSection);
      if (plainQueryOwnDocs.length !== trigramPlainQuery.docCount) {
        throw new SnapshotFormatError(`${infoSection}: expected ${trigramPlainQuery.docCount} own-doc flags (the docs of ${trigramPlainQuerySection(entity)}), found ${plainQueryOwnDocs.length}`);
      }
      for (const [index, section] of [
        [trigram, trigramSection(entity)],
        [trigramPlainQuery, trigramPlainQuerySection(entity)],
      ] as const) {
        const longLists = store.derived(SHARED.trigramLongLists(section));
        if (longLists !== null) index.useLongLists(longLists, `${section} long lists (shared)`);
      }
      const changedIndex = store.derived(SHARED.trigramChanged(entity));
      const unchangedCodes = store.derived(SHARED.unchangedCodes(entity));
      // The main thread's (shared.ts: SharedArrayBuffers), else built here.
      const changedOnly =
        changedIndex !== null && unchangedCodes !== null
          ? { changedIndex: changedIndex as SharedArrayBuffer, unchangedCodes: unchangedCodes as SharedArrayBuffer }
          : changedOnlyBuffers(trigram, TrigramIndex.from(store.section(trigramUnaccentSection(entity)), 0, trigramUnaccentSection(entity)), table.count);
      opened = {
        geo: GeoIndex.from(store.section(geoSection(entity)), geoSection(entity)),
        prefix: PrefixIndex.from(store.section(prefixSection(entity)), 0, prefixSection(entity)),
        prefixTranslations: PrefixIndex.from(store.section(prefixTranslationsSection(entity)), 0, prefixTranslationsSection(entity)),
        trigram,
        trigramChanged: TrigramIndex.from(changedOnly.changedIndex, 0, `${trigramSection(entity)} changed docs`),
        unchangedCodes: new Int32Array(changedOnly.unchangedCodes),
        trigramPlainQuery,
        plainQueryGuard: info.get(0, Int32Array, infoSection),
        plainQueryOwnDocs,
        population,
        prominence:
          entity === 'cities' && store.hasSection(PROMINENCE_SECTION)
            ? openProminence(store.section(PROMINENCE_SECTION), table.count, PROMINENCE_SECTION).prominence
            : population,
        rowCount: table.count,
        idAt: (row: number) => table.idAt(row),
        prefixTopBytes: store.derived(SHARED.prefixTop(entity)),
        trigramChangedBytes: changedOnly.changedIndex,
      };
      this.entities.set(entity, opened);
    }
    return opened;
  }

  /**
   * GeoIndex.nodeMaxima of the entity's population: nearby's min_population bound per tree node.
   * The main thread's (shared.ts), else built once per Store and thread.
   */
  nodePopulationMaxima(entity: SearchEntity): Float64Array {
    let maxima = this.populationMaxima.get(entity);
    if (maxima === undefined) {
      const indexes = this.indexes(entity);
      const shared = this.store.derived(SHARED.nodePopulationMaxima(entity));
      maxima = shared !== null ? nodeArray(new Float64Array(shared), indexes.geo, SHARED.nodePopulationMaxima(entity)) : indexes.geo.nodeMaxima(indexes.population);
      this.populationMaxima.set(entity, maxima);
    }
    return maxima;
  }

  /** GeoIndex.nodeMasks of the cities' kinds (cityKinds): nearby's kind bound per tree node. The main thread's (shared.ts), else built once per Store and thread. */
  nodeCityKindMasks(): Uint8Array {
    if (this.kindMasks === null) {
      const geo = this.indexes('cities').geo;
      const shared = this.store.derived(SHARED.nodeKindMasks);
      this.kindMasks = shared !== null ? nodeArray(new Uint8Array(shared), geo, SHARED.nodeKindMasks) : geo.nodeMasks(this.cityKinds());
    }
    return this.kindMasks;
  }

  /** Nearby postcodes (`geo.postcodes`: rows with both coordinates) and postcode ids. */
  postcodeGeo(): NearbyIndexes {
    if (!this.postcodes) {
      const table = this.store.postcodes;
      this.postcodes = { geo: GeoIndex.from(this.store.section(geoSection('postcodes')), geoSection('postcodes')), idAt: (row: number) => table.idAt(row) };
    }
    return this.postcodes;
  }

  /**
   * KIND_CODE of every city row: the main thread's (shared.ts), else built on first use from the
   * `type` field alone (FlatBuffers accessors over `records.cities`, ~30× cheaper than decoding
   * whole records).
   */
  cityKinds(): Uint8Array {
    const shared = this.kinds === null ? this.store.derived(SHARED.cityKinds) : null;
    if (shared !== null) {
      const kinds = new Uint8Array(shared);
      if (kinds.length !== this.store.cities.count) throw new Error(`${SHARED.cityKinds} (shared): expected ${this.store.cities.count} rows, found ${kinds.length}`);
      this.kinds = kinds;
    }
    if (!this.kinds) {
      const table = CityTable.getRootAsCityTable(new flatbuffers.ByteBuffer(new Uint8Array(this.store.section(recordsSection('cities')))));
      const count = table.rowsLength();
      if (count !== this.store.cities.count) throw new Error(`${recordsSection('cities')}: expected ${this.store.cities.count} rows, found ${count}`);
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

/**
 * NameTrigrams.trigramChanged's index (TrigramIndex.subset of `trigram` to the changed docs) and
 * unchangedCodes' Int32Array (TrigramIndex.codesOutside), as SharedArrayBuffers: what the main
 * thread builds once for every thread (shared.ts takes them from its own context), or a thread
 * for itself when none came. `trigram-ua.` (`trigramUnaccented`), never searched (name-matches.ts),
 * is read only here: it says which docs are changed.
 */
function changedOnlyBuffers(trigram: TrigramIndex, trigramUnaccented: TrigramIndex, rowCount: number): { changedIndex: SharedArrayBuffer; unchangedCodes: SharedArrayBuffer } {
  const changedDocs = changedDocsOf(trigram, trigramUnaccented, rowCount);
  const codes = trigram.codesOutside(changedDocs);
  const unchangedCodes = new SharedArrayBuffer(codes.byteLength);
  new Int32Array(unchangedCodes).set(codes);
  return { changedIndex: trigram.subset(changedDocs), unchangedCodes };
}

const contexts = perStore((store) => new SearchContext(store));

export function searchContext(store: Store): SearchContext {
  return contexts.get(store);
}
