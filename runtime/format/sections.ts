// Section names and the array layouts of the sections written by build-index/records and
// build-index/relations and read by runtime/store. One list, so writer and reader cannot drift.
import type { EntityName } from './model.js';

/** File name of a section inside the snapshot directory. */
export function sectionFileName(section: string): string {
  return `${section}.bin`;
}

export function recordsSection(entity: EntityName): string {
  return `records.${entity}`;
}

export function idsSection(entity: EntityName): string {
  return `ids.${entity}`;
}

export const RELATIONS_SECTION = 'relations';
export const POSTCODE_KEYS_SECTION = 'keys.postcodes';

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
  ['postcodeStateRow', 'postcodes'],
  ['postcodeCityRow', 'postcodes'],
  ['countryRegionRow', 'countries'],
  ['countrySubregionRow', 'countries'],
  ['subregionRegionRow', 'subregions'],
  ['cityPopulation', 'cities'], // Float64Array, -1 = unknown
  ['statePopulation', 'states'], // Float64Array
  ['countryPopulation', 'countries'], // Float64Array
] as const satisfies readonly (readonly [string, EntityName])[];

export type RelationArrayName = (typeof RELATION_ARRAYS)[number][0];

/**
 * `prominence.cities` (optional; absent from snapshots built with `--no-enrich`): autocomplete's
 * rule-4 value per city row — layout in runtime/format/prominence.ts.
 */
export const PROMINENCE_SECTION = 'prominence.cities';
