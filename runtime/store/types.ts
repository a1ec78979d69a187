// The contract between the snapshot loader and everything that answers requests.
// A Store is a set of zero-copy views over the snapshot's section bytes; it never touches fs.
import type { CityRecord, CountryRecord, PostcodeRecord, RegionRecord, StateRecord, SubregionRecord } from '../format/model.js';
import type { Manifest } from '../format/manifest.js';

/** How a FlatBuffers field reads: the record value decode() gives when the field is absent differs per kind. */
export const FIELD_INT = 0; // int32, absent → 0
export const FIELD_INT_OR_NULL = 1; // int32, absent → null
export const FIELD_DOUBLE_OR_NULL = 2; // float64, absent → null
export const FIELD_STRING = 3; // string, absent → null
export const FIELD_STRING_OR_EMPTY = 4; // string, absent → ''
export const FIELD_JSON_STRING = 5; // string stored as its JSON literal without the quotes (format/json-text.ts), absent → null
export type FieldKind = typeof FIELD_INT | typeof FIELD_INT_OR_NULL | typeof FIELD_DOUBLE_OR_NULL | typeof FIELD_STRING | typeof FIELD_STRING_OR_EMPTY | typeof FIELD_JSON_STRING;

/** One field of a record: its record (= JSON) name, its vtable slot (4 + 2 × field index) and kind. */
export interface FieldLayout {
  readonly name: string;
  readonly slot: number;
  readonly kind: FieldKind;
}

/** Zero-copy access to a table's rows for writers that read fields in place (render/row-json.ts). */
export interface RowBytes {
  /** The records section's bytes. */
  readonly bytes: Uint8Array;
  readonly layout: readonly FieldLayout[];
  /** Rows: 0 to count - 1. */
  readonly count: number;
  /** Position of row `row`'s FlatBuffers table in `bytes`. */
  tablePosition(row: number): number;
}

/** One entity's records. `row` is the dense position in the snapshot's order; `id` the dataset id. */
export interface EntityTable<R> {
  readonly count: number;
  /** Decodes one row into a plain record (all stored fields, nulls for absent values). */
  record(row: number): R;
  /** The row holding dataset id `id`, or -1. */
  rowById(id: number): number;
  /** The dataset id of a row, without decoding the record. */
  idAt(row: number): number;
  /** The English name of a row (postcodes: the code), without decoding the record. */
  nameAt(row: number): string;
  /** The rows' bytes and field layout, for serialising fields in place (null: decode records instead). */
  readonly rowBytes: RowBytes | null;
}

/**
 * Row orders, fixed at build time so that lists are contiguous ranges:
 * - regions, subregions: by id.
 * - countries: by name (then id). Country list = rows 0..count-1.
 * - states: grouped by country row, then by name, then id.
 * - cities: grouped by country row, then state row, then by name, then id.
 * - postcodes: grouped by country row, then postcodeKey(code), then code, then id.
 * Names compare by matchKey() first, then the raw name, then id (deterministic); strings compare
 * by UTF-16 code units (`<`), except postcode keys and codes, which compare in UTF-8 byte order
 * (the order StringTable's binary search uses; identical for ASCII).
 * Rows whose parent is absent or dangling sort after those of every parent (validation warns).
 *
 * Ranges are half-open [start, end) arrays indexed by the parent's row; an empty range is [0, 0).
 */
export interface Relations {
  countryStates: RangesByParent;
  countryCities: RangesByParent;
  stateCities: RangesByParent;
  countryPostcodes: RangesByParent;
  /** Parent rows (-1 when the parent is absent). */
  stateCountryRow: Int32Array;
  cityStateRow: Int32Array;
  cityCountryRow: Int32Array;
  countrySubregionRow: Int32Array;
  subregionRegionRow: Int32Array;
  /** Population per row, -1 when unknown (used by ranking without decoding records). */
  cityPopulation: Float64Array;
  statePopulation: Float64Array;
  countryPopulation: Float64Array;
}

/** Child row ranges indexed by parent row: children of parent p are rows [start[p], end[p]). */
export interface RangesByParent {
  start: Int32Array;
  end: Int32Array;
}

export interface Store {
  readonly manifest: Manifest;
  readonly regions: EntityTable<RegionRecord>;
  readonly subregions: EntityTable<SubregionRecord>;
  readonly countries: EntityTable<CountryRecord>;
  readonly states: EntityTable<StateRecord>;
  readonly cities: EntityTable<CityRecord>;
  readonly postcodes: EntityTable<PostcodeRecord>;
  readonly relations: Relations;
  /** Raw section payloads by name, for the index modules (`GeoIndex.from(store.section(geoSection('cities')))`). */
  section(name: string): ArrayBufferLike;
  hasSection(name: string): boolean;
  /** A structure derived from the sections once for every thread (SnapshotBytes.derived), or null when this store has none by that name. */
  derived(name: string): ArrayBufferLike | null;
  /**
   * Takes the derived structures the main thread built after this store was opened (a server's
   * start). What this thread has built itself meanwhile stays its own: derived() is read on first use.
   */
  adoptDerived(derived: Record<string, SharedArrayBuffer>): void;
}
