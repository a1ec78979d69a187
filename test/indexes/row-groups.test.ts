// RowGroups: rows grouped by a per-row value come back through the shared buffer (round trip),
// each group holds exactly the rows with its value, ascending, and lowerBound / countIn agree with
// a brute-force filter of the column (oracle); a buffer that is not one is refused with expected
// vs found.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArrayPackBuilder } from '../../runtime/format/array-pack.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { RowGroups } from '../../runtime/indexes/row-groups.js';
import { prng } from './helpers.js';

/** A column of `rows` values in [-1, valueCount + 2): some rows in no group, some beyond the groups. */
function randomColumn(random: () => number, rows: number, valueCount: number): Int32Array {
  // Skewed: value 0 is common, the rest rare, as state codes and localities are.
  return Int32Array.from({ length: rows }, () => (random() < 0.3 ? 0 : Math.floor(random() * (valueCount + 3)) - 1));
}

describe('RowGroups', () => {
  it('round-trips through its shared buffer: the same starts and rows', () => {
    const column = randomColumn(prng(7), 5_000, 40);
    const built = RowGroups.build(column, 40);
    const read = RowGroups.from(built.shared(), 'test');
    assert.equal(read.valueCount, 40);
    assert.deepEqual([...read.starts], [...built.starts]);
    assert.deepEqual([...read.rows], [...built.rows]);
  });

  it('groups every row with a value in range, ascending, and no other (brute-force oracle)', () => {
    const random = prng(11);
    for (const [rows, valueCount] of [[0, 0], [1, 1], [300, 1], [2_000, 7], [10_000, 500]] as const) {
      const column = randomColumn(random, rows, valueCount);
      const groups = RowGroups.build(column, valueCount);
      let grouped = 0;
      for (let value = 0; value < valueCount; value++) {
        const expected = [...column.keys()].filter((row) => column[row] === value);
        assert.deepEqual([...groups.rows.subarray(groups.starts[value], groups.starts[value + 1])], expected, `value ${value} of ${valueCount}`);
        grouped += expected.length;
      }
      assert.equal(groups.rows.length, grouped, 'rows outside [0, valueCount) are in no group');
    }
  });

  it('lowerBound and countIn agree with a filter of the group, at any bounds (brute-force oracle)', () => {
    const random = prng(23);
    const rows = 3_000;
    const column = randomColumn(random, rows, 30);
    const groups = RowGroups.build(column, 30);
    for (let run = 0; run < 2_000; run++) {
      const value = Math.floor(random() * 30);
      const from = Math.floor(random() * (rows + 2)) - 1;
      const to = from + Math.floor(random() * rows);
      const group = [...groups.rows.subarray(groups.starts[value], groups.starts[value + 1])];
      const firstAtOrAfter = group.findIndex((row) => row >= from);
      assert.equal(groups.lowerBound(value, from), groups.starts[value]! + (firstAtOrAfter < 0 ? group.length : firstAtOrAfter), `lowerBound(${value}, ${from})`);
      assert.equal(groups.countIn(value, from, to), group.filter((row) => row >= from && row < to).length, `countIn(${value}, ${from}, ${to})`);
    }
  });

  it('refuses a buffer that is not its layout, saying what it expected and found', () => {
    const twoArrays = new ArrayPackBuilder().add(Int32Array.of(1, 0, 0)).add(Int32Array.of(0)).finishShared();
    assert.throws(() => RowGroups.from(twoArrays, 'groups'), (error: Error) => error instanceof SnapshotFormatError && /groups: expected 3 arrays \(header, starts, rows\), found 2/.test(error.message));
    const otherLayout = new ArrayPackBuilder().add(Int32Array.of(9, 0, 0)).add(Int32Array.of(0)).add(new Int32Array(0)).finishShared();
    assert.throws(() => RowGroups.from(otherLayout, 'groups'), /groups: expected header \[layout 1, values, rows\], found \[9,0,0\]/);
    const cut = new ArrayPackBuilder().add(Int32Array.of(1, 2, 3)).add(Int32Array.of(0, 1, 3)).add(Int32Array.of(0, 1)).finishShared();
    assert.throws(() => RowGroups.from(cut, 'groups'), /groups: expected 3 starts from 0 to 3 and 3 rows, found 3 starts \(0 to 3\) and 2 rows/);
  });
});
