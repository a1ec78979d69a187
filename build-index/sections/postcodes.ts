// Postcode sections, from the postcode records in snapshot row order:
// - `keys.postcodes`: postcodeKey(code) of every row as a StringTable. Within a country's row
//   range the keys are sorted (row order), so lookups and code-prefix searches binary-search them.
// - `postcodes.filters`: typed filter columns and per-country locality keys for the search
//   (build-index/sections/postcode-filters.ts).
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { POSTCODE_FILTERS_SECTION } from '../../runtime/format/postcode-sections.js';
import { POSTCODE_KEYS_SECTION } from '../../runtime/format/sections.js';
import { encodeStringTable } from '../../runtime/format/string-table.js';
import { postcodeKey } from '../../runtime/text/normalise.js';
import { encodePostcodeFilters } from './postcode-filters.js';

export function buildPostcodeSections(ds: Pick<NormalisedDataset, 'postcodes' | 'countries'>): Record<string, Uint8Array> {
  // Rows are grouped by country row (the postcode's country_id; dangling ones last), as order.ts sorts them.
  const countryRowById = new Map(ds.countries.map((country, row) => [country.id, row]));
  return {
    [POSTCODE_KEYS_SECTION]: encodeStringTable(ds.postcodes.map((p) => postcodeKey(p.code))),
    [POSTCODE_FILTERS_SECTION]: encodePostcodeFilters(ds.postcodes, (p) => countryRowById.get(p.country_id) ?? -1),
  };
}
