// The trigram matches of a query under match_score = max(similarity(q, text),
// similarity(unaccent(q), unaccent(text))) (decisions.md; PostgreSQL's pg_trgm and unaccent),
// from two indexes (build-index/sections/trigram.ts):
//   A  `trigram.`     q             every (row, field) doc: similarity(q, text)
//   B  `trigram-ua.`  unaccent(q)   docs whose trigrams unaccent changes: the unaccent half
//   C  `trigram.`     unaccent(q)   the unaccent half of every other doc (its text is its own
//                                   unaccent form, trigram-wise); only when unaccent changes q's
//                                   trigrams (else C = A), and without the changed docs, whose
//                                   scores against their accented text are not a match_score.
// A (row, field) may come back twice (A and B or C): callers keep the higher score.
//
// For an accented query A runs over the changed docs alone (`trigramChanged`, the same index
// restricted to them) when it can skip the others exactly: when q has at least as many trigrams
// as unaccent(q), and no unchanged doc holds a trigram of q that unaccent(q) lacks
// (`unchangedCodes`). An unchanged doc then shares with unaccent(q) every trigram it shares with
// q, so C's half is at least A's: A's score of it never decides. Such trigrams are the accented
// ones, which unchanged docs lack by definition (a hashed trigram's code can collide: then A runs
// in full). On the full dataset's cities that is 30k of 190k docs: A took 7.6 µs instead of 27
// (median over the search bench's accented fuzzy queries; mean 15 against 53).
//
// Top-k: A, B and C each return every doc scoring at least (the tie floor of) their own k-th best
// row score. The combined k-th best row score is at least each of theirs, so every doc that can
// still rank is returned with its higher half; a doc returned with only its lower half scores
// below what the first k rows reach and never displaces them. C leaves the changed docs out of
// its search (excludedDocs), so they never raise its bar; it runs only for accented queries.
// B then C start from the floor the searches before them ended with (TrigramIndex.resultFloor): the
// combined k-th best row score is at least A's, so a doc below A's floor cannot rank or tie, and
// a higher threshold lets B and C count fewer posting lists.
import { type TrigramIndex } from '../../indexes/trigram-index.js';
import { trigramsOf } from '../../text/trigram.js';
import { unaccent } from '../../text/unaccent.js';

/** The two trigram indexes of an entity, which docs the second holds, and what A needs to skip the others. */
export interface NameTrigrams {
  readonly trigram: TrigramIndex;
  readonly trigramUnaccented: TrigramIndex;
  /** Per doc of `trigram`: 1 when trigramUnaccented holds its (row, field), the docs C leaves out. */
  readonly changedDocs: Uint8Array;
  /** `trigram` restricted to the changed docs (TrigramIndex.subset): A's index for accented queries. */
  readonly trigramChanged: TrigramIndex;
  /** The trigram codes some unchanged doc of `trigram` holds, ascending (TrigramIndex.codesOutside). */
  readonly unchangedCodes: Int32Array;
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

/** changedDocs of `trigram` (see NameTrigrams): its docs whose (row, field) `trigramUnaccented` holds. */
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
  out.count = 0;
  const uq = unaccent(q);
  let accentedQuery = false;
  let changedOnly = false;
  // Most queries are their own unaccent form: no trigrams to compare.
  if (uq !== q) {
    const plainCodes = trigramsOf(q);
    const unaccentedCodes = trigramsOf(uq);
    accentedQuery = !sameCodes(unaccentedCodes, plainCodes);
    changedOnly = accentedQuery && skipsUnchanged(plainCodes, unaccentedCodes, indexes.unchangedCodes);
  }
  const plainFloor = run(changedOnly ? indexes.trigramChanged : indexes.trigram, q, threshold, options);
  const unaccentedFloor = run(indexes.trigramUnaccented, uq, plainFloor, options);
  if (accentedQuery) run(indexes.trigram, uq, Math.max(plainFloor, unaccentedFloor), options, indexes.changedDocs);
  return out;
}
