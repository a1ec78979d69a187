// Rows grouped by a per-row value (a posting list per value, CSR layout): for each value, the rows
// holding it, ascending. The postcode search walks the group of a filter's value instead of
// scanning a country's rows for it, so a filter matching few rows late in a country costs what
// those rows cost, not the country's length.
// Built with `RowGroups.build(valueByRow, valueCount)` (rows whose value is outside
// [0, valueCount) are in no group), shared with `shared()`, read with `RowGroups.from(buffer)`.
//
// ArrayPack, arrays in this order:
//   0 header  Int32Array [LAYOUT_VERSION, valueCount, rowCount (the rows grouped)]
//   1 starts  Int32Array (valueCount + 1): the group of value v is rows[starts[v], starts[v + 1])
//   2 rows    Int32Array (rowCount): row indexes, ascending within each group
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';

const LAYOUT_VERSION = 1;

export class RowGroups {
  private constructor(
    private readonly buffer: SharedArrayBuffer | null,
    /** Values 0 … valueCount − 1 have a group (maybe empty). */
    readonly valueCount: number,
    readonly starts: Int32Array,
    readonly rows: Int32Array,
  ) {}

  /** Groups the rows of `valueByRow` by value (a counting sort: two passes over the column). */
  static build(valueByRow: ArrayLike<number>, valueCount: number): RowGroups {
    const starts = new Int32Array(valueCount + 1);
    for (let row = 0; row < valueByRow.length; row++) {
      const value = valueByRow[row]!;
      if (value >= 0 && value < valueCount) starts[value + 1]!++;
    }
    for (let value = 0; value < valueCount; value++) starts[value + 1]! += starts[value]!;
    const rows = new Int32Array(starts[valueCount]!);
    const next = starts.slice(0, valueCount);
    for (let row = 0; row < valueByRow.length; row++) {
      const value = valueByRow[row]!;
      if (value >= 0 && value < valueCount) rows[next[value]!++] = row;
    }
    const shared = new ArrayPackBuilder().add(Int32Array.of(LAYOUT_VERSION, valueCount, rows.length)).add(starts).add(rows).finishShared();
    return RowGroups.from(shared, 'row groups');
  }

  /** Reads shared()'s buffer; states expected vs found when it is not one. */
  static from(buffer: ArrayBufferLike, what = 'row groups'): RowGroups {
    const pack = ArrayPack.from(buffer, 0, what);
    if (pack.length !== 3) throw new SnapshotFormatError(`${what}: expected 3 arrays (header, starts, rows), found ${pack.length}`);
    const header = pack.get(0, Int32Array, what);
    if (header.length !== 3 || header[0] !== LAYOUT_VERSION) {
      throw new SnapshotFormatError(`${what}: expected header [layout ${LAYOUT_VERSION}, values, rows], found ${JSON.stringify([...header])}`);
    }
    const valueCount = header[1]!;
    const starts = pack.get(1, Int32Array, what);
    const rows = pack.get(2, Int32Array, what);
    if (starts.length !== valueCount + 1 || rows.length !== header[2] || starts[0] !== 0 || starts[valueCount] !== rows.length) {
      throw new SnapshotFormatError(`${what}: expected ${valueCount + 1} starts from 0 to ${header[2]} and ${header[2]} rows, found ${starts.length} starts (${starts[0]} to ${starts[starts.length - 1]}) and ${rows.length} rows`);
    }
    return new RowGroups(buffer instanceof SharedArrayBuffer ? buffer : null, valueCount, starts, rows);
  }

  /** The buffer the groups live in, for every thread (built by build()). */
  shared(): SharedArrayBuffer {
    if (this.buffer === null) throw new Error('row groups read from an ArrayBuffer cannot be shared');
    return this.buffer;
  }

  /** Index into `rows` of the first row ≥ `row` in the group of `value` (its end when none). */
  lowerBound(value: number, row: number): number {
    const rows = this.rows;
    let lo = this.starts[value]!;
    let hi = this.starts[value + 1]!;
    // Bounds outside the group (a first page: the group lies within its country) need no search.
    if (lo === hi || row <= rows[lo]!) return lo;
    if (row > rows[hi - 1]!) return hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rows[mid]! < row) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** How many rows of the group of `value` lie in [from, to). */
  countIn(value: number, from: number, to: number): number {
    return this.lowerBound(value, to) - this.lowerBound(value, from);
  }
}
