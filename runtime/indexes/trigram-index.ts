// Fuzzy search: every document whose pg_trgm similarity() to the query reaches a threshold,
// with that exact similarity — the same answer as scoring every document by brute force.
// Documents are (row, field) pairs (field 0 name, 1 native), numbered in (row, field) order so
// posting lists ascend by row and a contiguous row range (a country's cities) is a doc range.
//
// Search prunes with the score's bounds (see TrigramIndex.run): only the shortest posting lists
// of the query are counted, docs whose trigram count rules them out are never admitted, and the
// few remaining candidates are checked against the long lists by binary search — exact, and it
// skips most of the long lists of common trigrams such as "  s". searchTop() also raises the bar
// to the k-th best row score found so far, for callers that rank rows and keep the first k.
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

/**
 * Posting lists at least this long (the common trigrams, ~120 of 62k for the full dataset's
 * cities, ~2.5 MB) also get a membership bitmap on first use: checking a candidate against them
 * is then one bit, not a scan of the list or a binary search.
 */
const BITMAP_MIN_POSTINGS = 2048;

/** A doc's state counts up to 255 lists; queries with more take TrigramIndex.runWide(). */
const MAX_COUNTED_LISTS = 0xff;

/** Layout version of sharedBitmaps()'s buffer. */
const BITMAPS_LAYOUT = 1;

export const TRIGRAM_FIELD_NAME = 0;
export const TRIGRAM_FIELD_NATIVE = 1;
export type TrigramField = typeof TRIGRAM_FIELD_NAME | typeof TRIGRAM_FIELD_NATIVE;

export interface TrigramMatches {
  /** Matching doc numbers, in no particular order (the same order for the same index and query). */
  docs: Int32Array;
  /** similarity(query, doc text), parallel to docs. */
  scores: Float64Array;
  /**
   * Every doc (within the options) scoring at least this is in docs: the threshold, or for
   * searchTop the bar it ended with (the tie floor of the k-th best row score, when k rows reach
   * the threshold). A caller merging several searches may start the next one from it.
   */
  floor: number;
}

export interface TrigramSearchOptions {
  /** Only documents of rows in [rowStart, rowEnd). */
  rowStart?: number;
  rowEnd?: number;
  /**
   * searchTop only: the lowest score that can still tie a k-th best row scoring `kth` under the
   * caller's ranking (default: `kth` itself). Callers ranking by a rounded score return the
   * bottom of kth's rounding interval, so every row whose rounded score ties the k-th row's is
   * returned and the caller's later rules decide among them. Must be ≤ kth.
   */
  tieFloor?: (kth: number) => number;
  /**
   * Docs flagged nonzero here (indexed by doc) are never matches and never raise a top-k bar: a
   * caller that drops some docs afterwards can still take the top-k cut over the others.
   */
  excludedDocs?: Uint8Array;
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
  // Scratch reused by every search (allocated on first use; one search at a time per index).
  /**
   * Per doc: min(trigram count, 255) << 8 | query trigrams counted so far (0 = untouched this
   * search). Two bytes keep it cache-friendly; a clamped count only makes the bounds looser
   * (verification reads the exact count), and counts stay below 256 because queries with more
   * posting lists take runWide().
   */
  private docState: Uint16Array | null = null;
  private wideCounters: Uint16Array | null = null;
  /** Touched docs, then the candidates (compacted in place), then the matches. */
  private touched: Int32Array | null = null;
  /** Match scores (float4 values, exact in a Float32Array), parallel to the matches. */
  private matchScores: Float32Array | null = null;
  private listStarts = new Int32Array(64);
  private listEnds = new Int32Array(64);
  /** Per list of the current query: the membership bitmap of its trigram when it is a long one, else null. */
  private listBitmaps: (Int32Array | null)[] = [];
  /** Membership bitmaps (bit d = doc d holds the trigram) of long posting lists, by trigram slot, built on first use. */
  private readonly bitmapsBySlot = new Map<number, Int32Array>();
  private listOrder = new Int32Array(64);
  /** maxTrigramsFor[c]: the most trigrams a doc sharing c query trigrams may have and still reach the threshold. */
  private maxTrigramsFor = new Int32Array(64);
  private readonly best = new BestRows();

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

  /**
   * Builds what searches otherwise build on first use — the per-doc state, the scratch arrays and
   * the membership bitmap of every long posting list — so no request pays for it.
   */
  prepare(): void {
    this.docStateArray();
    this.touched ??= new Int32Array(this.docRows.length);
    this.matchScores ??= new Float32Array(this.docRows.length);
    for (let slot = 0; slot < this.codes.length; slot++) {
      if (this.postingStarts[slot + 1]! - this.postingStarts[slot]! >= BITMAP_MIN_POSTINGS) this.bitmapOf(slot);
    }
  }

  /**
   * Every long list's membership bitmap in one SharedArrayBuffer (ArrayPack: header [layout,
   * docs, BITMAP_MIN_POSTINGS], slots, words: one bitmap of ceil(docs / 32) words per slot), so
   * the main thread builds them once and every worker thread reads the same bytes (useBitmaps).
   */
  sharedBitmaps(): SharedArrayBuffer {
    const slots: number[] = [];
    for (let slot = 0; slot < this.codes.length; slot++) {
      if (this.postingStarts[slot + 1]! - this.postingStarts[slot]! >= BITMAP_MIN_POSTINGS) slots.push(slot);
    }
    const wordsPerBitmap = (this.docRows.length + 31) >>> 5;
    const words = new Int32Array(slots.length * wordsPerBitmap);
    slots.forEach((slot, i) => words.set(this.bitmapOf(slot), i * wordsPerBitmap));
    return new ArrayPackBuilder().add(Int32Array.of(BITMAPS_LAYOUT, this.docRows.length, BITMAP_MIN_POSTINGS)).add(Int32Array.from(slots)).add(words).finishShared();
  }

  /**
   * Reads the bitmaps from sharedBitmaps()'s buffer instead of building them; refuses one built
   * for another index (its docs, threshold or long lists differ), stating expected vs found.
   */
  useBitmaps(buffer: ArrayBufferLike, what = 'trigram bitmaps'): void {
    const pack = ArrayPack.from(buffer, 0, what);
    const header = pack.get(0, Int32Array, what);
    const slots = pack.get(1, Int32Array, what);
    const words = pack.get(2, Int32Array, what);
    const expected = [BITMAPS_LAYOUT, this.docRows.length, BITMAP_MIN_POSTINGS];
    if (header.length !== 3 || header.some((value, i) => value !== expected[i])) {
      throw new SnapshotFormatError(`${what}: expected header [layout, docs, min postings] ${JSON.stringify(expected)}, found ${JSON.stringify([...header])}`);
    }
    const wordsPerBitmap = (this.docRows.length + 31) >>> 5;
    let longLists = 0;
    for (let slot = 0; slot < this.codes.length; slot++) {
      if (this.postingStarts[slot + 1]! - this.postingStarts[slot]! < BITMAP_MIN_POSTINGS) continue;
      if (slots[longLists] !== slot) throw new SnapshotFormatError(`${what}: expected long list ${longLists} at slot ${slot}, found ${slots[longLists] ?? 'none'}`);
      longLists++;
    }
    if (slots.length !== longLists || words.length !== longLists * wordsPerBitmap) {
      throw new SnapshotFormatError(`${what}: expected ${longLists} bitmaps of ${wordsPerBitmap} words, found ${slots.length} slots and ${words.length} words`);
    }
    for (let i = 0; i < longLists; i++) this.bitmapsBySlot.set(slots[i]!, words.subarray(i * wordsPerBitmap, (i + 1) * wordsPerBitmap));
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
    return this.run(query, threshold, 0, options);
  }

  /**
   * What a caller ranking rows by their best document score needs to pick its top `k` rows:
   * every document (of rows in [rowStart, rowEnd)) scoring ≥ s and its similarity, where s is the
   * k-th best row score (a row scores its best document) when at least k rows reach the
   * threshold, else the threshold. Documents scoring exactly s are all returned, so ties at the
   * k-th place can be broken by the caller's own rules. `k` ≥ 1.
   */
  searchTop(query: string, threshold: number, k: number, options: TrigramSearchOptions = {}): TrigramMatches {
    if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`trigram search: threshold must be in (0, 1], found ${threshold}`);
    if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`trigram search: k must be an integer ≥ 1, found ${k}`);
    return this.run(query, threshold, k, options);
  }

  // How a search runs (k = 0: every match; else the top-k rows as searchTop() describes).
  // A doc with n trigrams sharing c of the query's nq scores c / (nq + n − c): at most c / nq, so
  // it needs c ≥ minCommon, and it must appear in one of the (lists − minCommon + 1) shortest
  // posting lists of the query ("counted" lists). For a given c the score falls as n grows, so
  // maxTrigramsFor[c] bounds n: a doc first met in counted list l (shortest = 0) shares at most
  // lists − l trigrams, and a doc counting c in the counted lists at most c + (lists − counted).
  // 1. count the counted lists, admitting only docs whose n fits those bounds;
  // 2. keep the counted docs whose bound still reaches the threshold (candidates) — usually a
  //    few hundred of thousands — and finish their counts in the long lists left: a common
  //    trigram's list is checked in its membership bitmap, a shorter one is scanned when that is
  //    cheaper than a binary search per candidate;
  // 3. check each candidate against the lists left (stopping as soon as its bound falls short)
  //    and score it. For top-k the bar rises to the k-th best row score seen so far, which prunes
  //    the candidates checked later.
  private run(query: string, threshold: number, k: number, options: TrigramSearchOptions): TrigramMatches {
    const queryTrigrams = trigramsOf(query);
    const nq = queryTrigrams.length;
    if (nq === 0 || this.docRows.length === 0) return noMatches(threshold);
    let minCommon = 1;
    while (minCommon <= nq && Math.fround(minCommon / nq) < threshold) minCommon++;
    if (minCommon > nq) return noMatches(threshold);

    const [docStart, docEnd] = this.docRange(options.rowStart ?? 0, options.rowEnd ?? 0x7fffffff);
    const listCount = this.collectLists(queryTrigrams, docStart, docEnd);
    if (listCount < minCommon) return noMatches(threshold);
    const excluded = options.excludedDocs;
    if (excluded !== undefined && excluded.length !== this.docRows.length) {
      throw new RangeError(`trigram search: expected excludedDocs of ${this.docRows.length} docs, found ${excluded.length}`);
    }
    if (listCount > MAX_COUNTED_LISTS) return this.runWide(nq, listCount, threshold, k, options.tieFloor, excluded);
    const countedLists = listCount - minCommon + 1;
    const maxTrigramsFor = this.fillMaxTrigrams(nq, minCommon, listCount, threshold);

    const state = this.docStateArray();
    const touched = (this.touched ??= new Int32Array(this.docRows.length));
    const postings = this.postings;
    const order = this.listOrder;
    const listStarts = this.listStarts;
    const listEnds = this.listEnds;

    // 1. Count. Branch-free: whether a doc is new and whether it is admitted are unpredictable
    // (about half the postings each), and mispredicted branches cost more than the arithmetic.
    let touchedCount = 0;
    for (let l = 0; l < countedLists; l++) {
      const list = order[l]!;
      const span = maxTrigramsFor[listCount - l]! - minCommon; // admitted: 0 ≤ n − minCommon ≤ span
      for (let p = listStarts[list]!, end = listEnds[list]!; p < end; p++) {
        const doc = postings[p]!;
        const s = state[doc]!;
        const isNew = ((s & 0xff) - 1) >>> 31;
        const fromMin = (s >>> 8) - minCommon;
        const admitted = ((fromMin | (span - fromMin)) >>> 31) ^ 1;
        const counts = (isNew ^ 1) | admitted;
        state[doc] = s + counts;
        touched[touchedCount] = doc;
        touchedCount += counts & isNew;
      }
    }

    // 2. Candidates (their counts stay in state; the others' are cleared). Then, of the lists
    // left, scan those without a bitmap where that is cheaper than a binary search per candidate.
    let pendingLists = listCount - countedLists;
    let candidateCount = 0;
    for (let t = 0; t < touchedCount; t++) {
      const doc = touched[t]!;
      const s = state[doc]!;
      const common = s & 0xff;
      const kept = ((maxTrigramsFor[common + pendingLists]! - (s >>> 8)) >>> 31) ^ 1;
      state[doc] = s - common * (kept ^ 1);
      touched[candidateCount] = doc;
      candidateCount += kept;
    }
    let searchedFrom = countedLists;
    const listBitmaps = this.listBitmaps;
    while (searchedFrom < listCount) {
      const list = order[searchedFrom]!;
      const start = listStarts[list]!;
      const end = listEnds[list]!;
      if (listBitmaps[list] !== null || candidateCount * Math.log2(end - start + 2) < end - start) break;
      for (let p = start; p < end; p++) {
        const doc = postings[p]!;
        const s = state[doc]!;
        if ((s & 0xff) !== 0) state[doc] = s + 1;
      }
      searchedFrom++;
      pendingLists--;
    }

    // 3. Verify each candidate against the lists left, clearing its state. (Visiting them by count
    // to raise a top-k bar sooner saves less than the ordering costs, now that most checks are bits.)
    const limited = k > 0;
    const best = this.best;
    if (limited) best.reset(k);
    const tieFloor = options.tieFloor;
    let kth = threshold;
    let bar = threshold;
    const matches = touched; // matches overwrite the candidates already visited
    const matchScores = (this.matchScores ??= new Float32Array(this.docRows.length));
    const docTrigramCounts = this.docTrigramCounts;
    let matchCount = 0;
    for (let t = 0; t < candidateCount; t++) {
      const doc = touched[t]!;
      const s = state[doc]!;
      const common = s & 0xff;
      state[doc] = s - common;
      if (excluded !== undefined && excluded[doc] !== 0) continue;
      const n = docTrigramCounts[doc]!;
      if (boundOf(common + pendingLists, n, nq) < bar) continue;
      let shared = common;
      for (let l = searchedFrom; l < listCount; l++) {
        const list = order[l]!;
        const bitmap = listBitmaps[list]!;
        if (bitmap !== null ? ((bitmap[doc >>> 5]! >>> (doc & 31)) & 1) !== 0 : contains(postings, listStarts[list]!, listEnds[list]!, doc)) shared++;
        else if (boundOf(shared + listCount - 1 - l, n, nq) < bar) {
          shared = -1;
          break;
        }
      }
      if (shared < 0) continue;
      const score = Math.fround(shared / (nq + n - shared));
      if (score < bar) continue;
      matches[matchCount] = doc;
      matchScores[matchCount++] = score;
      if (limited) {
        const next = best.offer(this.docRows[doc]!, score, kth);
        if (next !== kth) bar = Math.max(threshold, tieFloor ? tieFloor((kth = next)) : (kth = next));
      }
    }

    return this.matchesFrom(matchCount, bar);
  }

  /** The first matchCount matches (touched / matchScores) scoring ≥ bar, copied out. */
  private matchesFrom(matchCount: number, bar: number): TrigramMatches {
    const matches = this.touched!;
    const matchScores = this.matchScores!;
    let kept = 0;
    for (let m = 0; m < matchCount; m++) {
      // Drops the matches of a top-k search recorded before the bar rose above them.
      if (matchScores[m]! >= bar) {
        matches[kept] = matches[m]!;
        matchScores[kept++] = matchScores[m]!;
      }
    }
    return { docs: matches.slice(0, kept), scores: Float64Array.from(matchScores.subarray(0, kept)), floor: bar };
  }

  /**
   * Queries with more posting lists than a doc's state can count (hundreds of distinct trigrams,
   * far beyond a typed query): count every list in full and score every doc met. Same answer.
   */
  private runWide(
    nq: number,
    listCount: number,
    threshold: number,
    k: number,
    tieFloor: ((kth: number) => number) | undefined,
    excluded: Uint8Array | undefined,
  ): TrigramMatches {
    const counters = (this.wideCounters ??= new Uint16Array(this.docRows.length));
    const touched = (this.touched ??= new Int32Array(this.docRows.length));
    const matchScores = (this.matchScores ??= new Float32Array(this.docRows.length));
    const postings = this.postings;
    let touchedCount = 0;
    for (let list = 0; list < listCount; list++) {
      for (let p = this.listStarts[list]!, end = this.listEnds[list]!; p < end; p++) {
        const doc = postings[p]!;
        if (counters[doc]!++ === 0) touched[touchedCount++] = doc;
      }
    }
    let matchCount = 0;
    let kth = threshold;
    let bar = threshold;
    if (k > 0) this.best.reset(k);
    for (let t = 0; t < touchedCount; t++) {
      const doc = touched[t]!;
      const common = counters[doc]!;
      counters[doc] = 0;
      const score = Math.fround(common / (nq + this.docTrigramCounts[doc]! - common));
      if (score < threshold || (excluded !== undefined && excluded[doc] !== 0)) continue;
      touched[matchCount] = doc;
      matchScores[matchCount++] = score;
      if (k > 0) {
        const next = this.best.offer(this.docRows[doc]!, score, kth);
        if (next !== kth) bar = Math.max(threshold, tieFloor ? tieFloor((kth = next)) : (kth = next));
      }
    }
    return this.matchesFrom(matchCount, bar);
  }

  private docStateArray(): Uint16Array {
    if (!this.docState) {
      const state = new Uint16Array(this.docRows.length);
      const counts = this.docTrigramCounts;
      for (let doc = 0; doc < state.length; doc++) state[doc] = Math.min(counts[doc]!, 0xff) << 8;
      this.docState = state;
    }
    return this.docState;
  }

  /** The membership bitmap of the trigram in `slot` (its whole list, whatever the doc range). */
  private bitmapOf(slot: number): Int32Array {
    let bitmap = this.bitmapsBySlot.get(slot);
    if (!bitmap) {
      bitmap = new Int32Array((this.docRows.length + 31) >>> 5);
      for (let p = this.postingStarts[slot]!, end = this.postingStarts[slot + 1]!; p < end; p++) {
        const doc = this.postings[p]!;
        bitmap[doc >>> 5]! |= 1 << (doc & 31);
      }
      this.bitmapsBySlot.set(slot, bitmap);
    }
    return bitmap;
  }

  /**
   * maxTrigramsFor[c] for c in minCommon..lists: the largest n (≥ c, ≤ 65535) with
   * float4(c / (nq + n − c)) ≥ threshold; entries below minCommon are −1 (no doc qualifies).
   */
  private fillMaxTrigrams(nq: number, minCommon: number, lists: number, threshold: number): Int32Array {
    if (this.maxTrigramsFor.length < lists + 1) this.maxTrigramsFor = new Int32Array(Math.max(lists + 1, this.maxTrigramsFor.length * 2));
    const table = this.maxTrigramsFor;
    table.fill(-1, 0, minCommon);
    for (let c = minCommon; c <= lists; c++) {
      // c / (nq + n − c) ≥ t ⇔ n ≤ c / t + c − nq, then settle float4 rounding at the edge.
      let n = Math.min(0xffff, Math.max(c, Math.floor(c / threshold + c - nq)));
      while (n < 0xffff && Math.fround(c / (nq + n + 1 - c)) >= threshold) n++;
      while (n > c && Math.fround(c / (nq + n - c)) < threshold) n--;
      table[c] = n;
    }
    return table;
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
      this.listBitmaps[count] = this.postingStarts[slot + 1]! - this.postingStarts[slot]! >= BITMAP_MIN_POSTINGS ? this.bitmapOf(slot) : null;
      this.listStarts[count] = start;
      this.listEnds[count] = end;
      count++;
    }
    // Insertion sort by length: a query has a dozen lists or so.
    if (this.listOrder.length < count) this.listOrder = new Int32Array(Math.max(count, this.listOrder.length * 2));
    const order = this.listOrder;
    for (let i = 0; i < count; i++) {
      const length = this.listEnds[i]! - this.listStarts[i]!;
      let at = i;
      while (at > 0 && this.listEnds[order[at - 1]!]! - this.listStarts[order[at - 1]!]! > length) {
        order[at] = order[at - 1]!;
        at--;
      }
      order[at] = i;
    }
    return count;
  }
}

/** The best score a doc with n trigrams sharing at most `shared` query trigrams can reach. */
function boundOf(shared: number, n: number, nq: number): number {
  const c = shared < n ? shared : n;
  return Math.fround(c / (nq + n - c));
}

function noMatches(floor: number): TrigramMatches {
  return { docs: new Int32Array(0), scores: new Float64Array(0), floor };
}

/**
 * The k best distinct rows seen (a row keeps its best score), scores descending: what sets the
 * bar of a top-k search. k is small (a page of results), so a sorted array does.
 */
class BestRows {
  private rows = new Int32Array(16);
  private scores = new Float64Array(16);
  private count = 0;
  private k = 0;

  reset(k: number): void {
    if (this.rows.length < k) {
      this.rows = new Int32Array(k);
      this.scores = new Float64Array(k);
    }
    this.count = 0;
    this.k = k;
  }

  /** Records `row` scoring `score` (≥ bar); returns the new bar: the k-th best row score once k rows are held. */
  offer(row: number, score: number, bar: number): number {
    const rows = this.rows;
    const scores = this.scores;
    let at = -1;
    for (let i = 0; i < this.count; i++) {
      if (rows[i] === row) {
        at = i;
        break;
      }
    }
    if (at >= 0) {
      if (score <= scores[at]!) return bar;
    } else if (this.count < this.k) {
      at = this.count++;
      rows[at] = row;
    } else {
      if (score <= scores[this.k - 1]!) return bar;
      at = this.k - 1;
      rows[at] = row;
    }
    scores[at] = score;
    while (at > 0 && scores[at - 1]! < score) {
      rows[at] = rows[at - 1]!;
      scores[at] = scores[at - 1]!;
      rows[at - 1] = row;
      scores[at - 1] = score;
      at--;
    }
    return this.count === this.k && scores[this.k - 1]! > bar ? scores[this.k - 1]! : bar;
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

/** Whether an ascending array holds `value` in [start, end); branch-free halving (mispredictions dominate a plain binary search). */
function contains(array: Int32Array, start: number, end: number, value: number): boolean {
  let length = end - start;
  if (length <= 0) return false;
  let base = start;
  while (length > 1) {
    const half = length >>> 1;
    // Keep base at the last element ≤ value (or start): move up when array[base + half] ≤ value.
    base += half * (((value - array[base + half]!) >>> 31) ^ 1);
    length -= half;
  }
  return array[base] === value;
}
