import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keptSortedRows, MAX_KEPT_ROWS, sortedRows } from '../../runtime/engine/sorted-rows.js';
import type { Store } from '../../runtime/store/types.js';

/** Orders are kept per store: each test its own. */
const newStore = (): Store => ({}) as Store;

describe('kept sorted orders of list ranges', () => {
  it('sorts once per key and hands out the kept order after', () => {
    const store = newStore();
    let sorts = 0;
    const sort = (): Int32Array => {
      sorts++;
      return Int32Array.from([3, 1, 2]);
    };
    const first = sortedRows(store, 'cities 0 3 name:asc', sort);
    assert.deepEqual([...first], [3, 1, 2]);
    assert.equal(sortedRows(store, 'cities 0 3 name:asc', sort), first);
    assert.equal(keptSortedRows(store, 'cities 0 3 name:asc'), first);
    assert.equal(sorts, 1);
    assert.equal(keptSortedRows(store, 'cities 0 3 name:desc'), undefined);
    assert.equal(keptSortedRows(newStore(), 'cities 0 3 name:asc'), undefined, 'another snapshot keeps its own');
  });

  it('keeps at most MAX_KEPT_ROWS rows, dropping the least recently used order first', () => {
    const store = newStore();
    const quarter = MAX_KEPT_ROWS / 4;
    const order = (): Int32Array => new Int32Array(quarter);
    for (const key of ['a', 'b', 'c', 'd']) sortedRows(store, key, order);
    keptSortedRows(store, 'a'); // used: 'b' is now the least recently used
    sortedRows(store, 'e', order);
    assert.equal(keptSortedRows(store, 'b'), undefined);
    // Looking each up uses it: least recently used now a, then c, d, e.
    for (const key of ['a', 'c', 'd', 'e']) assert.ok(keptSortedRows(store, key), `${key} kept`);
    sortedRows(store, 'f', () => new Int32Array(2 * quarter)); // two orders make room
    assert.equal(keptSortedRows(store, 'a'), undefined);
    assert.equal(keptSortedRows(store, 'c'), undefined);
    for (const key of ['d', 'e', 'f']) assert.ok(keptSortedRows(store, key), `${key} kept`);
  });

  it('does not keep an order longer than the bound, nor drop the others for it', () => {
    const store = newStore();
    sortedRows(store, 'small', () => new Int32Array(10));
    const huge = sortedRows(store, 'huge', () => new Int32Array(MAX_KEPT_ROWS + 1));
    assert.equal(huge.length, MAX_KEPT_ROWS + 1);
    assert.equal(keptSortedRows(store, 'huge'), undefined);
    assert.ok(keptSortedRows(store, 'small'));
  });
});
