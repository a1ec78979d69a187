// Postcode sections, from the postcode records in snapshot row order:
// - `keys.postcodes`: postcodeKey(code) of every row as a StringTable. Within a country's row
//   range the keys are sorted (row order), so lookups and code-prefix searches binary-search them.
// - `postcodes.filters`: typed filter columns and per-country locality keys for the search
//   (PostcodeFilterIndex).
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { POSTCODE_FILTERS_SECTION, POSTCODE_KEYS_SECTION } from '../../runtime/format/sections.js';
import { PostcodeFilterIndexBuilder } from '../../runtime/indexes/postcode-filter-index.js';
import { StringTableBuilder } from '../../runtime/indexes/string-table.js';
import { postcodeKey } from '../../runtime/text/normalise.js';

export function buildPostcodeSections(ds: Pick<NormalisedDataset, 'postcodes' | 'countries'>): Record<string, Uint8Array> {
  // Rows are grouped by country row (the postcode's country_id; dangling ones last), as order.ts sorts them.
  const countryRowById = new Map(ds.countries.map((country, row) => [country.id, row]));
  const keys = new StringTableBuilder();
  const filters = new PostcodeFilterIndexBuilder();
  for (const postcode of ds.postcodes) {
    keys.add(postcodeKey(postcode.code));
    filters.add(postcode, countryRowById.get(postcode.country_id) ?? -1);
  }
  return {
    [POSTCODE_KEYS_SECTION]: keys.finish(),
    [POSTCODE_FILTERS_SECTION]: filters.finish(),
  };
}
