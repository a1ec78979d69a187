import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupRowRanges, lowerBound, lowerBoundFrom } from '../../runtime/indexes/group-row-ranges.js';
import { prng } from './helpers.js';

/** Docs of `groups` groups, each group's rows ascending (repeats allowed, as a row's two fields). */
function groupedDocs(random: () => number, groups: number, rows: number): { docRows: Int32Array; groupFirstDocs: Int32Array } {
  const docRows: number[] = [];
  const groupFirstDocs = new Int32Array(groups + 1);
  for (let group = 0; group < groups; group++) {
    groupFirstDocs[group] = docRows.length;
    const size = random() < 0.2 ? 0 : Math.floor(random() * 300);
    const groupRows = Array.from({ length: size }, () => Math.floor(random() * rows)).sort((a, b) => a - b);
    docRows.push(...groupRows);
  }
  groupFirstDocs[groups] = docRows.length;
  return { docRows: Int32Array.from(docRows), groupFirstDocs };
}

describe('GroupRowRanges', () => {
  it('selects, per group, exactly the docs whose rows are in range, over many ranges and group spans (brute force)', () => {
    const random = prng(51);
    const groups = 40;
    const { docRows, groupFirstDocs } = groupedDocs(random, groups, 2000);
    const ranges = new GroupRowRanges(docRows, groupFirstDocs);
    // Few distinct row ranges asked again and again (remembered) and many once (replacing the oldest).
    const favourites = Array.from({ length: 5 }, () => Math.floor(random() * 2000));
    for (let i = 0; i < 3000; i++) {
      const rowStart = random() < 0.5 ? favourites[i % 5]! : Math.floor(random() * 2100) - 50;
      const rowEnd = rowStart + Math.floor(random() * (random() < 0.5 ? 30 : 800));
      const firstGroup = Math.floor(random() * groups);
      const lastGroup = Math.min(groups - 1, firstGroup + Math.floor(random() * 15));
      const at = ranges.select(rowStart, rowEnd, firstGroup, lastGroup);
      let any = false;
      for (let group = firstGroup; group <= lastGroup; group++) {
        const inRange: number[] = [];
        for (let doc = groupFirstDocs[group]!; doc < groupFirstDocs[group + 1]!; doc++) if (docRows[doc]! >= rowStart && docRows[doc]! < rowEnd) inRange.push(doc);
        const expected = inRange.length > 0 ? [inRange[0]!, inRange[inRange.length - 1]! + 1] : null;
        const found = ranges.ends[at + group]! > ranges.starts[at + group]! ? [ranges.starts[at + group]!, ranges.ends[at + group]!] : null;
        assert.deepEqual(found, expected, `rows [${rowStart}, ${rowEnd}) group ${group} (asked ${firstGroup}..${lastGroup}, query ${i})`);
        any ||= expected !== null;
      }
      assert.equal(ranges.anyIn(at, firstGroup, lastGroup), any);
    }
  });

  it('tells row ranges apart that an int32 would not (2^32 + 5 is not 5)', () => {
    const { docRows, groupFirstDocs } = groupedDocs(prng(53), 4, 100);
    const ranges = new GroupRowRanges(docRows, groupFirstDocs);
    const wide = ranges.select(0, 2 ** 32 + 5, 0, 3);
    const wideCounts = [0, 1, 2, 3].map((group) => ranges.ends[wide + group]! - ranges.starts[wide + group]!);
    assert.deepEqual(wideCounts, [0, 1, 2, 3].map((group) => groupFirstDocs[group + 1]! - groupFirstDocs[group]!));
    const narrow = ranges.select(0, 5, 0, 3);
    for (let group = 0; group < 4; group++) {
      for (let doc = ranges.starts[narrow + group]!; doc < ranges.ends[narrow + group]!; doc++) assert.ok(docRows[doc]! < 5, `group ${group} doc ${doc}`);
    }
  });

  it('lowerBoundFrom finds what lowerBound finds, from any start at or before the answer', () => {
    const random = prng(52);
    const array = Int32Array.from(Array.from({ length: 500 }, () => Math.floor(random() * 1000)).sort((a, b) => a - b));
    for (let i = 0; i < 2000; i++) {
      const value = Math.floor(random() * 1100) - 50;
      const answer = lowerBound(array, 0, array.length, value);
      const start = Math.floor(random() * (answer + 1));
      assert.equal(lowerBoundFrom(array, start, array.length, value), answer, `value ${value} from ${start}`);
    }
    assert.equal(lowerBoundFrom(array, 0, 0, 5), 0);
  });
});
