// Fuzzy search: every document whose pg_trgm similarity() to the query reaches a threshold,
// with that exact similarity — the same answer as scoring every document by brute force.
// Documents are (row, field) pairs (field 0 name, 1 native), numbered by trigram count first
// ("group", below), then in (row, field) order: the docs a search meets in one group are then
// near each other in its per-doc state and in the bitmaps (fewer cache lines, from cold caches
// too), and a contiguous row range (a country's cities) is a doc range within each group.
//
// Search prunes with the score's bounds (see TrigramIndex.run): only the shortest posting lists
// of the query are counted, and in each only the docs whose trigram count still lets them reach
// the threshold — the postings of a list are grouped by their doc's trigram count, so the others
// are never read. The few remaining candidates are checked against the lists left by bitmap or
// binary search — exact, and it skips most of the long lists of common trigrams such as "  s".
// searchTop() also raises the bar to the k-th best row score found so far, for callers that rank
// rows and keep the first k. Over every doc it goes group by group instead (TrigramIndex.runByGroup;
// for queries of up to 18 or 28 trigrams from threshold 0.25, any below), the groups whose docs
// can score highest first, so the bar rises before most postings are read and each later group
// counts fewer lists.
//
// Payload (`trigram.<entity>`): ArrayPack of
//   0 codes            Int32Array(trigrams)      distinct trigram codes (trigram.ts), ascending
//   1 postingStarts    Int32Array(trigrams + 1)  postings of codes[i]: postingStarts[i] .. [i + 1]
//   2 postings         Int32Array                min(doc's trigram count, 127) << 24 | doc number,
//                                                ascending within each list: grouped by trigram
//                                                count (its "group"), docs ascending in a group
//   3 docRow           Int32Array(docs)          ascending within each group (docs of a group are
//                                                consecutive numbers, the groups in order)
//   4 docField         Uint8Array(docs)
//   5 docTrigramCount  Uint16Array(docs)
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';
import { trigramsOf } from '../text/trigram.js';
import { GroupRowRanges, lowerBound, lowerBoundFrom } from './group-row-ranges.js';

/**
 * Posting lists at least this long (the common trigrams, ~120 of 62k for the full dataset's
 * cities, ~2.5 MB) also get a membership bitmap on first use: checking a candidate against them
 * is then one bit, not a scan of the list or a binary search.
 */
const BITMAP_MIN_POSTINGS = 2048;

/**
 * Top-k searches over every doc go group by group (TrigramIndex.runByGroup) for queries of up to
 * groupedMaxTrigrams(threshold) trigrams, in indexes of GROUPED_MIN_DOCS docs or more. Longer
 * queries (their many groups each cost a pass over the lists) and smaller indexes (few postings
 * to skip) take the single pass of run(). The lower the threshold, the more rows reach it and the
 * further the k-th best row's score soon rises above it, which the groups after use; at high
 * thresholds fewer than k rows often match, the bar never rises, and a long query's groups cost
 * more than run()'s pass over its lists. Measured on the full dataset's cities (plain-query index,
 * the search bench's queries and, for long queries, 300 of them run together with other city
 * names to 14–100 characters; per query in one process, fastest of 5 each), group by group
 * against the single pass: below 0.25 it took less time at every length (autocomplete's fills at
 * 0.2, 41–100 trigrams: 0.85–0.87×; fuzzy at 0.1, 19+ trigrams: 0.5×); at 0.3 0.80× up to 26
 * trigrams, 0.90× at 27–30, 1.01× at 31–40 and 1.07–1.42× beyond (at 0.35: 0.94× at 19–26,
 * 1.02× at 27–30); at 0.45 0.88× up to 18 trigrams, 1.04× at 23–26, 1.5× at 41–55; at 0.7
 * 0.98–1.0× up to 18, 1.06× at 19–22. Against the limits before (12 trigrams from 0.25, 18 below) with
 * runByGroup's scan of bitmap lists: fuzzy at 0.3 0.83× on average (p99 0.83×), at 0.2 0.77×,
 * at 0.45 0.93×, at 0.7 0.98×; autocomplete 0.84× (p99 0.60×); queries of 14–100 characters
 * 0.98–1.0× at 0.3–0.7.
 */
function groupedMaxTrigrams(threshold: number): number {
  if (threshold < 0.25) return Infinity; // run() still takes queries of over MAX_COUNTED_LISTS lists (runWide)
  return threshold < 0.4 ? 28 : 18;
}
const GROUPED_MIN_DOCS = 65_536;
/** Lists at least this long keep their group starts (TrigramIndex.groupStartsOf); shorter ones are read per query. */
const GROUPED_MIN_POSTINGS = 64;

/** A doc's state counts up to 255 lists; queries with more take TrigramIndex.runWide(). */
const MAX_COUNTED_LISTS = 0xff;

/** See TrigramIndex.skipsEnough. */
const SKIP_RATIO = 4;

/** A posting holds its doc number in the low 24 bits and the doc's group above them. */
const DOC_BITS = 24;
const DOC_MASK = (1 << DOC_BITS) - 1;
/** Docs with this many trigrams or more share the last group (postings stay positive int32s). */
const MAX_GROUP = 0x7f;
/** Group starts per list in TrigramIndex.runByGroup: groups 0..MAX_GROUP, then the list's end. */
const GROUP_STARTS = MAX_GROUP + 2;
/** runWide's doc ranges when it searches every doc (never read then). */
const NO_DOCS = new Int32Array(0);

/** The group of a doc with n trigrams. */
const groupOf = (n: number): number => (n < MAX_GROUP ? n : MAX_GROUP);
/** The posting of `doc` in `group` (also a bound past the last group: MAX_GROUP + 1). */
const postingOf = (group: number, doc: number): number => group * (1 << DOC_BITS) + doc;
/** postingOf for a doc's own group (≤ MAX_GROUP): an int32 from bit operations, as hot loops want it. */
const docPosting = (group: number, doc: number): number => (group << DOC_BITS) | doc;
/**
 * The best score a doc of `group` can reach against a query of nq trigrams (runByGroup's order):
 * min(n, nq) / max(n, nq). The last group holds every doc of MAX_GROUP trigrams or more: one of
 * nq trigrams (a query that long) may score 1 there.
 */
const potentialOf = (group: number, nq: number): number => (group > nq ? Math.fround(nq / group) : group === MAX_GROUP ? 1 : Math.fround(group / nq));

/** Layout version of sharedLongLists()'s buffer. */
const LONG_LISTS_LAYOUT = 3;

/**
 * Indexes of this many distinct codes or more find a query trigram's slot through a directory
 * (TrigramIndex.codeDirectory): the slots of the codes sharing their top bits (code >>>
 * CODE_BUCKET_SHIFT), then a binary search among those few instead of all of them. A cold
 * binary search over the full dataset's 56k city codes misses the cache at most of its 16 steps;
 * measured (the search bench's fuzzy queries, alternated in one process): 0.96× the time of a
 * plain-query search at the median. 64 KiB per index.
 */
const DIRECTORY_MIN_CODES = 4096;
const CODE_BUCKET_SHIFT = 10;
/** Trigram codes are 24-bit (trigram.ts): this many buckets, and one more entry for the end. */
const CODE_BUCKETS = 1 << (24 - CODE_BUCKET_SHIFT);

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
  tieFloor?: ((kth: number) => number) | undefined;
  /**
   * Docs flagged nonzero here (indexed by doc) are never matches and never raise a top-k bar: a
   * caller that drops some docs afterwards can still take the top-k cut over the others.
   */
  excludedDocs?: Uint8Array | undefined;
}

interface PendingDoc {
  /** Its place among the docs added (the order repeated docs of a (row, field) keep). */
  added: number;
  row: number;
  field: number;
  trigrams: Int32Array;
}

export interface TrigramIndexBuilderOptions {
  /**
   * A (row, field) may have several documents (refused by default, where a second one is a
   * mistake): searches then score each of them, and callers keep the highest (`trigram-pq.`,
   * build-index/sections/trigram.ts). They keep the order they were added in.
   */
  repeatedDocs?: boolean;
}

export class TrigramIndexBuilder {
  private readonly docs: PendingDoc[] = [];
  private docNumbers: Int32Array | null = null;

  constructor(private readonly options: TrigramIndexBuilderOptions = {}) {}

  /** Adds a document; text without trigrams (no letters or digits) can never match and is skipped. */
  add(row: number, field: TrigramField, text: string): this {
    return this.addTrigrams(row, field, trigramsOf(text));
  }

  /** As add(), with trigramsOf(text) already computed. */
  addTrigrams(row: number, field: TrigramField, trigrams: Int32Array): this {
    if (!Number.isInteger(row) || row < 0 || row > 0x7fffffff) throw new RangeError(`trigram index: row must be a non-negative 32-bit integer, found ${row}`);
    if (field !== TRIGRAM_FIELD_NAME && field !== TRIGRAM_FIELD_NATIVE) throw new RangeError(`trigram index: field must be 0 (name) or 1 (native), found ${String(field)}`);
    if (trigrams.length > 0xffff) throw new RangeError(`trigram index: expected at most 65535 trigrams per document, found ${trigrams.length} (row ${row})`);
    if (trigrams.length > 0) this.docs.push({ added: this.docs.length, row, field, trigrams });
    return this;
  }

  /**
   * The doc number finish() gave each doc added with trigrams, in the order they were added (a
   * caller keeping something per doc, such as trigram-pq-info's own-doc flags, lays it out by it).
   */
  addedDocNumbers(): Int32Array {
    if (this.docNumbers === null) throw new Error('trigram index: addedDocNumbers() is known after finish()');
    return this.docNumbers;
  }

  finish(): Uint8Array {
    if (this.options.repeatedDocs !== true) {
      const seen = new Set<number>();
      for (const doc of this.docs) {
        const key = doc.row * 2 + doc.field;
        if (seen.has(key)) throw new Error(`trigram index: expected one document per (row, field), found two for row ${doc.row} field ${doc.field}`);
        seen.add(key);
      }
    }
    const docs = [...this.docs].sort((a, b) => groupOf(a.trigrams.length) - groupOf(b.trigrams.length) || a.row - b.row || a.field - b.field || a.added - b.added);
    this.docNumbers = new Int32Array(docs.length);
    docs.forEach((doc, d) => (this.docNumbers![doc.added] = d));
    // Count each code's documents, lay the lists out in code order, then fill them in doc order
    // (so every list ascends: the group, above the doc number, ascends with it).
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
    if (docs.length > DOC_MASK + 1) throw new RangeError(`trigram index: expected at most ${DOC_MASK + 1} documents, found ${docs.length}`);
    const postings = new Int32Array(postingCount);
    const fill = postingStarts.slice(0, codes.length);
    const docRow = new Int32Array(docs.length);
    const docField = new Uint8Array(docs.length);
    const docTrigramCount = new Uint16Array(docs.length);
    docs.forEach((doc, d) => {
      docRow[d] = doc.row;
      docField[d] = doc.field;
      docTrigramCount[d] = doc.trigrams.length;
      const posting = postingOf(groupOf(doc.trigrams.length), d);
      for (const code of doc.trigrams) postings[fill[slotOfCode.get(code)!]!++] = posting;
    });
    return new ArrayPackBuilder().add(codes).add(postingStarts).add(postings).add(docRow).add(docField).add(docTrigramCount).finish();
  }
}

/**
 * The per-doc scratch of a search, one per thread for every TrigramIndex in it: searches run one
 * at a time per thread, and each leaves docState and wideCounters all zeros. Sized for the
 * largest index searched or prepared so far, instead of once per index (each entity's plain,
 * plain-query and changed-docs indexes: ~1.9 MiB less per thread on the full dataset).
 */
const scratch = {
  /**
   * Per doc: the query trigrams counted so far (0 = untouched this search). One byte keeps it
   * cache-friendly; counts stay below 256 because queries with more posting lists take runWide().
   */
  docState: new Uint8Array(0),
  wideCounters: new Uint16Array(0),
  /** Touched docs, then the candidates (compacted in place), then the matches; run() keeps postings (doc and group) until its matches. */
  touched: new Int32Array(0),
  /** Match scores (float4 values, exact in a Float32Array), parallel to the matches. */
  matchScores: new Float32Array(0),
};

/** The thread's scratch, grown to `docs` docs when shorter (fresh arrays are zeros, as the states must be). */
function scratchFor(docs: number): typeof scratch {
  if (scratch.touched.length < docs) {
    scratch.docState = new Uint8Array(docs);
    scratch.touched = new Int32Array(docs);
    scratch.matchScores = new Float32Array(docs);
  }
  return scratch;
}

export class TrigramIndex {
  // Per-query scratch of this index (its per-doc scratch is the thread's, `scratch` above).
  private listStarts = new Int32Array(64);
  private listEnds = new Int32Array(64);
  /** Segments of one list to read (its groups in a range, each cut to the doc range): see segmentsOf. */
  private segmentStarts = new Int32Array(16);
  private segmentEnds = new Int32Array(16);
  /** lastCountedFor[group]: the last list (in listOrder) counted for docs of that group; -1 none. */
  private readonly lastCountedFor = new Int32Array(MAX_GROUP + 1);
  /** Candidates per group, after step 2 of run(). */
  private readonly candidatesIn = new Int32Array(MAX_GROUP + 1);
  /** Per list of the current query: the membership bitmap of its trigram when it is a long one, else null. */
  private listBitmaps: (Int32Array | null)[] = [];
  /** runByGroup's listBitmaps in listOrder (one lookup less per doc and list). */
  private readonly orderedBitmaps: (Int32Array | null)[] = [];
  /** Membership bitmaps (bit d = doc d holds the trigram) of long posting lists, by trigram slot, built on first use. */
  private readonly bitmapsBySlot = new Map<number, Int32Array>();
  private listOrder = new Int32Array(64);
  /** Per list of the current query: its trigram's slot. */
  private listSlots = new Int32Array(64);
  /** codeDirectory[b] .. [b + 1]: the slots of the codes c with c >>> CODE_BUCKET_SHIFT === b; null in small indexes; built on first use. */
  private codeDirectory: Int32Array | null | undefined = undefined;
  /** runByGroup's group starts of the query's lists (queryGroupStarts). */
  private queryStarts = new Int32Array(32 * GROUP_STARTS);
  /** Group starts of the long lists, by slot (groupStartsOf), built on first use. */
  private readonly groupStartsBySlot = new Map<number, Int32Array>();
  /** maxTrigramsFor[c]: the most trigrams a doc sharing c query trigrams may have and still reach the threshold. */
  private maxTrigramsFor = new Int32Array(64);
  private readonly best = new BestRows();
  private lastFloor = 0;
  /**
   * The docs of a search's rows, group by group (selectRows; made for the first search over some
   * rows only: most indexes are only ever searched over every row): starts / ends[rangeAt + group].
   */
  private rowRanges: GroupRowRanges | null = null;
  private rangeAt = 0;
  /** The lowest and highest row of a doc: a row range holding both is every doc. */
  private readonly minRow: number;
  private readonly maxRow: number;

  private constructor(
    private readonly codes: Int32Array,
    private readonly postingStarts: Int32Array,
    private readonly postings: Int32Array,
    private readonly docRows: Int32Array,
    private readonly docFields: Uint8Array,
    private readonly docTrigramCounts: Uint16Array,
    /** The docs of group g are [groupFirstDocs[g], groupFirstDocs[g + 1]). */
    private readonly groupFirstDocs: Int32Array,
  ) {
    // Rows ascend within a group: each group's first and last docs bound its rows.
    let minRow = 0x7fffffff;
    let maxRow = -1;
    for (let group = 0; group < GROUP_STARTS - 1; group++) {
      const first = groupFirstDocs[group]!;
      const end = groupFirstDocs[group + 1]!;
      if (first === end) continue;
      if (docRows[first]! < minRow) minRow = docRows[first]!;
      if (docRows[end - 1]! > maxRow) maxRow = docRows[end - 1]!;
    }
    this.minRow = minRow;
    this.maxRow = maxRow;
  }

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
    if (docRow.length > DOC_MASK + 1) throw new SnapshotFormatError(`${what}: expected at most ${DOC_MASK + 1} documents, found ${docRow.length}`);
    // Binary searches and the code directory rely on it.
    for (let slot = 0; slot < codes.length; slot++) {
      if (codes[slot]! < (slot === 0 ? 0 : codes[slot - 1]! + 1) || codes[slot]! >= 1 << 24) {
        throw new SnapshotFormatError(`${what}: expected distinct 24-bit trigram codes, ascending, found ${codes[slot]} at slot ${slot}${slot > 0 ? ` after ${codes[slot - 1]}` : ''}`);
      }
    }
    return new TrigramIndex(codes, postingStarts, postings, docRow, docField, docTrigramCount, groupFirstDocsOf(docRow, docTrigramCount, what));
  }

  get docCount(): number {
    return this.docRows.length;
  }

  /** How many distinct trigram codes (posting lists) the index holds. */
  get codeCount(): number {
    return this.codes.length;
  }

  /**
   * Builds what searches otherwise build on first use — the per-doc state, the scratch arrays, the
   * code directory and the membership bitmap of every long posting list — so no request pays for it.
   */
  prepare(): void {
    scratchFor(this.docRows.length);
    this.directory();
    for (let slot = 0; slot < this.codes.length; slot++) {
      if (this.postingStarts[slot + 1]! - this.postingStarts[slot]! >= BITMAP_MIN_POSTINGS) this.bitmapOf(slot);
      if (this.searchesByGroup) this.groupStartsOf(slot);
    }
  }

  /**
   * What long posting lists get on first use, for every long list, in one SharedArrayBuffer
   * (ArrayPack: header [layout, docs, BITMAP_MIN_POSTINGS, GROUPED_MIN_POSTINGS]; the bitmap
   * slots and their bitmaps, ceil(docs / 32) words each; the group-start slots and their starts,
   * GROUP_STARTS each, none in an index too small to search by group; the code directory, empty in
   * an index too small for one), so the main thread builds them once and every worker thread reads
   * the same bytes (useLongLists).
   */
  sharedLongLists(): SharedArrayBuffer {
    const wordsPerBitmap = (this.docRows.length + 31) >>> 5;
    const bitmapSlots = this.slotsWithAtLeast(BITMAP_MIN_POSTINGS);
    const words = new Int32Array(bitmapSlots.length * wordsPerBitmap);
    bitmapSlots.forEach((slot, i) => words.set(this.bitmapOf(slot), i * wordsPerBitmap));
    const groupedSlots = this.searchesByGroup ? this.slotsWithAtLeast(GROUPED_MIN_POSTINGS) : new Int32Array(0);
    const starts = new Int32Array(groupedSlots.length * GROUP_STARTS);
    // Into the packed array directly, not through groupStartsOf: no per-list array made and kept here.
    groupedSlots.forEach((slot, i) => this.fillGroupStarts(starts, i * GROUP_STARTS, this.postingStarts[slot]!, this.postingStarts[slot + 1]!));
    return new ArrayPackBuilder()
      .add(Int32Array.of(LONG_LISTS_LAYOUT, this.docRows.length, BITMAP_MIN_POSTINGS, GROUPED_MIN_POSTINGS))
      .add(bitmapSlots)
      .add(words)
      .add(groupedSlots)
      .add(starts)
      .add(this.directory() ?? new Int32Array(0))
      .finishShared();
  }

  /**
   * Reads the long lists' bitmaps and group starts from sharedLongLists()'s buffer instead of
   * building them; refuses one built for another index (its docs, thresholds or long lists
   * differ), stating expected vs found, and then adopts nothing.
   */
  useLongLists(buffer: ArrayBufferLike, what = 'trigram long lists'): void {
    const pack = ArrayPack.from(buffer, 0, what);
    const header = pack.get(0, Int32Array, what);
    const expected = [LONG_LISTS_LAYOUT, this.docRows.length, BITMAP_MIN_POSTINGS, GROUPED_MIN_POSTINGS];
    if (header.length !== expected.length || header.some((value, i) => value !== expected[i])) {
      throw new SnapshotFormatError(`${what}: expected header [layout, docs, bitmap min postings, group starts min postings] ${JSON.stringify(expected)}, found ${JSON.stringify([...header])}`);
    }
    const bitmaps = this.adoptedLists(pack, 1, BITMAP_MIN_POSTINGS, (this.docRows.length + 31) >>> 5, 'bitmaps', what);
    // An index too small to search by group expects no group starts: no list is that long.
    const starts = this.adoptedLists(pack, 3, this.searchesByGroup ? GROUPED_MIN_POSTINGS : Infinity, GROUP_STARTS, 'group starts', what);
    const directory = pack.get(5, Int32Array, what);
    const directoryLength = this.codes.length >= DIRECTORY_MIN_CODES ? CODE_BUCKETS + 1 : 0;
    if (directory.length !== directoryLength || (directoryLength > 0 && directory[CODE_BUCKETS] !== this.codes.length)) {
      throw new SnapshotFormatError(`${what}: expected a code directory of ${directoryLength} entries ending at ${this.codes.length} codes, found ${directory.length} ending at ${directory[directory.length - 1] ?? 'none'}`);
    }
    for (const [slot, bitmap] of bitmaps) this.bitmapsBySlot.set(slot, bitmap);
    for (const [slot, groupStarts] of starts) this.groupStartsBySlot.set(slot, groupStarts);
    this.codeDirectory = directoryLength > 0 ? directory : null;
  }

  /** The slots whose posting lists hold `minPostings` or more. */
  private slotsWithAtLeast(minPostings: number): Int32Array {
    const slots: number[] = [];
    for (let slot = 0; slot < this.codes.length; slot++) {
      if (this.postingStarts[slot + 1]! - this.postingStarts[slot]! >= minPostings) slots.push(slot);
    }
    return Int32Array.from(slots);
  }

  /**
   * useLongLists: the slots at `pack[at]` and their arrays of `size` at `pack[at + 1]`, by slot,
   * checked to be exactly this index's lists of `minPostings` or more.
   */
  private adoptedLists(pack: ArrayPack, at: number, minPostings: number, size: number, kind: string, what: string): Map<number, Int32Array> {
    const slots = pack.get(at, Int32Array, what);
    const values = pack.get(at + 1, Int32Array, what);
    const expected = this.slotsWithAtLeast(minPostings);
    const differs = expected.findIndex((slot, i) => slots[i] !== slot);
    if (differs >= 0) throw new SnapshotFormatError(`${what}: expected ${kind} of long list ${differs} at slot ${expected[differs]}, found ${slots[differs] ?? 'none'}`);
    if (slots.length !== expected.length || values.length !== expected.length * size) {
      throw new SnapshotFormatError(`${what}: expected ${expected.length} ${kind} of ${size} words, found ${slots.length} slots and ${values.length} words`);
    }
    const bySlot = new Map<number, Int32Array>();
    slots.forEach((slot, i) => bySlot.set(slot, values.subarray(i * size, (i + 1) * size)));
    return bySlot;
  }

  /**
   * The index of the docs flagged nonzero in `kept` (one flag per doc), in this layout: what
   * finish() builds from those docs' trigrams. The kept docs are renumbered in their order (so
   * still by group, then in (row, field) order), each list keeps its postings of kept docs, and
   * lists left empty are dropped. In a SharedArrayBuffer: built once, read by every thread
   * (engine/shared.ts).
   */
  subset(kept: Uint8Array): SharedArrayBuffer {
    const docs = this.docRows.length;
    if (kept.length !== docs) throw new RangeError(`trigram index subset: expected ${docs} doc flags, found ${kept.length}`);
    const docOf = new Int32Array(docs);
    let keptDocs = 0;
    for (let doc = 0; doc < docs; doc++) docOf[doc] = kept[doc] !== 0 ? keptDocs++ : -1;
    const docRow = new Int32Array(keptDocs);
    const docField = new Uint8Array(keptDocs);
    const docTrigramCount = new Uint16Array(keptDocs);
    for (let doc = 0; doc < docs; doc++) {
      const to = docOf[doc]!;
      if (to < 0) continue;
      docRow[to] = this.docRows[doc]!;
      docField[to] = this.docFields[doc]!;
      docTrigramCount[to] = this.docTrigramCounts[doc]!;
    }
    const postings = this.postings;
    const keptPostings = new Int32Array(this.codes.length);
    let codeCount = 0;
    let postingCount = 0;
    for (let slot = 0; slot < this.codes.length; slot++) {
      let count = 0;
      for (let p = this.postingStarts[slot]!, end = this.postingStarts[slot + 1]!; p < end; p++) {
        if (docOf[postings[p]! & DOC_MASK]! >= 0) count++;
      }
      keptPostings[slot] = count;
      if (count > 0) codeCount++;
      postingCount += count;
    }
    const codes = new Int32Array(codeCount);
    const postingStarts = new Int32Array(codeCount + 1);
    const subsetPostings = new Int32Array(postingCount);
    let list = 0;
    let at = 0;
    for (let slot = 0; slot < this.codes.length; slot++) {
      if (keptPostings[slot] === 0) continue;
      codes[list] = this.codes[slot]!;
      for (let p = this.postingStarts[slot]!, end = this.postingStarts[slot + 1]!; p < end; p++) {
        const to = docOf[postings[p]! & DOC_MASK]!;
        // The group stays; renumbering keeps the docs of a group ascending.
        if (to >= 0) subsetPostings[at++] = (postings[p]! & ~DOC_MASK) | to;
      }
      postingStarts[++list] = at;
    }
    return new ArrayPackBuilder().add(codes).add(postingStarts).add(subsetPostings).add(docRow).add(docField).add(docTrigramCount).finishShared();
  }

  /** The trigram codes held by at least one doc not flagged in `kept` (one flag per doc), ascending. */
  codesOutside(kept: Uint8Array): Int32Array {
    if (kept.length !== this.docRows.length) throw new RangeError(`trigram index: expected ${this.docRows.length} doc flags, found ${kept.length}`);
    const codes: number[] = [];
    for (let slot = 0; slot < this.codes.length; slot++) {
      for (let p = this.postingStarts[slot]!, end = this.postingStarts[slot + 1]!; p < end; p++) {
        if (kept[this.postings[p]! & DOC_MASK] === 0) {
          codes.push(this.codes[slot]!);
          break;
        }
      }
    }
    return Int32Array.from(codes);
  }

  /** Whether this index is large enough for top-k searches group by group (GROUPED_MIN_DOCS). */
  private get searchesByGroup(): boolean {
    return this.docRows.length >= GROUPED_MIN_DOCS;
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
    return this.copied(this.searchInPlace(query, threshold, 0, options));
  }

  /**
   * What a caller ranking rows by their best document score needs to pick its top `k` rows:
   * every document (of rows in [rowStart, rowEnd)) scoring ≥ s and its similarity, where s is the
   * k-th best row score (a row scores its best document) when at least k rows reach the
   * threshold, else the threshold. Documents scoring exactly s are all returned, so ties at the
   * k-th place can be broken by the caller's own rules. `k` ≥ 1.
   */
  searchTop(query: string, threshold: number, k: number, options: TrigramSearchOptions = {}): TrigramMatches {
    if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`trigram search: k must be an integer ≥ 1, found ${k}`);
    return this.copied(this.searchInPlace(query, threshold, k, options));
  }

  /**
   * search() (k = 0) or searchTop() (k ≥ 1) without copying the answer out: returns the match
   * count; the matches are resultDocs[0, count) with resultScores, and the floor is resultFloor,
   * all valid until the thread's next search of any index: callers that read them at once (nameMatches) make
   * no typed arrays per search (each has a backing store of its own to allocate and free).
   */
  searchInPlace(query: string, threshold: number, k: number, options: TrigramSearchOptions): number {
    if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`trigram search: threshold must be in (0, 1], found ${threshold}`);
    return this.run(query, threshold, k, options);
  }

  /** The last search's matching docs, [0, its count) (see searchInPlace; valid until the thread's next search of any index). */
  get resultDocs(): Int32Array {
    return scratch.touched;
  }

  /** The last search's match scores (float4 values), parallel to resultDocs. */
  get resultScores(): Float32Array {
    return scratch.matchScores;
  }

  /** The last search's floor (TrigramMatches.floor). */
  get resultFloor(): number {
    return this.lastFloor;
  }

  // How a search runs (k = 0: every match; else the top-k rows as searchTop() describes).
  // A doc with n trigrams sharing c of the query's nq scores c / (nq + n − c): at most c / nq, so
  // it needs c ≥ minCommon, and it must appear in one of the (lists − minCommon + 1) shortest
  // posting lists of the query ("counted" lists). For a given c the score falls as n grows, so
  // maxTrigramsFor[c] bounds n: a doc first met in counted list l (shortest = 0) shares at most
  // lists − l trigrams, so it needs n ≤ maxTrigramsFor[lists − l].
  // 1. count the counted lists (the postings of a list are grouped by n; groups no doc of which
  //    can reach the threshold are never read): the shortest lists in every group, then, from the
  //    first list with a bitmap where that skips enough postings, each list only in the groups
  //    its bound admits. The longest counted lists, whose bound is the tightest, are then mostly
  //    skipped. A doc is counted in lists 0..lastCountedFor[its group];
  // 2. keep the counted docs whose bound still reaches the threshold (candidates) — usually a
  //    few hundred of thousands — and count them in the next lists too where scanning a list is
  //    cheaper than a binary search per candidate (countFurther);
  // 3. check each candidate against the lists not counted for it (a common trigram's list in its
  //    membership bitmap, another by binary search), stopping as soon as its bound falls short,
  //    and score it. For top-k the bar rises to the k-th best row score seen so far, which prunes
  //    the candidates checked later.
  private run(query: string, threshold: number, k: number, options: TrigramSearchOptions): number {
    const queryTrigrams = trigramsOf(query);
    const nq = queryTrigrams.length;
    if (nq === 0 || this.docRows.length === 0) return this.noMatches(threshold);
    let minCommon = 1;
    while (minCommon <= nq && Math.fround(minCommon / nq) < threshold) minCommon++;
    if (minCommon > nq) return this.noMatches(threshold);

    const rowStart = options.rowStart ?? 0;
    const rowEnd = options.rowEnd ?? 0x7fffffff;
    const whole = rowStart <= this.minRow && rowEnd > this.maxRow;
    const listCount = this.collectLists(queryTrigrams);
    if (listCount < minCommon) return this.noMatches(threshold);
    const excluded = options.excludedDocs;
    if (excluded !== undefined && excluded.length !== this.docRows.length) {
      throw new RangeError(`trigram search: expected excludedDocs of ${this.docRows.length} docs, found ${excluded.length}`);
    }
    if (listCount > MAX_COUNTED_LISTS) {
      if (!whole && !this.selectRows(rowStart, rowEnd, 0, MAX_GROUP)) return this.noMatches(threshold);
      return this.runWide(nq, listCount, threshold, k, options.tieFloor, excluded, whole);
    }
    if (k > 0 && nq <= groupedMaxTrigrams(threshold) && this.searchesByGroup && whole) {
      return this.runByGroup(nq, listCount, threshold, k, options.tieFloor, excluded);
    }
    const countedLists = listCount - minCommon + 1;
    const maxTrigramsFor = this.fillMaxTrigrams(nq, minCommon, listCount, threshold);

    const { docState: state, touched, matchScores } = scratchFor(this.docRows.length);
    const postings = this.postings;
    const order = this.listOrder;
    const listStarts = this.listStarts;
    const listEnds = this.listEnds;

    // 1. Count. Branch-free: whether a doc is new and whether it is admitted are unpredictable,
    // and mispredicted branches cost more than the arithmetic.
    const listBitmaps = this.listBitmaps;
    const firstGroup = groupOf(minCommon); // n < minCommon cannot share minCommon trigrams
    const widestGroup = groupOf(maxTrigramsFor[listCount]!);
    // Only these groups' docs can match: the only ones whose doc ranges are read.
    if (!whole && !this.selectRows(rowStart, rowEnd, firstGroup, widestGroup)) return this.noMatches(threshold);
    // The first lists are counted in every group a doc can match in ("full" lists). From the first
    // list with a bitmap on, a list may be counted only in the groups a doc first met there could
    // match in, when that skips enough postings: a doc of a higher group met before is then
    // checked in the bitmap instead (step 3), and its looser bound keeps more candidates.
    const lastCountedFor = this.lastCountedFor.fill(-1);
    let fullLists = countedLists;
    let touchedCount = 0;
    for (let l = 0; l < countedLists; l++) {
      const list = order[l]!;
      const admittedGroup = groupOf(maxTrigramsFor[listCount - l]!); // of a doc first met here
      let full = l < fullLists;
      if (full && listBitmaps[list] !== null && this.skipsEnough(list, admittedGroup, widestGroup, touchedCount, whole)) {
        full = false;
        fullLists = l;
        lastCountedFor.fill(l - 1, firstGroup, widestGroup + 1);
      }
      if (!full) lastCountedFor.fill(l, firstGroup, admittedGroup + 1);
      const segments = this.segmentsOf(list, firstGroup, full ? widestGroup : admittedGroup, whole);
      for (let segment = 0; segment < segments; segment++) {
        for (let p = this.segmentStarts[segment]!, end = this.segmentEnds[segment]!; p < end; p++) {
          const posting = postings[p]!;
          const doc = posting & DOC_MASK;
          const count = state[doc]!;
          const isNew = (count - 1) >>> 31;
          const admitted = ((admittedGroup - (posting >>> DOC_BITS)) >>> 31) ^ 1;
          const counts = (isNew ^ 1) | admitted;
          state[doc] = count + counts;
          touched[touchedCount] = posting; // with its group, which step 2 reads
          touchedCount += counts & isNew;
        }
      }
    }

    if (fullLists === countedLists) lastCountedFor.fill(countedLists - 1, firstGroup, widestGroup + 1);

    // 2. Candidates: their counts stay in state; the others' are cleared. The group stands for n
    // (at most n: the last group holds longer docs), so no doc's count is read here.
    // Touched postings come in runs of one group (a list's postings are grouped): candidatesIn is
    // added to once per run, not per posting, whose read-modify-write of one slot chains them.
    // A pass of its own only when countFurther may count a further list (below); else step 3 takes
    // every touched doc, prunes it with the same bound, at least as tight (its bar only rises), and
    // clears its state. Measured (full dataset's cities, the search bench's queries, interleaved,
    // fastest of 5): fuzzy's queries of 15 trigrams or more (run()'s at 0.3) took 0.91–0.95× the
    // time on average, autocomplete's fills of 19 or more 0.85–0.95×.
    let candidateCount = touchedCount;
    if (this.countsFurther(listCount, firstGroup, widestGroup)) {
      const candidatesIn = this.candidatesIn.fill(0);
      candidateCount = 0;
      let runGroup = 0;
      let runStart = 0;
      for (let t = 0; t < touchedCount; t++) {
        const posting = touched[t]!;
        const doc = posting & DOC_MASK;
        const group = posting >>> DOC_BITS;
        if (group !== runGroup) {
          candidatesIn[runGroup]! += candidateCount - runStart;
          runGroup = group;
          runStart = candidateCount;
        }
        const common = state[doc]!;
        const notCounted = listCount - 1 - lastCountedFor[group]!;
        const kept = ((maxTrigramsFor[common + notCounted]! - group) >>> 31) ^ 1;
        state[doc] = common * kept;
        touched[candidateCount] = posting; // its group is its n (below MAX_GROUP): step 3 reads no docTrigramCounts for it
        candidateCount += kept;
      }
      candidatesIn[runGroup]! += candidateCount - runStart;

      // Then count the candidates in the next lists too while scanning a list is cheaper than a
      // binary search per candidate that needs it (many candidates: long queries, low thresholds).
      if (candidateCount > 0) this.countFurther(listCount, firstGroup, whole);
    }

    // 3. Verify each candidate (every touched doc when step 2 made no pass) against the lists not
    // counted for it, clearing its state.
    const limited = k > 0;
    const best = this.best;
    if (limited) best.reset(k);
    const tieFloor = options.tieFloor;
    let kth = threshold;
    let bar = threshold;
    const matches = touched; // matches overwrite the candidates already visited
    const docTrigramCounts = this.docTrigramCounts;
    let matchCount = 0;
    for (let t = 0; t < candidateCount; t++) {
      // A random load per candidate matters once the request starts with cold caches (the path
      // bench's flushed runs): the group, in the posting, gives n without one.
      const posting = touched[t]!;
      const doc = posting & DOC_MASK;
      const common = state[doc]!;
      state[doc] = 0;
      if (excluded !== undefined && excluded[doc] !== 0) continue;
      const group = posting >>> DOC_BITS;
      const n = group < MAX_GROUP ? group : docTrigramCounts[doc]!;
      const firstLeft = lastCountedFor[group]! + 1;
      if (boundOf(common + listCount - firstLeft, n, nq) < bar) continue;
      let shared = common;
      for (let l = firstLeft; l < listCount; l++) {
        const list = order[l]!;
        const bitmap = listBitmaps[list]!;
        if (bitmap !== null ? ((bitmap[doc >>> 5]! >>> (doc & 31)) & 1) !== 0 : contains(postings, listStarts[list]!, listEnds[list]!, posting)) shared++;
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

    return this.keptAbove(matchCount, bar);
  }

  /**
   * A top-k search over every doc, group by group (docs of one trigram count n), the groups whose
   * docs can score highest first: min(n, nq) / max(n, nq), i.e. outward from n = nq. Within a
   * group n is known, so a doc needs m shared trigrams for the bar (the k-th best row's tie floor
   * so far, at least the threshold), and only the (lists − m + 1) shortest lists' postings of that
   * group are counted; the next lists too while a scan costs less than checking each doc met (a
   * binary search, or a bitmap's bit), and the docs met are checked in the others (bitmap, or
   * binary search within the group's postings, which ascend by doc). The bar rises with each
   * group, so the groups after count fewer lists, and the search stops at the first group whose
   * best possible score is below it. Same
   * answer as run(); cheaper when the bar rises well above the threshold, dearer for long
   * queries at high thresholds, whose many groups each cost a pass over the lists (run() takes
   * those: groupedMaxTrigrams).
   */
  private runByGroup(nq: number, listCount: number, threshold: number, k: number, tieFloor: ((kth: number) => number) | undefined, excluded: Uint8Array | undefined): number {
    // The groups whose potential (below) reaches the threshold: the only ones the search can visit.
    let lowestGroup = nq < MAX_GROUP ? nq : MAX_GROUP;
    while (lowestGroup > 1 && potentialOf(lowestGroup - 1, nq) >= threshold) lowestGroup--;
    let highestGroup = nq < MAX_GROUP ? nq : MAX_GROUP;
    while (highestGroup < MAX_GROUP && potentialOf(highestGroup + 1, nq) >= threshold) highestGroup++;
    const dirs = this.queryGroupStarts(listCount, lowestGroup, highestGroup);
    const { docState: state, touched, matchScores } = scratchFor(this.docRows.length);
    const postings = this.postings;
    const order = this.listOrder;
    const listBitmaps = this.listBitmaps;
    const docTrigramCounts = this.docTrigramCounts;
    const orderedBitmaps = this.orderedBitmaps;
    orderedBitmaps.length = listCount;
    for (let l = 0; l < listCount; l++) orderedBitmaps[l] = listBitmaps[order[l]!]!;
    const best = this.best;
    best.reset(k);
    let kth = threshold;
    let bar = threshold;
    let matchCount = 0;
    let below = nq < MAX_GROUP ? nq : MAX_GROUP;
    let above = nq + 1;
    while (below >= 1 || above <= MAX_GROUP) {
      // The last group may score 1 (potentialOf), so for a query that long it comes first.
      const fromBelow = below >= 1 ? potentialOf(below, nq) : -1;
      const fromAbove = above <= MAX_GROUP ? potentialOf(above, nq) : -1;
      let group: number;
      let potential: number;
      if (fromBelow >= fromAbove) {
        group = below--;
        potential = fromBelow;
      } else {
        group = above++;
        potential = fromAbove;
      }
      // Potentials fall from here on (the last group's docs, n ≥ MAX_GROUP, score at most nq / n).
      if (potential < bar) break;
      // A doc shares at most n trigrams; the last group's docs may have more than MAX_GROUP.
      const most = group < listCount && group < MAX_GROUP ? group : listCount;
      let needed = sharedNeeded(nq, group, bar);
      if (needed > most) continue;
      // A doc of this group reaching the bar is in one of the first (lists − needed + 1) lists.
      const start = matchCount; // this group's docs go after the matches so far
      let touchedCount = start;
      const first = listCount - needed + 1;
      for (let l = 0; l < first; l++) {
        const at = l * GROUP_STARTS + group;
        for (let p = dirs[at]!, end = dirs[at + 1]!; p < end; p++) {
          const doc = postings[p]! & DOC_MASK;
          const count = state[doc]!;
          touched[touchedCount] = doc;
          touchedCount += (count - 1) >>> 31;
          state[doc] = count + 1;
        }
      }
      // Then the next lists too while scanning the group's postings costs less than checking each
      // doc met: a binary search costs about log2(postings) steps (32 - clz32: a step more, at
      // most), a bitmap one (a random load). Counting bitmap lists so, not only those without,
      // measured (full dataset's cities, the search bench's queries, per query in one process,
      // fastest of 5): fuzzy at 0.3 0.92× the time at the median, 0.94–0.95× on average (its
      // queries of 10–12 trigrams 0.82–0.85×), at 0.2 0.84× and at 0.45 0.96× on average;
      // autocomplete 0.90× on average, its p99 0.76–0.82×. Costing a bit 2 steps (scanning more)
      // gained as much, 4 or half a step less; the same in run()'s countFurther, whose checks
      // stop early, gained nothing.
      let counted = first;
      for (; counted < listCount; counted++) {
        const at = counted * GROUP_STARTS + group;
        const from = dirs[at]!;
        const end = dirs[at + 1]!;
        const stepsPerDoc = orderedBitmaps[counted] !== null ? 1 : 32 - Math.clz32(end - from + 2);
        if ((touchedCount - start) * stepsPerDoc < end - from) break;
        for (let p = from; p < end; p++) {
          const doc = postings[p]! & DOC_MASK;
          const count = state[doc]!;
          state[doc] = count + (-count >>> 31); // docs met only
        }
      }
      const left = listCount - counted;
      // Below the last group n is the group, so "scores at least the bar" is "shares at least
      // `needed`": integer compares instead of a division per doc. `needed` follows the bar.
      const exactN = group !== MAX_GROUP;
      for (let t = start; t < touchedCount; t++) {
        const doc = touched[t]!;
        let shared = state[doc]!;
        state[doc] = 0;
        if (excluded !== undefined && excluded[doc] !== 0) continue;
        const n = exactN ? group : docTrigramCounts[doc]!;
        if (exactN ? shared + left < needed : boundOf(shared + left, n, nq) < bar) continue;
        const posting = docPosting(group, doc);
        // Stops at the first list whose miss leaves the doc short of the bar: most docs met in one
        // or two lists need every list left, so one check settles them. Measured (full dataset's
        // cities, the search bench's fuzzy queries at 0.3, alternated in one process): 0.94× the
        // time at the median, 0.97× on average, against checking every list left.
        for (let l = counted; l < listCount; l++) {
          const bitmap = orderedBitmaps[l]!;
          if (bitmap !== null ? ((bitmap[doc >>> 5]! >>> (doc & 31)) & 1) !== 0 : contains(postings, dirs[l * GROUP_STARTS + group]!, dirs[l * GROUP_STARTS + group + 1]!, posting)) shared++;
          else if (exactN ? shared + listCount - 1 - l < needed : boundOf(shared + listCount - 1 - l, n, nq) < bar) {
            shared = -1;
            break;
          }
        }
        if (shared < 0 || (exactN && shared < needed)) continue;
        const score = Math.fround(shared / (nq + n - shared));
        if (score < bar) continue;
        touched[matchCount] = doc; // matches overwrite the docs already checked
        matchScores[matchCount++] = score;
        const next = best.offer(this.docRows[doc]!, score, kth);
        if (next !== kth) {
          bar = Math.max(threshold, tieFloor ? tieFloor((kth = next)) : (kth = next));
          needed = sharedNeeded(nq, group, bar);
        }
      }
    }
    return this.keptAbove(matchCount, bar);
  }

  /**
   * Where each group's postings start in each of the query's lists (listOrder), GROUP_STARTS per
   * list, written for the groups firstGroup..lastGroup (and the end of the last) only: a query's
   * groups are a few dozen of 128. Long lists' from groupStartsOf (a load from a cold array per
   * entry), short ones found here (a pass over them).
   */
  private queryGroupStarts(listCount: number, firstGroup: number, lastGroup: number): Int32Array {
    if (this.queryStarts.length < listCount * GROUP_STARTS) this.queryStarts = new Int32Array(Math.max(listCount, 32) * GROUP_STARTS);
    const dirs = this.queryStarts;
    for (let l = 0; l < listCount; l++) {
      const list = this.listOrder[l]!;
      const long = this.groupStartsOf(this.listSlots[list]!);
      const at = l * GROUP_STARTS;
      if (long === null) this.fillGroupStarts(dirs, at, this.listStarts[list]!, this.listEnds[list]!, firstGroup, lastGroup);
      else for (let group = firstGroup; group <= lastGroup + 1; group++) dirs[at + group] = long[group]!;
    }
    return dirs;
  }

  /** The group starts of a long list (GROUPED_MIN_POSTINGS or more), built on first use; else null. */
  private groupStartsOf(slot: number): Int32Array | null {
    const start = this.postingStarts[slot]!;
    const end = this.postingStarts[slot + 1]!;
    if (end - start < GROUPED_MIN_POSTINGS) return null;
    let starts = this.groupStartsBySlot.get(slot);
    if (starts === undefined) {
      starts = this.fillGroupStarts(new Int32Array(GROUP_STARTS), 0, start, end);
      this.groupStartsBySlot.set(slot, starts);
    }
    return starts;
  }

  /**
   * Writes the group starts of the list [start, end) at target[at .. at + GROUP_STARTS) (the start
   * of group g: its first posting of group g or above), or only those of groups firstGroup ..
   * lastGroup + 1; returns target.
   */
  private fillGroupStarts(target: Int32Array, at: number, start: number, end: number, firstGroup = 0, lastGroup = MAX_GROUP): Int32Array {
    let group = firstGroup;
    for (let p = start; p < end && group <= lastGroup + 1; p++) {
      const postingGroup = this.postings[p]! >>> DOC_BITS;
      while (group <= postingGroup && group <= lastGroup + 1) target[at + group++] = p;
    }
    while (group <= lastGroup + 1) target[at + group++] = end;
    return target;
  }

  /**
   * Whether counting `list` only up to `admittedGroup` (not up to `widestGroup`) is worth it: the
   * postings it skips outnumber, by SKIP_RATIO, the docs met so far (the most that can become
   * looser candidates for it).
   */
  private skipsEnough(list: number, admittedGroup: number, widestGroup: number, touchedCount: number, whole: boolean): boolean {
    if (admittedGroup >= widestGroup) return false;
    const segments = this.segmentsOf(list, admittedGroup + 1, widestGroup, whole);
    return this.postingsIn(segments) > SKIP_RATIO * touchedCount;
  }

  /**
   * Whether countFurther may count a further list for some group of [firstGroup, widestGroup]:
   * whether the first list not counted for it has no bitmap (countFurther stops at one with a
   * bitmap: long queries reach the common trigrams' lists within their counted lists).
   */
  private countsFurther(listCount: number, firstGroup: number, widestGroup: number): boolean {
    for (let group = firstGroup; group <= widestGroup; group++) {
      const next = this.lastCountedFor[group]! + 1;
      if (next < listCount && this.listBitmaps[this.listOrder[next]!] === null) return true;
    }
    return false;
  }

  /**
   * Step 2 of run(), continued: extends the lists counted for the candidates' groups one list at
   * a time, in list order, scanning list l's postings of the groups not yet counted in it (those
   * whose last counted list is l − 1) and counting the candidates met there (state ≠ 0). Stops at
   * the first list with a bitmap, or where a binary search per candidate of those groups costs
   * less than the scan. Keeps lastCountedFor a prefix of the lists for every group.
   */
  private countFurther(listCount: number, firstGroup: number, whole: boolean): void {
    const candidatesIn = this.candidatesIn;
    const lastCountedFor = this.lastCountedFor;
    const state = scratch.docState;
    const postings = this.postings;
    let topGroup = MAX_GROUP;
    while (candidatesIn[topGroup] === 0) topGroup--;
    // lastCountedFor falls as the group rises: the top candidate group is counted in the fewest lists.
    for (let l = lastCountedFor[topGroup]! + 1; l < listCount; l++) {
      const list = this.listOrder[l]!;
      if (this.listBitmaps[list] !== null) return;
      let needing = 0;
      let group = topGroup;
      for (; group >= firstGroup && lastCountedFor[group]! < l; group--) needing += candidatesIn[group]!;
      const fromGroup = group + 1;
      const start = this.listStarts[list]!;
      const end = this.listEnds[list]!;
      const segments = this.segmentsOf(list, fromGroup, topGroup, whole);
      if (needing * Math.log2(end - start + 2) < this.postingsIn(segments)) return;
      for (let segment = 0; segment < segments; segment++) {
        for (let p = this.segmentStarts[segment]!, segmentEnd = this.segmentEnds[segment]!; p < segmentEnd; p++) {
          const doc = postings[p]! & DOC_MASK;
          const count = state[doc]!;
          state[doc] = count + (-count >>> 31); // candidates only (count > 0)
        }
      }
      for (let g = fromGroup; g <= topGroup; g++) lastCountedFor[g] = l;
    }
  }

  /** How many postings the first `segments` segments (segmentsOf's) hold. */
  private postingsIn(segments: number): number {
    let postings = 0;
    for (let segment = 0; segment < segments; segment++) postings += this.segmentEnds[segment]! - this.segmentStarts[segment]!;
    return postings;
  }

  /**
   * The postings of `list` whose group is in [firstGroup, lastGroup] and, unless `whole`, whose
   * doc is in the search's rows (selectRows), as segments (segmentStarts / segmentEnds); returns
   * their count. Over every doc that is one segment; over a row range one per group met (the
   * group's docs in range are consecutive), found by binary search within the group's postings
   * when the list keeps its group starts (groupStartsOf), else within the rest of the list.
   */
  private segmentsOf(list: number, firstGroup: number, lastGroup: number, whole: boolean): number {
    const postings = this.postings;
    const start = this.listStarts[list]!;
    const end = this.listEnds[list]!;
    if (whole) {
      this.segmentStarts[0] = lowerBoundNearEnds(postings, start, end, postingOf(firstGroup, 0));
      this.segmentEnds[0] = lowerBoundNearEnds(postings, this.segmentStarts[0]!, end, postingOf(lastGroup + 1, 0));
      return 1;
    }
    const { starts: rangeStarts, ends: rangeEnds } = this.rowRanges!;
    const range = this.rangeAt; // the search's doc range of group g: [rangeStarts[range + g], rangeEnds[range + g])
    const groupStarts = this.searchesByGroup ? this.groupStartsOf(this.listSlots[list]!) : null;
    let count = 0;
    if (groupStarts !== null) {
      for (let group = firstGroup; group <= lastGroup; group++) {
        const groupEnd = groupStarts[group + 1]!;
        if (groupStarts[group] === groupEnd || rangeStarts[range + group] === rangeEnds[range + group]) continue;
        const from = lowerBound(postings, groupStarts[group]!, groupEnd, postingOf(group, rangeStarts[range + group]!));
        const to = lowerBoundFrom(postings, from, groupEnd, postingOf(group, rangeEnds[range + group]!));
        if (to > from) count = this.addSegment(count, from, to);
      }
      return count;
    }
    let at = lowerBound(postings, start, end, postingOf(firstGroup, rangeStarts[range + firstGroup]!));
    while (at < end) {
      const group = postings[at]! >>> DOC_BITS;
      if (group > lastGroup) break;
      // `at` is the first posting of `group` in range (or before it: `at` sought another group's range).
      const groupStart = rangeStarts[range + group]!;
      const from = (postings[at]! & DOC_MASK) >= groupStart ? at : lowerBound(postings, at, end, postingOf(group, groupStart));
      const to = lowerBoundFrom(postings, from, end, postingOf(group, rangeEnds[range + group]!));
      if (to > from) count = this.addSegment(count, from, to);
      if (group === lastGroup) break;
      at = lowerBound(postings, to, end, postingOf(group + 1, rangeStarts[range + group + 1]!));
    }
    return count;
  }

  /** Records the segment [from, to) after the first `count`; returns the new count. */
  private addSegment(count: number, from: number, to: number): number {
    if (count === this.segmentStarts.length) {
      this.segmentStarts = grown(this.segmentStarts);
      this.segmentEnds = grown(this.segmentEnds);
    }
    this.segmentStarts[count] = from;
    this.segmentEnds[count] = to;
    return count + 1;
  }

  /** Keeps the first matchCount matches (touched / matchScores) scoring ≥ bar, in place; returns their count. */
  private keptAbove(matchCount: number, bar: number): number {
    const matches = scratch.touched;
    const matchScores = scratch.matchScores;
    let kept = 0;
    for (let m = 0; m < matchCount; m++) {
      // Drops the matches of a top-k search recorded before the bar rose above them.
      if (matchScores[m]! >= bar) {
        matches[kept] = matches[m]!;
        matchScores[kept++] = matchScores[m]!;
      }
    }
    this.lastFloor = bar;
    return kept;
  }

  private noMatches(floor: number): number {
    this.lastFloor = floor;
    return 0;
  }

  /** The first `count` results of the last search, copied out. */
  private copied(count: number): TrigramMatches {
    return { docs: this.resultDocs.slice(0, count), scores: Float64Array.from(this.resultScores.subarray(0, count)), floor: this.lastFloor };
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
    whole: boolean,
  ): number {
    const { touched, matchScores } = scratchFor(this.docRows.length);
    if (scratch.wideCounters.length < this.docRows.length) scratch.wideCounters = new Uint16Array(this.docRows.length);
    const counters = scratch.wideCounters;
    const postings = this.postings;
    // The search's doc range of each group (selectRows), read per posting: out of the loop.
    const rangeStarts = whole ? NO_DOCS : this.rowRanges!.starts;
    const rangeEnds = whole ? NO_DOCS : this.rowRanges!.ends;
    const rangeAt = this.rangeAt;
    let touchedCount = 0;
    for (let list = 0; list < listCount; list++) {
      for (let p = this.listStarts[list]!, end = this.listEnds[list]!; p < end; p++) {
        const posting = postings[p]!;
        const doc = posting & DOC_MASK;
        const group = posting >>> DOC_BITS;
        if (!whole && (doc < rangeStarts[rangeAt + group]! || doc >= rangeEnds[rangeAt + group]!)) continue;
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
    return this.keptAbove(matchCount, bar);
  }

  /** The membership bitmap of the trigram in `slot` (its whole list, whatever the doc range). */
  private bitmapOf(slot: number): Int32Array {
    let bitmap = this.bitmapsBySlot.get(slot);
    if (!bitmap) {
      bitmap = new Int32Array((this.docRows.length + 31) >>> 5);
      for (let p = this.postingStarts[slot]!, end = this.postingStarts[slot + 1]!; p < end; p++) {
        const doc = this.postings[p]! & DOC_MASK;
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

  /**
   * Selects the docs of rows [rowStart, rowEnd) in groups [firstGroup, lastGroup] for the search
   * under way (segmentsOf, runWide); returns whether any doc is in range. Only the groups whose
   * docs can match are asked for: each costs two binary searches unless remembered (GroupRowRanges).
   */
  private selectRows(rowStart: number, rowEnd: number, firstGroup: number, lastGroup: number): boolean {
    this.rowRanges ??= new GroupRowRanges(this.docRows, this.groupFirstDocs);
    this.rangeAt = this.rowRanges.select(rowStart, rowEnd, firstGroup, lastGroup);
    return this.rowRanges.anyIn(this.rangeAt, firstGroup, lastGroup);
  }

  /** The code directory (codeDirectory), built on first use; null in an index of fewer than DIRECTORY_MIN_CODES codes. */
  private directory(): Int32Array | null {
    if (this.codeDirectory === undefined) {
      if (this.codes.length < DIRECTORY_MIN_CODES) this.codeDirectory = null;
      else {
        const directory = new Int32Array(CODE_BUCKETS + 1);
        let slot = 0;
        for (let bucket = 0; bucket <= CODE_BUCKETS; bucket++) {
          while (slot < this.codes.length && this.codes[slot]! >>> CODE_BUCKET_SHIFT < bucket) slot++;
          directory[bucket] = slot;
        }
        this.codeDirectory = directory;
      }
    }
    return this.codeDirectory;
  }

  /** Finds the posting list of each query trigram; orders them shortest first. */
  private collectLists(queryTrigrams: Int32Array): number {
    if (this.listStarts.length < queryTrigrams.length) {
      this.listStarts = new Int32Array(queryTrigrams.length);
      this.listEnds = new Int32Array(queryTrigrams.length);
      this.listSlots = new Int32Array(queryTrigrams.length);
    }
    let count = 0;
    const directory = this.directory();
    for (const code of queryTrigrams) {
      const bucket = code >>> CODE_BUCKET_SHIFT;
      const slot = directory === null ? lowerBound(this.codes, 0, this.codes.length, code) : lowerBound(this.codes, directory[bucket]!, directory[bucket + 1]!, code);
      if (slot === this.codes.length || this.codes[slot] !== code) continue;
      const start = this.postingStarts[slot]!;
      const end = this.postingStarts[slot + 1]!;
      this.listBitmaps[count] = end - start >= BITMAP_MIN_POSTINGS ? this.bitmapOf(slot) : null;
      this.listSlots[count] = slot;
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

/**
 * Where each group's docs start (GROUP_STARTS entries, the last the doc count), checking that
 * docs come group by group, rows ascending within a group (format 5 on; before, docs were in row
 * order alone, which this refuses stating the first doc out of order).
 */
function groupFirstDocsOf(docRows: Int32Array, docTrigramCounts: Uint16Array, what: string): Int32Array {
  const firstDocs = new Int32Array(GROUP_STARTS);
  let group = 0;
  for (let doc = 0; doc < docRows.length; doc++) {
    const docGroup = groupOf(docTrigramCounts[doc]!);
    if (docGroup < group || (docGroup === group && doc > 0 && docRows[doc]! < docRows[doc - 1]!)) {
      throw new SnapshotFormatError(
        `${what}: expected docs by trigram count (up to ${MAX_GROUP}) then row, found doc ${doc} (row ${docRows[doc]}, group ${docGroup}) after row ${docRows[doc - 1]} of group ${group}`,
      );
    }
    while (group < docGroup) firstDocs[++group] = doc;
  }
  while (group < GROUP_STARTS - 1) firstDocs[++group] = docRows.length;
  return firstDocs;
}

/**
 * The fewest query trigrams a doc with n trigrams must share to score at least `bar` (more than
 * min(n, nq) when none is enough): c / (nq + n − c) grows with c, so the first c whose float4
 * score reaches it.
 */
function sharedNeeded(nq: number, n: number, bar: number): number {
  const most = n < nq ? n : nq;
  let needed = 1;
  while (needed <= most && Math.fround(needed / (nq + n - needed)) < bar) needed++;
  return needed;
}

/** The best score a doc with n trigrams sharing at most `shared` query trigrams can reach. */
function boundOf(shared: number, n: number, nq: number): number {
  const c = shared < n ? shared : n;
  return Math.fround(c / (nq + n - c));
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
    // Most offers once k rows are held change nothing: a score not above the k-th best cannot
    // enter, nor raise a row held already (its score is at least the k-th best's).
    if (this.count === this.k && score <= scores[this.k - 1]!) return bar;
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

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/**
 * lowerBound, searching outwards from both ends first (1, 2, 4… positions in): a group boundary
 * usually sits near one end of a list (few docs have very few or very many trigrams), so this
 * takes a few steps where a plain binary search of a long list takes ~15.
 */
function lowerBoundNearEnds(array: Int32Array, start: number, end: number, value: number): number {
  let step = 1;
  while (start + step < end - step) {
    if (array[start + step - 1]! >= value) return lowerBound(array, start, start + step - 1, value);
    if (array[end - step]! < value) return lowerBound(array, end - step + 1, end, value);
    step *= 2;
  }
  return lowerBound(array, start, end, value);
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
