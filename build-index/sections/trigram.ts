// `trigram.<entity>` sections (countries, states, cities): TrigramIndex
// (runtime/indexes/trigram-index.ts) over each row's name (field 0) and native name (field 1).
// A native name with the same trigrams as the name scores exactly as the name does, so it is
// left out (the name wins ties: matched_alias is the native only when it scores higher).
//
// `trigram-ua.<entity>`: the same over unaccent(name) / unaccent(native), for the other half of
// match_score = max(similarity(q, text), similarity(unaccent(q), unaccent(text))) (decisions.md).
// It holds a doc only where unaccent changes the text's trigrams ("changed" docs): for any other
// doc, similarity(unaccent(q), unaccent(text)) is similarity(unaccent(q), text), which the runtime
// reads from `trigram.<entity>` (runtime/engine/search/name-matches.ts). A native left out of
// `trigram.` (same trigrams as the name) gets a doc here when its unaccented trigrams differ from
// the unaccented name's, so the name's doc never stands for it wrongly.
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { NAMED_ENTITIES, trigramSection, trigramUnaccentSection } from '../../runtime/format/sections.js';
import { TRIGRAM_FIELD_NAME, TRIGRAM_FIELD_NATIVE, TrigramIndexBuilder } from '../../runtime/indexes/trigram-index.js';
import { trigramsOf } from '../../runtime/text/trigram.js';
import { unaccent } from '../../runtime/text/unaccent.js';

interface Named {
  name: string;
  native: string | null;
}

function sameTrigrams(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && a.every((code, i) => code === b[i]);
}

function trigramIndexesOf(records: readonly Named[]): { plain: Uint8Array; unaccented: Uint8Array } {
  const plain = new TrigramIndexBuilder();
  const unaccented = new TrigramIndexBuilder();
  records.forEach((record, row) => {
    const name = trigramsOf(record.name);
    plain.addTrigrams(row, TRIGRAM_FIELD_NAME, name);
    const unaccentedName = unaccent(record.name) === record.name ? name : trigramsOf(unaccent(record.name));
    if (!sameTrigrams(name, unaccentedName)) unaccented.addTrigrams(row, TRIGRAM_FIELD_NAME, unaccentedName);
    if (record.native === null) return;
    const native = trigramsOf(record.native);
    const unaccentedNative = unaccent(record.native) === record.native ? native : trigramsOf(unaccent(record.native));
    if (!sameTrigrams(name, native)) {
      plain.addTrigrams(row, TRIGRAM_FIELD_NATIVE, native);
      if (!sameTrigrams(native, unaccentedNative)) unaccented.addTrigrams(row, TRIGRAM_FIELD_NATIVE, unaccentedNative);
    } else if (!sameTrigrams(unaccentedName, unaccentedNative)) {
      unaccented.addTrigrams(row, TRIGRAM_FIELD_NATIVE, unaccentedNative);
    }
  });
  return { plain: plain.finish(), unaccented: unaccented.finish() };
}

export function buildTrigramSections(ds: Pick<NormalisedDataset, 'countries' | 'states' | 'cities'>): Record<string, Uint8Array> {
  const sections: Record<string, Uint8Array> = {};
  for (const entity of NAMED_ENTITIES) {
    const { plain, unaccented } = trigramIndexesOf(ds[entity]);
    sections[trigramSection(entity)] = plain;
    sections[trigramUnaccentSection(entity)] = unaccented;
  }
  return sections;
}
