// The sections a server reads. Checked when a snapshot is loaded, so a manifest that omits one is
// refused at start with every missing name, instead of starting and answering 500 on the first
// request that needs it. Built from the same name helpers the readers use.
import { ENTITY_NAMES } from './model.js';
import {
  geoSection,
  idsSection,
  NAMED_ENTITIES,
  POSTCODE_FILTERS_SECTION,
  POSTCODE_KEYS_SECTION,
  prefixSection,
  prefixTranslationsSection,
  recordsSection,
  RELATIONS_SECTION,
  trigramPlainQueryInfoSection,
  trigramPlainQuerySection,
  trigramSection,
  trigramUnaccentSection,
} from './sections.js';

export const REQUIRED_SECTIONS: readonly string[] = [
  ...ENTITY_NAMES.flatMap((entity) => [recordsSection(entity), idsSection(entity)]),
  RELATIONS_SECTION,
  POSTCODE_KEYS_SECTION,
  POSTCODE_FILTERS_SECTION,
  // Nearby postcodes and reverse lookup (runtime/engine/search/context.ts).
  geoSection('postcodes'),
  // Search indexes of the named entities (runtime/engine/search/context.ts).
  ...NAMED_ENTITIES.flatMap((entity) => [geoSection(entity), prefixSection(entity), prefixTranslationsSection(entity), trigramSection(entity), trigramUnaccentSection(entity), trigramPlainQuerySection(entity), trigramPlainQueryInfoSection(entity)]),
];

/** Required sections absent from `listed` (manifest section names), in REQUIRED_SECTIONS order. */
export function missingSections(listed: Iterable<string>): string[] {
  const have = new Set(listed);
  return REQUIRED_SECTIONS.filter((name) => !have.has(name));
}
