// `trigram.<entity>` sections (countries, states, cities): TrigramIndex
// (runtime/indexes/trigram-index.ts) over each row's name (field 0) and native name (field 1).
// A native name with the same trigrams as the name scores exactly as the name does, so it is
// left out (the name wins ties: matched_alias is the native only when it scores higher).
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { NAMED_ENTITIES, trigramSection } from '../../runtime/format/sections.js';
import { TRIGRAM_FIELD_NAME, TRIGRAM_FIELD_NATIVE, TrigramIndexBuilder } from '../../runtime/indexes/trigram-index.js';
import { trigramsOf } from '../../runtime/text/trigram.js';

interface Named {
  name: string;
  native: string | null;
}

function sameTrigrams(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && a.every((code, i) => code === b[i]);
}

function trigramIndexOf(records: readonly Named[]): Uint8Array {
  const builder = new TrigramIndexBuilder();
  records.forEach((record, row) => {
    const name = trigramsOf(record.name);
    builder.addTrigrams(row, TRIGRAM_FIELD_NAME, name);
    if (record.native === null) return;
    const native = trigramsOf(record.native);
    if (!sameTrigrams(name, native)) builder.addTrigrams(row, TRIGRAM_FIELD_NATIVE, native);
  });
  return builder.finish();
}

export function buildTrigramSections(ds: Pick<NormalisedDataset, 'countries' | 'states' | 'cities'>): Record<string, Uint8Array> {
  return Object.fromEntries(NAMED_ENTITIES.map((entity) => [trigramSection(entity), trigramIndexOf(ds[entity])]));
}
