// `order.<entity>`: each row's rank in name order (runtime/format/name-order.ts), which `sort=name`
// compares instead of the folded names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeNameOrder, nameRanksOf, openNameOrder } from '../../runtime/format/name-order.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { nameOrderSection, NAMED_ENTITIES } from '../../runtime/format/sections.js';
import { matchKey } from '../../runtime/text/normalise.js';
import { prng } from '../support/random.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';
import type { Store } from '../../runtime/store/types.js';

/** The documented order, pair by pair: matchKey(name), then the raw name (UTF-16 code units). */
function compareNames(a: string, b: string): number {
  const ka = matchKey(a);
  const kb = matchKey(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

const PARTS = ['São', 'Sao', 'sao', 'SAO', 'Paulo', 'paulo', 'Zürich', 'Zurich', 'Łódź', 'Lodz', 'St.', 'Saint', 'Ōsaka', 'Osaka', '東京', 'Ærø', 'Aero', '', ' ', '  '];

function randomName(random: () => number): string {
  const words = 1 + Math.floor(random() * 3);
  let name = '';
  for (let i = 0; i < words; i++) name += (i > 0 ? (random() < 0.2 ? '  ' : ' ') : '') + PARTS[Math.floor(random() * PARTS.length)]!;
  return random() < 0.1 ? ` ${name}` : name;
}

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function assertRanksOrder(names: readonly string[], ranks: Int32Array, what: string): void {
  for (let a = 0; a < names.length; a++) {
    for (let b = a + 1; b < names.length; b++) {
      assert.equal(sign(ranks[a]! - ranks[b]!), compareNames(names[a]!, names[b]!), `${what}: ${JSON.stringify(names[a])} (rank ${ranks[a]}) against ${JSON.stringify(names[b])} (rank ${ranks[b]})`);
    }
  }
}

describe('name order ranks', () => {
  it('order every pair of names as matchKey, then the raw name, does (random names against a pairwise oracle)', () => {
    const random = prng(20261125);
    for (let round = 0; round < 200; round++) {
      const names = Array.from({ length: 1 + Math.floor(random() * 40) }, () => randomName(random));
      const ranks = nameRanksOf(names);
      assertRanksOrder(names, ranks, `round ${round}`);
      // Dense: every rank from 0 to the number of distinct names − 1 is used.
      assert.equal(new Set(ranks).size, Math.max(...ranks) + 1, `round ${round}: dense ranks`);
    }
  });

  it('come back from their section as written, and a malformed section is refused with expected vs found', () => {
    const ranks = nameRanksOf(['b', 'a', 'B', 'a']);
    assert.deepEqual([...ranks], [2, 0, 1, 0]);
    assert.deepEqual([...openNameOrder(encodeNameOrder(ranks).buffer, 4, 'order.cities')], [2, 0, 1, 0]);
    assert.throws(() => openNameOrder(encodeNameOrder(ranks).buffer, 5, 'order.cities'), (err: Error) => err instanceof SnapshotFormatError && /expected 5 entries \(one per row\), found 4/.test(err.message));
    assert.throws(() => openNameOrder(encodeNameOrder(Int32Array.of(0, 7)).buffer, 2, 'order.states'), (err: Error) => err instanceof SnapshotFormatError && /expected ranks in 0\.\.1, found 7 at row 1/.test(err.message));
  });

  const checkSnapshot = (store: Store, step: number): void => {
    for (const entity of NAMED_ENTITIES) {
      const table = store[entity];
      const ranks = openNameOrder(store.section(nameOrderSection(entity)), table.count, nameOrderSection(entity));
      const rows: number[] = [];
      for (let row = 0; row < table.count; row += step) rows.push(row);
      const names = rows.map((row) => table.record(row).name);
      assertRanksOrder(names, Int32Array.from(rows, (row) => ranks[row]!), entity);
    }
  };

  it('of a built snapshot order its countries, states and cities by name (fixture)', () => {
    checkSnapshot(fixtureSnapshot().store, 1);
  });

  it('of a built snapshot order its countries, states and cities by name (full dataset, a sample of rows)', { skip: fullDatasetSkip() }, () => {
    checkSnapshot(fullSnapshot().store, 211);
  });
});
