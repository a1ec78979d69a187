// Puts the records into snapshot row order (runtime/store/types.ts) and maps the validated links
// from collected indexes to rows:
// - regions, subregions: by id;
// - countries: by name;
// - states: by country row, then name; cities: by country row, state row, name;
// - postcodes: by country row, postcodeKey(code), code, id.
// Names compare by matchKey(), then the raw name (UTF-16 code units), then id. Postcode keys
// and codes compare in UTF-8 byte order (compareUtf8), the order StringTable searches in.
// Records without a parent row (dangling) sort after those with one.
import { compareUtf8 } from '../runtime/indexes/string-table.js';
import type { NormalisedDataset } from '../runtime/format/model.js';
import { matchKey, postcodeKey } from '../runtime/text/normalise.js';
import type { EntityRecords } from './collect.js';
import type { IndexLinks } from './validate.js';

/** Parent rows in snapshot order, -1 when absent. */
export interface RowLinks {
  subregionRegionRow: Int32Array;
  countrySubregionRow: Int32Array;
  stateCountryRow: Int32Array;
  cityCountryRow: Int32Array;
  cityStateRow: Int32Array;
  postcodeCountryRow: Int32Array;
}

export interface OrderedDataset {
  dataset: NormalisedDataset;
  links: RowLinks;
}

const NO_PARENT = 0x7fffffff;

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Indexes 0..n-1 sorted by `compare`. */
function sortedIndexes(n: number, compare: (a: number, b: number) => number): Int32Array {
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort(compare);
  return Int32Array.from(order);
}

/** rowOf[index] for a permutation `order` (order[row] = index). */
function inverse(order: Int32Array): Int32Array {
  const rowOf = new Int32Array(order.length);
  for (let row = 0; row < order.length; row++) rowOf[order[row]!] = row;
  return rowOf;
}

/** Parent rows per row: links are by index, both on the child and the parent side. */
function remap(order: Int32Array, indexLinks: Int32Array, parentRowOf: Int32Array): Int32Array {
  const out = new Int32Array(order.length);
  for (let row = 0; row < order.length; row++) {
    const parent = indexLinks[order[row]!]!;
    out[row] = parent < 0 ? -1 : parentRowOf[parent]!;
  }
  return out;
}

function pick<T>(list: readonly T[], order: Int32Array): T[] {
  const out = new Array<T>(order.length);
  for (let row = 0; row < order.length; row++) out[row] = list[order[row]!]!;
  return out;
}

export function orderDataset(records: EntityRecords, links: IndexLinks, sourceRelease: string): OrderedDataset {
  const byId = (list: readonly { id: number }[]) => sortedIndexes(list.length, (a, b) => list[a]!.id - list[b]!.id);
  const byName = (list: readonly { id: number; name: string }[], parentRank: (i: number) => number, secondRank?: (i: number) => number) => {
    const keys = list.map((r) => matchKey(r.name));
    return sortedIndexes(list.length, (a, b) =>
      parentRank(a) - parentRank(b) ||
      (secondRank ? secondRank(a) - secondRank(b) : 0) ||
      compareStrings(keys[a]!, keys[b]!) ||
      compareStrings(list[a]!.name, list[b]!.name) ||
      list[a]!.id - list[b]!.id);
  };
  const rank = (rowOf: Int32Array, link: Int32Array) => (i: number) => (link[i]! < 0 ? NO_PARENT : rowOf[link[i]!]!);

  const regionOrder = byId(records.regions);
  const regionRowOf = inverse(regionOrder);
  const subregionOrder = byId(records.subregions);
  const subregionRowOf = inverse(subregionOrder);
  const countryOrder = byName(records.countries, () => 0);
  const countryRowOf = inverse(countryOrder);
  const stateOrder = byName(records.states, rank(countryRowOf, links.stateCountry));
  const stateRowOf = inverse(stateOrder);
  const cityOrder = byName(records.cities, rank(countryRowOf, links.cityCountry), rank(stateRowOf, links.cityState));

  const postcodes = records.postcodes;
  const postcodeKeys = postcodes.map((p) => postcodeKey(p.code));
  const postcodeCountryRank = rank(countryRowOf, links.postcodeCountry);
  const postcodeOrder = sortedIndexes(postcodes.length, (a, b) =>
    postcodeCountryRank(a) - postcodeCountryRank(b) ||
    compareUtf8(postcodeKeys[a]!, postcodeKeys[b]!) ||
    compareUtf8(postcodes[a]!.code, postcodes[b]!.code) ||
    postcodes[a]!.id - postcodes[b]!.id);

  const dataset: NormalisedDataset = {
    regions: pick(records.regions, regionOrder),
    subregions: pick(records.subregions, subregionOrder),
    countries: pick(records.countries, countryOrder),
    states: pick(records.states, stateOrder),
    cities: pick(records.cities, cityOrder),
    postcodes: pick(postcodes, postcodeOrder),
    sourceRelease,
  };
  return {
    dataset,
    links: {
      subregionRegionRow: remap(subregionOrder, links.subregionRegion, regionRowOf),
      countrySubregionRow: remap(countryOrder, links.countrySubregion, subregionRowOf),
      stateCountryRow: remap(stateOrder, links.stateCountry, countryRowOf),
      cityCountryRow: remap(cityOrder, links.cityCountry, countryRowOf),
      cityStateRow: remap(cityOrder, links.cityState, stateRowOf),
      postcodeCountryRow: remap(postcodeOrder, links.postcodeCountry, countryRowOf),
    },
  };
}
