// The docs of a row range, group by group, for TrigramIndex (trigram-index.ts): docs are numbered
// by group (their trigram count), rows ascending within a group, so the docs of rows
// [rowStart, rowEnd) are one doc range per group, found by two binary searches over docRows.
// That is ~1.5 µs for the ~30 groups a typical query reads (full dataset's cities), per index
// searched: a country-filtered search would pay it on every request. Searches filter by a few
// row ranges over and over (a form's country, a state's cities), so the last SLOTS ranges are
// kept, each with the groups found so far.

/** Row ranges remembered per index (1 KiB each for 128 groups). */
const SLOTS = 16;

export class GroupRowRanges {
  /** Per slot, per group: the first doc in range and the doc after the last (starts / ends[slot * groups + group]). */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  private readonly groups: number;
  /** Per slot: its row range (NaN: none yet). Any number a caller passes is kept exactly. */
  private readonly rowStarts = new Float64Array(SLOTS).fill(NaN);
  private readonly rowEnds = new Float64Array(SLOTS).fill(NaN);
  /** Per slot: the groups [lowGroup, highGroup] found so far (empty: low > high). */
  private readonly lowGroups = new Int32Array(SLOTS);
  private readonly highGroups = new Int32Array(SLOTS).fill(-1);
  /** The slot a new row range replaces (the oldest). */
  private nextSlot = 0;

  /**
   * @param docRows each doc's row, ascending within each group
   * @param groupFirstDocs the docs of group g are [groupFirstDocs[g], groupFirstDocs[g + 1])
   */
  constructor(
    private readonly docRows: Int32Array,
    private readonly groupFirstDocs: Int32Array,
  ) {
    this.groups = groupFirstDocs.length - 1;
    this.starts = new Int32Array(SLOTS * this.groups);
    this.ends = new Int32Array(SLOTS * this.groups);
  }

  /**
   * Where the doc ranges of rows [rowStart, rowEnd) are for groups [firstGroup, lastGroup]:
   * starts / ends[at + group]. Valid until the next select().
   */
  select(rowStart: number, rowEnd: number, firstGroup: number, lastGroup: number): number {
    let slot = 0;
    while (slot < SLOTS && (this.rowStarts[slot] !== rowStart || this.rowEnds[slot] !== rowEnd)) slot++;
    if (slot === SLOTS) {
      slot = this.nextSlot;
      this.nextSlot = (slot + 1) % SLOTS;
      this.rowStarts[slot] = rowStart;
      this.rowEnds[slot] = rowEnd;
      this.lowGroups[slot] = firstGroup;
      this.highGroups[slot] = firstGroup - 1;
    }
    const low = this.lowGroups[slot]!;
    const high = this.highGroups[slot]!;
    const at = slot * this.groups;
    if (firstGroup < low) this.find(rowStart, rowEnd, at, firstGroup, low - 1);
    // From high + 1 on, so the groups found stay one interval.
    if (lastGroup > high) this.find(rowStart, rowEnd, at, high + 1, lastGroup);
    if (firstGroup < low) this.lowGroups[slot] = firstGroup;
    if (lastGroup > high) this.highGroups[slot] = lastGroup;
    return at;
  }

  /** Whether any group of [firstGroup, lastGroup] has a doc in the ranges at `at` (select's). */
  anyIn(at: number, firstGroup: number, lastGroup: number): boolean {
    for (let group = firstGroup; group <= lastGroup; group++) if (this.ends[at + group]! > this.starts[at + group]!) return true;
    return false;
  }

  /**
   * The ranges of groups [firstGroup, lastGroup] into starts / ends at `at`: a binary search per
   * group for the start, and the end found from it (lowerBoundFrom: a state's cities are a few
   * docs per group). Measured on the full dataset's cities, ~1.5 µs for 30 groups; running the
   * groups' searches side by side a step at a time took twice as long.
   */
  private find(rowStart: number, rowEnd: number, at: number, firstGroup: number, lastGroup: number): void {
    const docRows = this.docRows;
    for (let group = firstGroup; group <= lastGroup; group++) {
      const end = this.groupFirstDocs[group + 1]!;
      const from = lowerBound(docRows, this.groupFirstDocs[group]!, end, rowStart);
      this.starts[at + group] = from;
      this.ends[at + group] = lowerBoundFrom(docRows, from, end, rowEnd);
    }
  }
}

/**
 * lowerBound for a value expected near `start`: steps of 1, 2, 4… from it, then a binary search
 * within the last step. A range's end is usually a few docs or postings after its start (a
 * state's cities), which this finds in a few steps where halving a long array takes ~15.
 */
export function lowerBoundFrom(array: Int32Array, start: number, end: number, value: number): number {
  let step = 1;
  let lo = start;
  while (lo + step < end && array[lo + step - 1]! < value) {
    lo += step;
    step *= 2;
  }
  return lowerBound(array, lo, Math.min(lo + step, end), value);
}

/** First position in [start, end) of an ascending array holding a value ≥ value. */
export function lowerBound(array: Int32Array, start: number, end: number, value: number): number {
  let lo = start;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (array[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
