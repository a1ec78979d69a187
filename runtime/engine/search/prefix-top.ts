// The best-ranked rows of a prefix range without visiting the whole range. A short prefix ("ma")
// opens a range of tens of thousands of prefix-index entries, while autocomplete shows ten rows;
// among name/native prefix matches the ranking rules reduce to rank = (prominence desc, id asc)
// per row (rule 1 splits exact from starts-with, rules 2–3 tie, rules 4–5 decide), so the answer
// is the k smallest ranks in the range — a top-k range-minimum query:
//   entryRank[i]  rank of entry i's row
//   blockMin[b]   min of entryRank over block b (BLOCK entries), with a sparse table over blocks
//   top-k         a heap of sub-ranges keyed by their minimum: pop the best, split around it.
// Cost per returned row: O(log k + BLOCK), whatever the size of the range.
import { ArrayPack, ArrayPackBuilder } from '../../format/array-pack.js';
import { SnapshotFormatError } from '../../format/section.js';
import type { PrefixIndex } from '../../indexes/prefix-index.js';
import type { RowRanges } from './row-filter.js';

/** Layout version of shared()'s buffer. */
const LAYOUT_VERSION = 1;
const BLOCK = 32;
/**
 * What eachBestAllowed's visit of an allowed row costs against its read of one entry of the range
 * (a row's entries are a random read away; the range's ranks are read in order), as measured.
 */
const ROW_COST = 4;

export class PrefixTop {
  // Heap of sub-ranges [from, to) by their minimum rank (reused).
  private heapRank = new Int32Array(64);
  private heapPos = new Int32Array(64);
  private heapFrom = new Int32Array(64);
  private heapTo = new Int32Array(64);
  private heapSize = 0;
  // eachBestAllowed's best ranks so far and their rows, ascending by rank (reused), how many are
  // held, and the rank a row must beat once `wanted` are.
  private keptRanks = new Int32Array(16);
  private keptRows = new Int32Array(16);
  private held = 0;
  private worst = 0x7fffffff;

  /**
   * `rankOfRow[row]`: 0 for the best-ranked row. Returns null when a row's prominence is NaN
   * (the ranking comparator is then not a total order: callers scan instead).
   */
  static build(prefix: PrefixIndex, rowCount: number, prominence: Float64Array, idAt: (row: number) => number): PrefixTop | null {
    for (let row = 0; row < rowCount; row++) if (Number.isNaN(prominence[row]!)) return null;
    const ids = new Float64Array(rowCount);
    for (let row = 0; row < rowCount; row++) ids[row] = idAt(row);
    const order = new Int32Array(rowCount);
    for (let row = 0; row < rowCount; row++) order[row] = row;
    order.sort((a, b) => prominence[b]! - prominence[a]! || ids[a]! - ids[b]!);
    const rankOfRow = new Int32Array(rowCount);
    for (let rank = 0; rank < rowCount; rank++) rankOfRow[order[rank]!] = rank;
    return PrefixTop.fromRanks(prefix, rowCount, rankOfRow);
  }

  private static fromRanks(prefix: PrefixIndex, rowCount: number, rankOfRow: Int32Array): PrefixTop {
    const entries = prefix.count;
    const entryRank = new Int32Array(entries);
    const entryStart = new Int32Array(rowCount + 1);
    for (let i = 0; i < entries; i++) {
      const row = prefix.row(i);
      entryRank[i] = rankOfRow[row]!;
      entryStart[row + 1]!++;
    }
    for (let row = 0; row < rowCount; row++) entryStart[row + 1]! += entryStart[row]!;
    const fill = entryStart.slice(0, rowCount);
    const entriesOfRow = new Int32Array(entries);
    for (let i = 0; i < entries; i++) entriesOfRow[fill[prefix.row(i)]!++] = i;

    const blocks = Math.ceil(entries / BLOCK);
    const base = new Int32Array(blocks).fill(0x7fffffff);
    for (let i = 0; i < entries; i++) {
      const b = (i / BLOCK) | 0;
      if (entryRank[i]! < base[b]!) base[b] = entryRank[i]!;
    }
    const first = new Int32Array(blocks);
    for (let b = 0; b < blocks; b++) first[b] = b;
    const levels = [first];
    for (let width = 2; width <= blocks; width *= 2) {
      const previous = levels[levels.length - 1]!;
      const half = width >>> 1;
      const level = new Int32Array(blocks - width + 1);
      for (let b = 0; b < level.length; b++) {
        const x = previous[b]!;
        const y = previous[b + half]!;
        level[b] = base[y]! < base[x]! ? y : x;
      }
      levels.push(level);
    }
    return new PrefixTop(prefix, entryRank, base, levels, entryStart, entriesOfRow);
  }

  /**
   * Its arrays in one SharedArrayBuffer (ArrayPack: header [layout, rows, entries, BLOCK],
   * entryRank, blockMin, entryStart, entriesOfRow, then the sparse-table levels), so the main
   * thread builds it once and every worker thread reads the same bytes (PrefixTop.from).
   */
  shared(): SharedArrayBuffer {
    const rowCount = this.entryStart.length - 1;
    const builder = new ArrayPackBuilder()
      .add(Int32Array.of(LAYOUT_VERSION, rowCount, this.entryRank.length, BLOCK))
      .add(this.entryRank)
      .add(this.blockMin)
      .add(this.entryStart)
      .add(this.entriesOfRow);
    for (const level of this.levels) builder.add(level);
    return builder.finishShared();
  }

  /** The PrefixTop of `prefix` from shared()'s buffer; refuses one built for another index or row count. */
  static from(prefix: PrefixIndex, rowCount: number, buffer: ArrayBufferLike, what = 'prefix top'): PrefixTop {
    const pack = ArrayPack.from(buffer, 0, what);
    const header = pack.get(0, Int32Array, what);
    const expected = [LAYOUT_VERSION, rowCount, prefix.count, BLOCK];
    if (header.length !== 4 || header.some((value, i) => value !== expected[i])) {
      throw new SnapshotFormatError(`${what}: expected header [layout, rows, entries, block] ${JSON.stringify(expected)}, found ${JSON.stringify([...header])}`);
    }
    const entries = prefix.count;
    const blocks = Math.ceil(entries / BLOCK);
    const entryRank = pack.get(1, Int32Array, what);
    const blockMin = pack.get(2, Int32Array, what);
    const entryStart = pack.get(3, Int32Array, what);
    const entriesOfRow = pack.get(4, Int32Array, what);
    const lengths = [entryRank.length, blockMin.length, entryStart.length, entriesOfRow.length];
    if (lengths.join() !== [entries, blocks, rowCount + 1, entries].join()) {
      throw new SnapshotFormatError(`${what}: expected arrays of ${[entries, blocks, rowCount + 1, entries].join(', ')} elements, found ${lengths.join(', ')}`);
    }
    const levels: Int32Array[] = [];
    for (let j = 0, width = 1; width <= blocks || j === 0; j++, width *= 2) {
      const level = pack.get(5 + j, Int32Array, what);
      if (level.length !== Math.max(0, blocks - width + 1)) throw new SnapshotFormatError(`${what}: level ${j}: expected ${blocks - width + 1} elements, found ${level.length}`);
      levels.push(level);
    }
    if (pack.length !== 5 + levels.length) throw new SnapshotFormatError(`${what}: expected ${5 + levels.length} arrays, found ${pack.length}`);
    return new PrefixTop(prefix, entryRank, blockMin, levels, entryStart, entriesOfRow);
  }

  private constructor(
    private readonly prefix: PrefixIndex,
    private readonly entryRank: Int32Array,
    /** blockMin[b] = min of entryRank over block b. */
    private readonly blockMin: Int32Array,
    /** levels[j][b] = the block of blocks b .. b + 2^j − 1 holding the smallest blockMin. */
    private readonly levels: Int32Array[],
    /** The entries of each row (CSR): entriesOfRow[entryStart[row] .. entryStart[row + 1]). */
    private readonly entryStart: Int32Array,
    private readonly entriesOfRow: Int32Array,
  ) {}

  /** The entries of `row` (positions in the prefix index), for scoring its matches. */
  entriesOf(row: number): Int32Array {
    return this.entriesOfRow.subarray(this.entryStart[row]!, this.entryStart[row + 1]!);
  }

  /**
   * entriesOf without a view per row (the request path's form): row's entries are entryAt(j)
   * for j in [entriesStart(row), entriesStart(row + 1)).
   */
  entriesStart(row: number): number {
    return this.entryStart[row]!;
  }

  entryAt(j: number): number {
    return this.entriesOfRow[j]!;
  }

  /**
   * Calls take(row) for distinct rows of entries [from, to) in rank order (best first), skipping
   * rows for which isTaken(row) is true, until take has been called `wanted` times or the range
   * is exhausted. Returns how many rows were taken.
   */
  eachBest(from: number, to: number, wanted: number, isTaken: (row: number) => boolean, take: (row: number) => void): number {
    this.heapSize = 0;
    if (from < to) this.push(from, to);
    let taken = 0;
    while (taken < wanted && this.heapSize > 0) {
      const position = this.heapPos[0]!;
      const start = this.heapFrom[0]!;
      const end = this.heapTo[0]!;
      this.pop();
      if (start < position) this.push(start, position);
      if (position + 1 < end) this.push(position + 1, end);
      const row = this.prefix.row(position);
      if (isTaken(row)) continue;
      take(row);
      taken++;
    }
    return taken;
  }

  /**
   * eachBest among the rows `allowed` holds (a country's or a state's: row ranges spread over the
   * prefix range, which the range-minimum query cannot skip to). One pass keeps the `wanted` best
   * ranks of allowed, untaken rows with an entry in [from, to): over the range's entries (an entry
   * whose rank cannot enter them is passed over on its rank alone, before its row is read), or,
   * when the allowed span has far fewer rows than the range has entries, over those rows' own entries.
   * Then take(row) in rank order. The cost is a few ns per entry or row, whichever are fewer, where
   * offering every allowed row to the page cost a comparator call and an id read each (`sa` within
   * Mexico: thousands of rows).
   */
  eachBestAllowed(from: number, to: number, wanted: number, allowed: RowRanges, isTaken: (row: number) => boolean, take: (row: number) => void): number {
    if (this.keptRanks.length < wanted) {
      this.keptRanks = new Int32Array(wanted);
      this.keptRows = new Int32Array(wanted);
    }
    const ranks = this.entryRank;
    const [spanStart, spanEnd] = allowed.span;
    const oneRange = allowed.isOneRange;
    this.held = 0;
    this.worst = 0x7fffffff;
    if ((spanEnd - spanStart) * ROW_COST < to - from) {
      // Far fewer allowed rows than entries in the range (a state, a small country): each row's
      // own entries say whether it is in the range.
      for (let row = spanStart; row < spanEnd; row++) {
        for (let j = this.entryStart[row]!, last = this.entryStart[row + 1]!; j < last; j++) {
          const i = this.entriesOfRow[j]!;
          if (i < from || i >= to) continue;
          if (ranks[i]! < this.worst && (oneRange || allowed.has(row)) && !isTaken(row)) this.keep(ranks[i]!, row, wanted);
          break;
        }
      }
    } else {
      for (let i = from; i < to; i++) {
        const rank = ranks[i]!;
        if (rank >= this.worst) continue;
        const row = this.prefix.row(i);
        if (row < spanStart || row >= spanEnd || (!oneRange && !allowed.has(row)) || isTaken(row)) continue;
        this.keep(rank, row, wanted);
      }
    }
    const held = this.held;
    for (let j = 0; j < held; j++) take(this.keptRows[j]!);
    return held;
  }

  /** Holds (rank, row) among eachBestAllowed's `wanted` best so far (rank < worst). */
  private keep(rank: number, row: number, wanted: number): void {
    const keptRanks = this.keptRanks;
    const keptRows = this.keptRows;
    // Ranks are one per row: a row met again (its name and native both in the range) is held already.
    let at = this.held;
    while (at > 0 && keptRanks[at - 1]! > rank) at--;
    if (at > 0 && keptRanks[at - 1] === rank) return;
    if (this.held < wanted) this.held++;
    for (let j = this.held - 1; j > at; j--) {
      keptRanks[j] = keptRanks[j - 1]!;
      keptRows[j] = keptRows[j - 1]!;
    }
    keptRanks[at] = rank;
    keptRows[at] = row;
    if (this.held === wanted) this.worst = keptRanks[wanted - 1]!;
  }

  /** Position of the smallest entryRank in [from, to) (from < to). */
  private minPosition(from: number, to: number): number {
    const ranks = this.entryRank;
    if (to - from <= 2 * BLOCK) return scanMin(ranks, from, to);
    const firstFull = Math.ceil(from / BLOCK);
    const lastFull = Math.floor(to / BLOCK); // full blocks: [firstFull, lastFull)
    let best = firstFull * BLOCK > from ? scanMin(ranks, from, firstFull * BLOCK) : -1;
    if (lastFull > firstFull) {
      const span = lastFull - firstFull;
      const j = 31 - Math.clz32(span);
      const level = this.levels[j]!;
      const x = level[firstFull]!;
      const y = level[lastFull - (1 << j)]!;
      const block = this.blockMin[y]! < this.blockMin[x]! ? y : x;
      if (best < 0 || this.blockMin[block]! < ranks[best]!) best = scanMin(ranks, block * BLOCK, block * BLOCK + BLOCK);
    }
    if (lastFull * BLOCK < to) {
      const right = scanMin(ranks, Math.max(from, lastFull * BLOCK), to);
      if (best < 0 || ranks[right]! < ranks[best]!) best = right;
    }
    return best;
  }

  private push(from: number, to: number): void {
    const position = this.minPosition(from, to);
    if (this.heapSize === this.heapRank.length) this.grow();
    let at = this.heapSize++;
    const rank = this.entryRank[position]!;
    while (at > 0) {
      const parent = (at - 1) >>> 1;
      if (this.heapRank[parent]! <= rank) break;
      this.move(parent, at);
      at = parent;
    }
    this.heapRank[at] = rank;
    this.heapPos[at] = position;
    this.heapFrom[at] = from;
    this.heapTo[at] = to;
  }

  private pop(): void {
    const last = --this.heapSize;
    if (last === 0) return;
    const rank = this.heapRank[last]!;
    const position = this.heapPos[last]!;
    const from = this.heapFrom[last]!;
    const to = this.heapTo[last]!;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= last) break;
      if (child + 1 < last && this.heapRank[child + 1]! < this.heapRank[child]!) child++;
      if (this.heapRank[child]! >= rank) break;
      this.move(child, at);
      at = child;
    }
    this.heapRank[at] = rank;
    this.heapPos[at] = position;
    this.heapFrom[at] = from;
    this.heapTo[at] = to;
  }

  private move(from: number, to: number): void {
    this.heapRank[to] = this.heapRank[from]!;
    this.heapPos[to] = this.heapPos[from]!;
    this.heapFrom[to] = this.heapFrom[from]!;
    this.heapTo[to] = this.heapTo[from]!;
  }

  private grow(): void {
    const size = this.heapRank.length * 2;
    const grown = (old: Int32Array) => {
      const next = new Int32Array(size);
      next.set(old);
      return next;
    };
    this.heapRank = grown(this.heapRank);
    this.heapPos = grown(this.heapPos);
    this.heapFrom = grown(this.heapFrom);
    this.heapTo = grown(this.heapTo);
  }
}

function scanMin(ranks: Int32Array, from: number, to: number): number {
  let best = from;
  for (let i = from + 1; i < to; i++) if (ranks[i]! < ranks[best]!) best = i;
  return best;
}
