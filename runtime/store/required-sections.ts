// The sections a server reads. Checked when a snapshot is loaded, so a manifest that omits one is
// refused at start with every missing name, instead of starting and answering 500 on the first
// request that needs it. Built from the same name helpers the readers use.
import { ENTITY_NAMES } from '../format/model.js';
import { POSTCODE_FILTERS_SECTION } from '../format/postcode-sections.js';
import { POSTCODE_KEYS_SECTION, RELATIONS_SECTION, idsSection, recordsSection } from '../format/sections.js';

/** Entities with search indexes (runtime/engine/search/context.ts). */
const SEARCH_ENTITIES = ['countries', 'states', 'cities'] as const;

export const REQUIRED_SECTIONS: readonly string[] = [
  ...ENTITY_NAMES.flatMap((entity) => [recordsSection(entity), idsSection(entity)]),
  RELATIONS_SECTION,
  POSTCODE_KEYS_SECTION,
  POSTCODE_FILTERS_SECTION,
  ...SEARCH_ENTITIES.flatMap((entity) => [`geo.${entity}`, `prefix.${entity}`, `prefix-tr.${entity}`, `trigram.${entity}`]),
];

/** Required sections absent from `listed` (manifest section names), in REQUIRED_SECTIONS order. */
export function missingSections(listed: Iterable<string>): string[] {
  const have = new Set(listed);
  return REQUIRED_SECTIONS.filter((name) => !have.has(name));
}
