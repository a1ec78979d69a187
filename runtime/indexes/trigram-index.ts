// Fuzzy search: every document whose pg_trgm similarity() to the query reaches a threshold,
// with that exact similarity — the same answer as scoring every document by brute force.
// Documents are (row, field) pairs (field 0 name, 1 native), numbered in (row, field) order so
// posting lists ascend by row and a contiguous row range (a country's cities) is a doc range.
//
// Search counts, per document, the query trigrams it shares (c), then similarity =
// float4(c / (nq + nd − c)). A document can only reach the threshold t if c ≥ minCommon, the
// least c with c/nq ≥ t (the score when nd = c), so it must appear in one of the
// (lists − minCommon + 1) shortest posting lists of the query: those are counted; the longer
// ones only complete the counts of documents already found (exact, and it skips the long lists
// of common trigrams such as "  s").
//
// Payload (`trigram.<entity>`): ArrayPack of
//   0 codes            Int32Array(trigrams)      distinct trigram codes (trigram.ts), ascending
//   1 postingStarts    Int32Array(trigrams + 1)  postings of codes[i]: postingStarts[i] .. [i + 1]
//   2 postings         Int32Array                doc numbers, ascending within each list
//   3 docRow           Int32Array(docs)          ascending
//   4 docField         Uint8Array(docs)
//   5 docTrigramCount  Uint16Array(docs)
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';
import { trigramsOf } from '../text/trigram.js';

export const TRIGRAM_FIELD_NAME = 0;
export const TRIGRAM_FIELD_NATIVE = 1;
export type TrigramField = typeof TRIGRAM_FIELD_NAME | typeof TRIGRAM_FIELD_NATIVE;

export interface TrigramMatches {
  /** Matching doc numbers, in no particular order (the same order for the same index and query). */
  docs: Int32Array;
  /** similarity(query, doc text), parallel to docs. */
  scores: Float64Array;
}

export interface TrigramSearchOptions {
  /** Only documents of rows in [rowStart, rowEnd). */
  rowStart?: number;
  rowEnd?: number;
}

interface PendingDoc {
  row: number;
  field: number;
  trigrams: Int32Array;
}

export class TrigramIndexBuilder {
  private readonly docs: PendingDoc[] = [];

  /** Adds a document; text without trigrams (no letters or digits) can never match and is skipped. */
  add(row: number, field: TrigramField, text: string): this {
    return this.addTrigrams(row, field, trigramsOf(text));
  }

  /** As add(), with trigramsOf(text) already computed. */
  addTrigrams(row: number, field: TrigramField, trigrams: Int32Array): this {
    if (!Number.isInteger(row) || row < 0 || row > 0x7fffffff) throw new RangeError(`trigram index: row must be a non-negative 32-bit integer, found ${row}`);
    if (field !== TRIGRAM_FIELD_NAME && field !== TRIGRAM_FIELD_NATIVE) throw new RangeError(`trigram index: field must be 0 (name) or 1 (native), found ${String(field)}`);
    if (trigrams.length > 0xffff) throw new RangeError(`trigram index: expected at most 65535 trigrams per document, found ${trigrams.length} (row ${row})`);
    if (trigrams.length > 0) this.docs.push({ row, field, trigrams });
    return this;
  }

  finish(): Uint8Array {
    const docs = this.docs.sort((a, b) => a.row - b.row || a.field - b.field);
    for (let i = 1; i < docs.length; i++) {
      if (docs[i]!.row === docs[i - 1]!.row && docs[i]!.field === docs[i - 1]!.field) {
        throw new Error(`trigram index: expected one document per (row, field), found two for row ${docs[i]!.row} field ${docs[i]!.field}`);
      }
    }
    // Count each code's documents, lay the lists out in code order, then fill them in doc order
    // (so every list ascends).
    const docCounts = new Map<number, number>();
    let postingCount = 0;
    for (const doc of docs) {
      for (const code of doc.trigrams) docCounts.set(code, (docCounts.get(code) ?? 0) + 1);
      postingCount += doc.trigrams.length;
    }
    const codes = Int32Array.from(docCounts.keys()).sort();
    const postingStarts = new Int32Array(codes.length + 1);
    const slotOfCode = new Map<number, number>();
    for (let i = 0; i < codes.length; i++) {
      postingStarts[i + 1] = postingStarts[i]! + docCounts.get(codes[i]!)!;
      slotOfCode.set(codes[i]!, i);
    }
    const postings = new Int32Array(postingCount);
    const fill = postingStarts.slice(0, codes.length);
    const docRow = new Int32Array(docs.length);
    const docField = new Uint8Array(docs.length);
    const docTrigramCount = new Uint16Array(docs.length);
    docs.forEach((doc, d) => {
      docRow[d] = doc.row;
      docField[d] = doc.field;
      docTrigramCount[d] = doc.trigrams.length;
      for (const code of doc.trigrams) postings[fill[slotOfCode.get(code)!]!++] = d;
    });
    return new ArrayPackBuilder().add(codes).add(postingStarts).add(postings).add(docRow).add(docField).add(docTrigramCount).finish();
  }
}

export class TrigramIndex {
  // Scratch reused by every search (allocated on first use): shared-trigram counters per doc
  // (0 = untouched), the touched docs, their scores, and the query's posting lists.
  private counters: Uint16Array | null = null;
  private touched: Int32Array | null = null;
  private scoreScratch: Float64Array | null = null;
  private listStarts = new Int32Array(64);
  private listEnds = new Int32Array(64);
  private listOrder: number[] = [];

  private constructor(
    private readonly codes: Int32Array,
    private readonly postingStarts: Int32Array,
    private readonly postings: Int32Array,
    private readonly docRows: Int32Array,
    private readonly docFields: Uint8Array,
    private readonly docTrigramCounts: Uint16Array,
  ) {}

  static from(buffer: ArrayBufferLike, byteOffset = 0, what = 'trigram index'): TrigramIndex {
    const pack = ArrayPack.from(buffer, byteOffset, what);
    const codes = pack.get(0, Int32Array, what);
    const postingStarts = pack.get(1, Int32Array, what);
    const postings = pack.get(2, Int32Array, what);
    const docRow = pack.get(3, Int32Array, what);
    const docField = pack.get(4, Uint8Array, what);
    const docTrigramCount = pack.get(5, Uint16Array, what);
    if (postingStarts.length !== codes.length + 1 || postingStarts[codes.length] !== postings.length) {
      throw new SnapshotFormatError(`${what}: expected ${codes.length + 1} posting starts ending at ${postings.length}, found ${postingStarts.length} ending at ${postingStarts[postingStarts.length - 1]}`);
    }
    if (docField.length !== docRow.length || docTrigramCount.length !== docRow.length) {
      throw new SnapshotFormatError(`${what}: expected ${docRow.length} doc fields and trigram counts, found ${docField.length} and ${docTrigramCount.length}`);
    }
    return new TrigramIndex(codes, postingStarts, postings, docRow, docField, docTrigramCount);
  }

  get docCount(): number {
    return this.docRows.length;
  }

  docRow(doc: number): number {
    return this.docRows[doc]!;
  }

  docField(doc: number): TrigramField {
    return this.docFields[doc]! as TrigramField;
  }

  docTrigramCount(doc: number): number {
    return this.docTrigramCounts[doc]!;
  }

  /**
   * Every document (of rows in [rowStart, rowEnd) when given) with similarity(query, text) ≥
   * threshold, and its similarity. `threshold` must be in (0, 1].
   */
  search(query: string, threshold: number, options: TrigramSearchOptions = {}): TrigramMatches {
    if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`trigram search: threshold must be in (0, 1], found ${threshold}`);
    const queryTrigrams = trigramsOf(query);
    const nq = queryTrigrams.length;
    if (nq === 0 || this.docRows.length === 0) return { docs: new Int32Array(0), scores: new Float64Array(0) };
    let minCommon = 1;
    while (minCommon <= nq && Math.fround(minCommon / nq) < threshold) minCommon++;
    if (minCommon > nq) return { docs: new Int32Array(0), scores: new Float64Array(0) };

    const [docStart, docEnd] = this.docRange(options.rowStart ?? 0, options.rowEnd ?? 0x7fffffff);
    const listCount = this.collectLists(queryTrigrams, docStart, docEnd);
    if (listCount < minCommon) return { docs: new Int32Array(0), scores: new Float64Array(0) };

    const counters = (this.counters ??= new Uint16Array(this.docRows.length));
    const touched = (this.touched ??= new Int32Array(this.docRows.length));
    const postings = this.postings;
    const order = this.listOrder;
    const countedLists = listCount - minCommon + 1;
    let touchedCount = 0;
    for (let l = 0; l < countedLists; l++) {
      const list = order[l]!;
      for (let p = this.listStarts[list]!, end = this.listEnds[list]!; p < end; p++) {
        const doc = postings[p]!;
        if (counters[doc]++ === 0) touched[touchedCount++] = doc;
      }
    }
    for (let l = countedLists; l < listCount; l++) {
      const list = order[l]!;
      const start = this.listStarts[list]!;
      const end = this.listEnds[list]!;
      if (touchedCount * Math.log2(end - start + 2) < end - start) {
        for (let t = 0; t < touchedCount; t++) {
          const doc = touched[t]!;
          if (contains(postings, start, end, doc)) counters[doc]++;
        }
      } else {
        for (let p = start; p < end; p++) {
          const doc = postings[p]!;
          if (counters[doc]! > 0) counters[doc]++;
        }
      }
    }

    // Score and reset the counters; matches gather at the head of touched.
    const scoreScratch = (this.scoreScratch ??= new Float64Array(this.docRows.length));
    const docTrigramCounts = this.docTrigramCounts;
    let matchCount = 0;
    for (let t = 0; t < touchedCount; t++) {
      const doc = touched[t]!;
      const common = counters[doc]!;
      counters[doc] = 0;
      if (common < minCommon) continue;
      // similarityFromCounts(common, nq, nd), inlined (nq, nd > 0 here).
      const score = Math.fround(common / (nq + docTrigramCounts[doc]! - common));
      if (score >= threshold) {
        touched[matchCount] = doc;
        scoreScratch[matchCount++] = score;
      }
    }
    const docs = touched.slice(0, matchCount);
    const scores = scoreScratch.slice(0, matchCount);
    return { docs, scores };
  }

  /** Docs of rows in [rowStart, rowEnd): a doc range, since docs ascend by row. */
  private docRange(rowStart: number, rowEnd: number): [number, number] {
    if (rowStart <= 0 && rowEnd >= 0x7fffffff) return [0, this.docRows.length];
    return [lowerBound(this.docRows, 0, this.docRows.length, rowStart), lowerBound(this.docRows, 0, this.docRows.length, rowEnd)];
  }

  /** Finds the posting list of each query trigram (cut to the doc range); orders them shortest first. */
  private collectLists(queryTrigrams: Int32Array, docStart: number, docEnd: number): number {
    if (this.listStarts.length < queryTrigrams.length) {
      this.listStarts = new Int32Array(queryTrigrams.length);
      this.listEnds = new Int32Array(queryTrigrams.length);
    }
    const whole = docStart === 0 && docEnd === this.docRows.length;
    let count = 0;
    for (const code of queryTrigrams) {
      const slot = lowerBound(this.codes, 0, this.codes.length, code);
      if (slot === this.codes.length || this.codes[slot] !== code) continue;
      let start = this.postingStarts[slot]!;
      let end = this.postingStarts[slot + 1]!;
      if (!whole) {
        start = lowerBound(this.postings, start, end, docStart);
        end = lowerBound(this.postings, start, end, docEnd);
      }
      if (start === end) continue;
      this.listStarts[count] = start;
      this.listEnds[count] = end;
      count++;
    }
    const order = this.listOrder;
    order.length = count;
    for (let i = 0; i < count; i++) order[i] = i;
    order.sort((a, b) => this.listEnds[a]! - this.listStarts[a]! - (this.listEnds[b]! - this.listStarts[b]!));
    return count;
  }
}

/** First position in [start, end) of an ascending array holding a value ≥ value. */
function lowerBound(array: Int32Array, start: number, end: number, value: number): number {
  let lo = start;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (array[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function contains(array: Int32Array, start: number, end: number, value: number): boolean {
  const at = lowerBound(array, start, end, value);
  return at < end && array[at] === value;
}
