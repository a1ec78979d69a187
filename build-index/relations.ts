// The `relations` section: parent rows, child row ranges and populations (layout and order:
// RELATION_ARRAYS in runtime/format/sections.ts), so the runtime never scans records for them.
import { ArrayPackBuilder, type TypedArray } from '../runtime/format/array-pack.js';
import type { NormalisedDataset } from '../runtime/format/model.js';
import { RELATION_ARRAYS, RELATIONS_SECTION, type RelationArrayName } from '../runtime/format/sections.js';
import type { RowLinks } from './order.js';

/**
 * Half-open row ranges of children grouped by parent row (children must be contiguous per
 * parent, which the row order guarantees). Parents without children get [0, 0).
 */
export function rangesByParent(parentRowOfChild: Int32Array, parentCount: number): { start: Int32Array; end: Int32Array } {
  const start = new Int32Array(parentCount);
  const end = new Int32Array(parentCount);
  for (let row = 0; row < parentRowOfChild.length; row++) {
    const parent = parentRowOfChild[row]!;
    if (parent < 0) continue;
    if (end[parent] === 0) start[parent] = row;
    else if (end[parent] !== row) throw new Error(`internal: children of parent row ${parent} are not contiguous (row ${row})`);
    end[parent] = row + 1;
  }
  return { start, end };
}

function populations(list: readonly { population: number | null }[]): Float64Array {
  return Float64Array.from(list, (r) => r.population ?? -1);
}

export function buildRelationArrays(ds: NormalisedDataset, links: RowLinks): Record<RelationArrayName, TypedArray> {
  const countries = ds.countries.length;
  const countryStates = rangesByParent(links.stateCountryRow, countries);
  const countryCities = rangesByParent(links.cityCountryRow, countries);
  const stateCities = rangesByParent(links.cityStateRow, ds.states.length);
  const countryPostcodes = rangesByParent(links.postcodeCountryRow, countries);
  return {
    'countryStates.start': countryStates.start,
    'countryStates.end': countryStates.end,
    'countryCities.start': countryCities.start,
    'countryCities.end': countryCities.end,
    'stateCities.start': stateCities.start,
    'stateCities.end': stateCities.end,
    'countryPostcodes.start': countryPostcodes.start,
    'countryPostcodes.end': countryPostcodes.end,
    stateCountryRow: links.stateCountryRow,
    cityStateRow: links.cityStateRow,
    cityCountryRow: links.cityCountryRow,
    countrySubregionRow: links.countrySubregionRow,
    subregionRegionRow: links.subregionRegionRow,
    cityPopulation: populations(ds.cities),
    statePopulation: populations(ds.states),
    countryPopulation: populations(ds.countries),
  };
}

export function encodeRelations(ds: NormalisedDataset, links: RowLinks): Record<string, Uint8Array> {
  const arrays = buildRelationArrays(ds, links);
  const pack = new ArrayPackBuilder();
  for (const [name] of RELATION_ARRAYS) pack.add(arrays[name]);
  return { [RELATIONS_SECTION]: pack.finish() };
}
