// Every snapshot section name, and the array layouts of the sections written by
// build-index/records and build-index/relations and read by runtime/store. One list: build-index
// and the runtime name sections only through these, so writer and reader cannot drift. (Index
// payload layouts live with their index module in runtime/indexes/.)
import type { EntityName } from './model.js';

/** Entities with a `geo.<entity>` section (a GeoIndex). */
export type GeoEntity = 'countries' | 'states' | 'cities' | 'postcodes';
/** Entities with name search sections (`prefix.`, `prefix-tr.`, `trigram.<entity>`). */
export type NamedEntity = 'countries' | 'states' | 'cities';
export const GEO_ENTITIES: readonly GeoEntity[] = ['countries', 'states', 'cities', 'postcodes'];
export const NAMED_ENTITIES: readonly NamedEntity[] = ['countries', 'states', 'cities'];

/** File name of a section inside the snapshot directory. */
export function sectionFileName(section: string): string {
  return `${section}.bin`;
}

/** `records.<entity>`: FlatBuffers table (schemas/geoapi.fbs). */
export function recordsSection(entity: EntityName): string {
  return `records.${entity}`;
}

/** `ids.<entity>`: ArrayPack, layout below. */
export function idsSection(entity: EntityName): string {
  return `ids.${entity}`;
}

/** `relations`: ArrayPack, RELATION_ARRAYS below. */
export const RELATIONS_SECTION = 'relations';

/** `geo.<entity>`: GeoIndex (runtime/indexes/geo-index.ts). */
export function geoSection(entity: GeoEntity): string {
  return `geo.${entity}`;
}

/** `prefix.<entity>`: PrefixIndex over name and native name (runtime/indexes/prefix-index.ts). */
export function prefixSection(entity: NamedEntity): string {
  return `prefix.${entity}`;
}

/** `prefix-tr.<entity>`: PrefixIndex over translations. */
export function prefixTranslationsSection(entity: NamedEntity): string {
  return `prefix-tr.${entity}`;
}

/** `trigram.<entity>`: TrigramIndex over name and native name (runtime/indexes/trigram-index.ts). */
export function trigramSection(entity: NamedEntity): string {
  return `trigram.${entity}`;
}

/**
 * `trigram-ua.<entity>`: TrigramIndex over unaccent(name) and unaccent(native name) (PostgreSQL's
 * unaccent, runtime/text/unaccent.ts), holding only the docs whose trigrams unaccent changes
 * (build-index/sections/trigram.ts says which): the other half of match_score (decisions.md).
 */
export function trigramUnaccentSection(entity: NamedEntity): string {
  return `trigram-ua.${entity}`;
}

/**
 * `trigram-pq.<entity>`: TrigramIndex for the queries unaccent leaves alone ("plain" queries), whose
 * every (row, field) match_score one search over it gives: per (row, field), the unaccented
 * trigrams where unaccent changes them, and the text's own as well where those could score higher
 * (a (row, field) may then have two docs). build-index/sections/trigram.ts says which;
 * runtime/engine/search/name-matches.ts why it is exact.
 */
export function trigramPlainQuerySection(entity: NamedEntity): string {
  return `trigram-pq.${entity}`;
}

/**
 * `trigram-pq-info.<entity>`: ArrayPack of what a search of `trigram-pq.` needs besides:
 *   0 guardCodes  Int32Array, ascending: the codes a changed text's own trigrams hold and its
 *                 unaccented ones lack, where `trigram-pq.` holds the unaccented ones alone (none
 *                 in the ASCII range: all three bytes < 0x80); a plain query holding one is not
 *                 answered by `trigram-pq.` alone
 *   1 ownDocs     Uint8Array(docs of `trigram-pq.`): 1 for a changed text's own trigrams (kept
 *                 beside its unaccented ones), which a search of the unaccent half leaves out
 */
export function trigramPlainQueryInfoSection(entity: NamedEntity): string {
  return `trigram-pq-info.${entity}`;
}

/** `keys.postcodes`: StringTable of postcodeKey(code) in row order (runtime/indexes/string-table.ts). */
export const POSTCODE_KEYS_SECTION = 'keys.postcodes';

/** `postcodes.filters`: PostcodeFilterIndex (runtime/indexes/postcode-filter-index.ts). */
export const POSTCODE_FILTERS_SECTION = 'postcodes.filters';

/**
 * `ids.<entity>`: ArrayPack of four Int32Arrays:
 *   0 idsByRow (count)
 *   1 header [mode, minId]
 *   2,3 mode DENSE:  rowByIdOffset (maxId - minId + 1; -1 = no such id), empty
 *       mode SORTED: sortedIds (count), rowsOfSortedIds (count)
 * Dense when the id range is at most IDS_DENSE_MAX_RATIO × count (the usual case: ids are
 * nearly contiguous), so rowById is one array read; sorted (binary search) otherwise.
 */
export const IDS_MODE_DENSE = 0;
export const IDS_MODE_SORTED = 1;
export const IDS_DENSE_MAX_RATIO = 2;

/**
 * `relations`: ArrayPack holding these arrays in this order (Int32Array unless noted).
 * Ranges are half-open [start, end) indexed by the parent row; an empty range is [0, 0).
 */
export const RELATION_ARRAYS = [
  ['countryStates.start', 'countries'],
  ['countryStates.end', 'countries'],
  ['countryCities.start', 'countries'],
  ['countryCities.end', 'countries'],
  ['stateCities.start', 'states'],
  ['stateCities.end', 'states'],
  ['countryPostcodes.start', 'countries'],
  ['countryPostcodes.end', 'countries'],
  ['stateCountryRow', 'states'],
  ['cityStateRow', 'cities'],
  ['cityCountryRow', 'cities'],
  ['countrySubregionRow', 'countries'],
  ['subregionRegionRow', 'subregions'],
  ['cityPopulation', 'cities'], // Float64Array, -1 = unknown
  ['statePopulation', 'states'], // Float64Array
  ['countryPopulation', 'countries'], // Float64Array
] as const satisfies readonly (readonly [string, EntityName])[];

export type RelationArrayName = (typeof RELATION_ARRAYS)[number][0];

/** `changes`: the change history (runtime/format/change-log.ts); absent in older snapshots = no history. */
export const CHANGES_SECTION = 'changes';

/**
 * `prominence.cities` (optional; absent from snapshots built with `--no-enrich`): autocomplete's
 * rule-4 value per city row — layout in runtime/format/prominence.ts.
 */
export const PROMINENCE_SECTION = 'prominence.cities';

/**
 * `order.<entity>` (optional; absent from snapshots built before it): each row's rank in name
 * order — layout in runtime/format/name-order.ts. `sort=name` on a list compares these numbers.
 */
export function nameOrderSection(entity: NamedEntity): string {
  return `order.${entity}`;
}
