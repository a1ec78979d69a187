// The trigram matches of a query under match_score = max(similarity(q, text),
// similarity(unaccent(q), unaccent(text))) (decisions.md; PostgreSQL's pg_trgm and unaccent),
// from two indexes (build-index/sections/trigram.ts):
//   A  `trigram.`     every (row, field) doc, by its text's trigrams
//   P  `trigram-pq.`  per (row, field): its text's trigrams where unaccent leaves them alone
//                     ("unchanged" docs); else ("changed") its unaccented trigrams, and its own
//                     too ("own docs") unless they can never score higher for a plain query
// A plain query (unaccent(q) has q's trigrams: most queries) searches P alone: one search gives
// every (row, field) its match_score. Any other query searches A with q, the plain half, then P
// with unaccent(q) without the own docs, the unaccent half of every (row, field); a (row, field)
// may then come back twice, and callers keep the higher score. (`trigram-ua.`, the changed docs'
// unaccented trigrams alone, now only says which docs are changed.)
//
// Why P alone is exact for a plain query: P leaves a changed doc's own trigrams out only when its
// unaccented ones are no more, and the codes its own hold beyond them ("lost" codes, P's guard
// codes) are none of q's. q then shares with the text's trigrams only codes the unaccented ones
// hold too: similarity(q, unaccent(text)) ≥ similarity(q, text) (c / (nq + n − c) grows with c and
// falls with n), and as q is its own unaccent form, that is the unaccent half: the match_score.
// Every other doc of P scores one of the two halves of its (row, field), and both are there. Lost
// codes in the ASCII range (all three bytes < 0x80) are never guard codes (the doc keeps its own
// trigrams instead), so a query of ASCII characters, whose codes all are, needs no check; others
// check each code (plainQueryAdmits) and take the two searches when one is a guard code. P is a
// little larger than A (a (row, field) may have two docs), but one search instead of two or three:
// fuzzy at 0.3 on the full dataset, the http bench's distinct queries, mean of each query's fastest
// of 5: ASCII ones 78.5 → 64.6 µs, accented ones (two searches, P's second instead of two) 144.9 →
// 116.3 µs.
//
// For the other queries A runs over the changed docs alone (`trigramChanged`, the same index
// restricted to them) when it can skip the others exactly: when q has at least as many trigrams
// as unaccent(q), and no unchanged doc holds a trigram of q that unaccent(q) lacks
// (`unchangedCodes`). An unchanged doc then shares with unaccent(q) every trigram it shares with
// q, so its unaccent half (from P) is at least its plain half: A's score of it never decides.
// Such trigrams are the accented ones, which unchanged docs lack by definition (a hashed
// trigram's code can collide: then A runs in full). On the full dataset's cities that is 30k of
// 190k docs: A took 7.6 µs instead of 27 (median over the search bench's accented fuzzy
// queries; mean 15 against 53).
//
// Top-k: each search returns every doc scoring at least (the tie floor of) its own k-th best row
// score. The combined k-th best row score is at least each of theirs, so every doc that can still
// rank is returned with its higher half; a doc returned with only its lower half scores below what
// the first k rows reach and never displaces them. The second search leaves the own docs out
// (excludedDocs), so their plain-half scores never raise its bar, and starts from the floor the
// first ended with (TrigramIndex.resultFloor): the combined k-th best row score is at least A's,
// so a doc below A's floor cannot rank or tie, and a higher threshold counts fewer posting lists.
import { type TrigramIndex } from '../../indexes/trigram-index.js';
import { isAsciiRangeCode, trigramsOf } from '../../text/trigram.js';
import { unaccent } from '../../text/unaccent.js';

/** The trigram indexes of an entity (see above) and what each search needs besides. */
export interface NameTrigrams {
  readonly trigram: TrigramIndex;
  /** `trigram` restricted to the changed docs (TrigramIndex.subset): A's index for the queries searched by halves, where it can. */
  readonly trigramChanged: TrigramIndex;
  /** The trigram codes some unchanged doc of `trigram` holds, ascending (TrigramIndex.codesOutside). */
  readonly unchangedCodes: Int32Array;
  readonly trigramPlainQuery: TrigramIndex;
  /** P's guard codes, ascending: a plain query holding one takes the two searches. */
  readonly plainQueryGuard: Int32Array;
  /** Per doc of P: 1 for the own docs, which the unaccent half leaves out. */
  readonly plainQueryOwnDocs: Uint8Array;
}

export interface NameMatchOptions {
  rowStart: number;
  rowEnd: number;
  /** Top-k rows (TrigramIndex.searchTop) when given, else every match. */
  k?: number;
  tieFloor?: (kth: number) => number;
}

/** What nameMatches returns: [0, count) of the arrays (which may be longer). */
export interface NameMatches {
  count: number;
  rows: Int32Array;
  fields: Uint8Array;
  scores: Float64Array;
}

/**
 * The thread's answer, reused by every call (searches run one at a time per thread, and callers
 * read it at once): new typed arrays per search each cost an ArrayBuffer's backing store.
 */
const out: NameMatches = { count: 0, rows: new Int32Array(256), fields: new Uint8Array(256), scores: new Float64Array(256) };

function reserve(more: number): void {
  const needed = out.count + more;
  if (needed <= out.rows.length) return;
  const size = Math.max(needed, out.rows.length * 2);
  const rows = new Int32Array(size);
  const fields = new Uint8Array(size);
  const scores = new Float64Array(size);
  rows.set(out.rows.subarray(0, out.count));
  fields.set(out.fields.subarray(0, out.count));
  scores.set(out.scores.subarray(0, out.count));
  out.rows = rows;
  out.fields = fields;
  out.scores = scores;
}

/** Per doc of `trigram`: 1 for the changed docs (see above), whose (row, field) `trigramUnaccented` holds. */
export function changedDocsOf(trigram: TrigramIndex, trigramUnaccented: TrigramIndex, rowCount: number): Uint8Array {
  // Per row, bit (1 << field) for each field the second index holds.
  const fields = new Uint8Array(rowCount);
  for (let doc = 0; doc < trigramUnaccented.docCount; doc++) fields[trigramUnaccented.docRow(doc)]! |= 1 << trigramUnaccented.docField(doc);
  const changed = new Uint8Array(trigram.docCount);
  for (let doc = 0; doc < trigram.docCount; doc++) changed[doc] = (fields[trigram.docRow(doc)]! >>> trigram.docField(doc)) & 1;
  return changed;
}

function sameCodes(a: Int32Array, b: Int32Array): boolean {
  return a.length === b.length && a.every((code, i) => code === b[i]);
}

/**
 * Whether A may run over the changed docs alone (see above): q's trigrams at least as many as
 * unaccent(q)'s, and none of q's missing from unaccent(q) held by an unchanged doc. Both code
 * lists ascend.
 */
function skipsUnchanged(plainCodes: Int32Array, unaccentedCodes: Int32Array, unchangedCodes: Int32Array): boolean {
  if (plainCodes.length < unaccentedCodes.length) return false;
  let u = 0;
  for (const code of plainCodes) {
    while (u < unaccentedCodes.length && unaccentedCodes[u]! < code) u++;
    if (u < unaccentedCodes.length && unaccentedCodes[u] === code) continue;
    if (holds(unchangedCodes, code)) return false;
  }
  return true;
}

/** Whether P may answer a plain query alone (see above): none of its codes is a guard code. */
function plainQueryAdmits(codes: Int32Array, guard: Int32Array): boolean {
  for (const code of codes) if (!isAsciiRangeCode(code) && holds(guard, code)) return false;
  return true;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** Whether an ascending array holds `value`. */
function holds(ascending: Int32Array, value: number): boolean {
  let lo = 0;
  let hi = ascending.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ascending[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo < ascending.length && ascending[lo] === value;
}

/** Runs one search and appends its (row, field, score) matches to `out`; returns its floor. */
function run(index: TrigramIndex, q: string, threshold: number, options: NameMatchOptions, excludedDocs?: Uint8Array): number {
  // One object shape for every call: `{ ...range, tieFloor }` made V8 create a hidden class per
  // call (a map transition on tieFloor from the spread's copy, with its descriptors and an inline
  // cache handler), all in the old generation: ~0.5 KB of it per autocomplete request.
  const searchOptions = { rowStart: options.rowStart, rowEnd: options.rowEnd, excludedDocs, tieFloor: options.tieFloor };
  const count = index.searchInPlace(q, threshold, options.k ?? 0, searchOptions);
  reserve(count);
  const docs = index.resultDocs;
  const scores = index.resultScores;
  for (let i = 0; i < count; i++) {
    const doc = docs[i]!;
    out.rows[out.count] = index.docRow(doc);
    out.fields[out.count] = index.docField(doc);
    out.scores[out.count++] = scores[i]!;
  }
  return index.resultFloor;
}

/**
 * Every (row, field, score) the caller needs (see above); scores are float4 values like
 * similarity(). The answer is the thread's reused one: valid until the next call.
 */
export function nameMatches(indexes: NameTrigrams, q: string, threshold: number, options: NameMatchOptions): NameMatches {
  const uq = unaccent(q);
  // Most queries are ASCII and their own unaccent form: no trigrams to compare or check.
  const plainCodes = uq === q && isAscii(q) ? null : trigramsOf(q);
  const unaccentedCodes = plainCodes === null || uq === q ? plainCodes : trigramsOf(uq);
  if (plainCodes === null || (sameCodes(unaccentedCodes!, plainCodes) && plainQueryAdmits(plainCodes, indexes.plainQueryGuard))) {
    out.count = 0;
    run(indexes.trigramPlainQuery, q, threshold, options);
    return out;
  }
  return byHalves(indexes, q, uq, plainCodes, unaccentedCodes!, threshold, options);
}

/**
 * nameMatches the other way, its two searches, whatever q: a plain query's matches as they would
 * be without `trigram-pq.` alone (tests compare the two).
 */
export function nameMatchesByHalves(indexes: NameTrigrams, q: string, threshold: number, options: NameMatchOptions): NameMatches {
  const uq = unaccent(q);
  const plainCodes = trigramsOf(q);
  return byHalves(indexes, q, uq, plainCodes, uq === q ? plainCodes : trigramsOf(uq), threshold, options);
}

/** The plain half (A, over the changed docs alone when it can skip the others), then the unaccent half (P without the own docs). */
function byHalves(indexes: NameTrigrams, q: string, uq: string, plainCodes: Int32Array, unaccentedCodes: Int32Array, threshold: number, options: NameMatchOptions): NameMatches {
  out.count = 0;
  const changedOnly = skipsUnchanged(plainCodes, unaccentedCodes, indexes.unchangedCodes);
  const plainFloor = run(changedOnly ? indexes.trigramChanged : indexes.trigram, q, threshold, options);
  run(indexes.trigramPlainQuery, uq, plainFloor, options, indexes.plainQueryOwnDocs);
  return out;
}
