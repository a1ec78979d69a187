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
// the unaccented name's, so the name's doc never stands for it wrongly. The runtime reads from it
// which docs are changed; it searches `trigram-pq.` instead.
//
// `trigram-pq.<entity>` and `trigram-pq-info.<entity>`: see PlainQueryDocs.
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { ArrayPackBuilder } from '../../runtime/format/array-pack.js';
import { NAMED_ENTITIES, trigramPlainQueryInfoSection, trigramPlainQuerySection, trigramSection, trigramUnaccentSection } from '../../runtime/format/sections.js';
import { TRIGRAM_FIELD_NAME, TRIGRAM_FIELD_NATIVE, TrigramIndexBuilder, type TrigramField } from '../../runtime/indexes/trigram-index.js';
import { isAsciiRangeCode, trigramsOf } from '../../runtime/text/trigram.js';
import { unaccent } from '../../runtime/text/unaccent.js';

interface Named {
  name: string;
  native: string | null;
}

function sameTrigrams(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && a.every((code, i) => code === b[i]);
}

/**
 * `trigram-pq.` and `trigram-pq-info.`, one (row, field) at a time, in (row, field) order. A doc
 * of `trigram.` that `trigram-ua.` also holds ("changed") gets its unaccented trigrams
 * `unaccented`, then its own `plain` too (an "own doc"), unless those can never score higher for
 * a plain query q (unaccent(q) has q's trigrams): when `unaccented` has no more trigrams and the
 * codes `plain` holds beyond it ("lost") are outside q. q then shares at least as many codes with
 * `unaccented` as with `plain`, which has no fewer trigrams. The lost codes become guard codes,
 * which the runtime checks q against (runtime/engine/search/name-matches.ts); a lost code in the
 * ASCII range, which ordinary queries hold, makes the doc keep its own trigrams instead, so that
 * queries of ASCII characters never need the check.
 */
class PlainQueryDocs {
  private readonly index = new TrigramIndexBuilder({ repeatedDocs: true });
  private readonly guard = new Set<number>();
  /** Per doc added (with trigrams), in the order added: 1 for an own doc. */
  private readonly ownDocs: number[] = [];
  private lastKey = -1;

  add(row: number, field: TrigramField, plain: Int32Array | null, unaccented: Int32Array | null): void {
    // Each (row, field) once: the own-doc rule above is per (row, field).
    const key = row * 2 + field;
    if (key <= this.lastKey) throw new Error(`trigram-pq: expected docs in (row, field) order, found row ${row} field ${field} after row ${this.lastKey >> 1}`);
    this.lastKey = key;
    if (unaccented === null) {
      if (plain !== null) this.addDoc(row, field, plain, 0);
      return;
    }
    this.addDoc(row, field, unaccented, 0);
    if (plain === null) return;
    const kept = new Set(unaccented);
    const lost = plain.filter((code) => !kept.has(code));
    if (unaccented.length > plain.length || lost.some(isAsciiRangeCode)) this.addDoc(row, field, plain, 1);
    else for (const code of lost) this.guard.add(code);
  }

  private addDoc(row: number, field: TrigramField, trigrams: Int32Array, own: number): void {
    if (trigrams.length === 0) return; // the builder leaves it out: it never matches
    this.index.addTrigrams(row, field, trigrams);
    this.ownDocs.push(own);
  }

  finish(): { index: Uint8Array; info: Uint8Array } {
    const index = this.index.finish();
    // The builder numbers docs by trigram count first: the flags go by doc number.
    const docNumbers = this.index.addedDocNumbers();
    const ownDocs = new Uint8Array(this.ownDocs.length);
    this.ownDocs.forEach((own, added) => (ownDocs[docNumbers[added]!] = own));
    return { index, info: new ArrayPackBuilder().add(Int32Array.from(this.guard).sort()).add(ownDocs).finish() };
  }
}

function trigramIndexesOf(records: readonly Named[]): { plain: Uint8Array; unaccented: Uint8Array; plainQuery: { index: Uint8Array; info: Uint8Array } } {
  const plain = new TrigramIndexBuilder();
  const unaccented = new TrigramIndexBuilder();
  const plainQuery = new PlainQueryDocs();
  records.forEach((record, row) => {
    const name = trigramsOf(record.name);
    plain.addTrigrams(row, TRIGRAM_FIELD_NAME, name);
    const unaccentedName = unaccent(record.name) === record.name ? name : trigramsOf(unaccent(record.name));
    const nameChanged = !sameTrigrams(name, unaccentedName);
    if (nameChanged) unaccented.addTrigrams(row, TRIGRAM_FIELD_NAME, unaccentedName);
    plainQuery.add(row, TRIGRAM_FIELD_NAME, name, nameChanged ? unaccentedName : null);
    if (record.native === null) return;
    const native = trigramsOf(record.native);
    const unaccentedNative = unaccent(record.native) === record.native ? native : trigramsOf(unaccent(record.native));
    if (!sameTrigrams(name, native)) {
      plain.addTrigrams(row, TRIGRAM_FIELD_NATIVE, native);
      const nativeChanged = !sameTrigrams(native, unaccentedNative);
      if (nativeChanged) unaccented.addTrigrams(row, TRIGRAM_FIELD_NATIVE, unaccentedNative);
      plainQuery.add(row, TRIGRAM_FIELD_NATIVE, native, nativeChanged ? unaccentedNative : null);
    } else if (!sameTrigrams(unaccentedName, unaccentedNative)) {
      unaccented.addTrigrams(row, TRIGRAM_FIELD_NATIVE, unaccentedNative);
      // Its own trigrams are the name's, which stand for it in `trigram.` as here.
      plainQuery.add(row, TRIGRAM_FIELD_NATIVE, null, unaccentedNative);
    }
  });
  return {
    plain: plain.finish(),
    unaccented: unaccented.finish(),
    plainQuery: plainQuery.finish(),
  };
}

export function buildTrigramSections(ds: Pick<NormalisedDataset, 'countries' | 'states' | 'cities'>): Record<string, Uint8Array> {
  const sections: Record<string, Uint8Array> = {};
  for (const entity of NAMED_ENTITIES) {
    const { plain, unaccented, plainQuery } = trigramIndexesOf(ds[entity]);
    sections[trigramSection(entity)] = plain;
    sections[trigramUnaccentSection(entity)] = unaccented;
    sections[trigramPlainQuerySection(entity)] = plainQuery.index;
    sections[trigramPlainQueryInfoSection(entity)] = plainQuery.info;
  }
  return sections;
}
