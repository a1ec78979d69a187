// `prefix.<entity>` and `prefix-tr.<entity>` sections (countries, states, cities): PrefixIndex
// (runtime/indexes/prefix-index.ts) over matchKey() of each row's name and native name, and a
// separate one over its translations, so 2-character queries (translations match from 3) scan
// names only. A native or translation whose key equals the row's name (or native) key adds
// nothing — that row already matches through the name — and is left out.
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { NAMED_ENTITIES, prefixSection, prefixTranslationsSection, type NamedEntity } from '../../runtime/format/sections.js';
import { PREFIX_FIELD_NAME, PREFIX_FIELD_NATIVE, PREFIX_FIELD_TRANSLATION, PrefixIndexBuilder } from '../../runtime/indexes/prefix-index.js';
import { matchKey } from '../../runtime/text/normalise.js';

interface Named {
  name: string;
  native: string | null;
  translations: string | null;
}

/** The translated names in a record's translations JSON text ({locale: name}). */
export function translationValues(translations: string | null): string[] {
  if (translations === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(translations);
  } catch {
    throw new Error(`translations: expected JSON text, found ${JSON.stringify(translations.slice(0, 80))}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  return Object.values(parsed).filter((value): value is string => typeof value === 'string');
}

function prefixSections(entity: NamedEntity, records: readonly Named[]): Record<string, Uint8Array> {
  const names = new PrefixIndexBuilder();
  const translations = new PrefixIndexBuilder();
  records.forEach((record, row) => {
    const nameKey = matchKey(record.name);
    names.add(nameKey, row, PREFIX_FIELD_NAME);
    const nativeKey = record.native === null ? '' : matchKey(record.native);
    if (nativeKey !== nameKey) names.add(nativeKey, row, PREFIX_FIELD_NATIVE);
    for (const value of translationValues(record.translations)) {
      const key = matchKey(value);
      if (key !== nameKey && key !== nativeKey) translations.add(key, row, PREFIX_FIELD_TRANSLATION);
    }
  });
  return { [prefixSection(entity)]: names.finish(), [prefixTranslationsSection(entity)]: translations.finish() };
}

export function buildPrefixSections(ds: Pick<NormalisedDataset, 'countries' | 'states' | 'cities'>): Record<string, Uint8Array> {
  return Object.assign({}, ...NAMED_ENTITIES.map((entity) => prefixSections(entity, ds[entity]))) as Record<string, Uint8Array>;
}
