// Layout of the `postcodes.filters` section, written by build-index/sections/postcodes.ts and read
// by runtime/engine/postcodes/columns.ts. It holds per-row filter columns so that the postcode
// search never decodes a FlatBuffers record to test a filter, and the matchKey() forms of the
// locality names, deduplicated per country, so a `q` "contains" test scans each distinct locality
// of a country once (one String#indexOf pass over the country's joined text).
//
// ArrayPack, arrays in this order:
//   0 header            Int32Array [layoutVersion]
//   1 localityByRow     Int32Array (postcodes): global locality index, -1 = no locality name
//   2 stateCodeByRow    Int32Array (postcodes): index into stateCodeNames, -1 = null
//   3 cityIdByRow       Int32Array (postcodes): dataset city id, -1 = null
//   4 typeByRow         Uint16Array (postcodes): 1 + index into typeNames, 0 = null
//   5 groupRowStart     Int32Array (groups + 1): first postcode row of each country group
//                       (a group = the consecutive rows of one country); last = postcode count
//   6 groupLocalityStart Int32Array (groups + 1): first global locality index of each group
//   7 groupTextStart    Int32Array (groups + 1): byte offset of each group's text in localityText
//   8 localityCharStart Int32Array (localities): UTF-16 offset of the locality inside its group's
//                       decoded text
//   9 localityText      Uint8Array: per group, UTF-8 of each locality's matchKey followed by "\n"
//  10 stateCodeNames    Uint8Array: UTF-8 JSON array of the distinct state codes, upper-cased
//  11 typeNames         Uint8Array: UTF-8 JSON array of the distinct types, lower-cased
export const POSTCODE_FILTERS_SECTION = 'postcodes.filters';
export const POSTCODE_FILTERS_LAYOUT_VERSION = 1;
/** Separator after each locality key; matchKey() turns every whitespace run into one space, so no key holds it. */
export const LOCALITY_TERMINATOR = '\n';

export const POSTCODE_FILTER_ARRAYS = [
  'header',
  'localityByRow',
  'stateCodeByRow',
  'cityIdByRow',
  'typeByRow',
  'groupRowStart',
  'groupLocalityStart',
  'groupTextStart',
  'localityCharStart',
  'localityText',
  'stateCodeNames',
  'typeNames',
] as const;

/** Case-folding of the exact-match filters, shared by the builder and the request parser. */
export function stateCodeKey(stateCode: string): string {
  return stateCode.toUpperCase();
}

export function postcodeTypeKey(type: string): string {
  return type.toLowerCase();
}
