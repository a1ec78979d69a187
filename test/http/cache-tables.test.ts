import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HashSlots, RecordQueue } from '../../runtime/http/cache-tables.js';
import { prng } from '../support/random.js';

describe('the response cache hash table', () => {
  it('finds exactly the slots a Map holds, through random adds and removes with many shared hashes (growth and rebuilds included)', () => {
    const random = prng(91);
    const table = new HashSlots();
    // The oracle: slot → [hash, key]. Hashes come from a small range, so many slots share one.
    const held = new Map<number, [number, string]>();
    const keyOf = (slot: number, key: string): boolean => held.get(slot)?.[1] === key;
    let nextSlot = 0;
    const free: number[] = [];
    for (let step = 0; step < 60_000; step++) {
      const hash = Math.floor(random() * 500) * 0x10001;
      const key = `k${Math.floor(random() * 3000)}`;
      const found = table.find(hash, key, keyOf);
      const expected = [...held].find(([, [h, k]]) => h === hash && k === key)?.[0] ?? -1;
      assert.equal(found, expected, `step ${step}: find ${hash} ${key}`);
      if (found >= 0 && random() < 0.6) {
        table.remove(hash, found);
        held.delete(found);
        free.push(found);
      } else if (found < 0 && held.size < 2500) {
        const slot = free.pop() ?? nextSlot++;
        held.set(slot, [hash, key]);
        table.add(hash, slot);
      }
    }
    for (const [slot, [hash, key]] of held) assert.equal(table.find(hash, key, keyOf), slot);
    table.clear();
    for (const [, [hash, key]] of held) assert.equal(table.find(hash, key, keyOf), -1);
  });

  it('refuses to remove a slot it does not hold, naming it', () => {
    const table = new HashSlots();
    assert.throws(() => table.remove(7, 3), /slot 3 is not in the table under hash 7/);
  });
});

describe('the response cache record queue', () => {
  it('gives back records first in first out, as an array does, through growth, wrap-around and filtering', () => {
    const random = prng(92);
    const queue = new RecordQueue();
    const oracle: [number, number, number][] = [];
    for (let step = 0; step < 50_000; step++) {
      const r = random();
      if (r < 0.55) {
        const record: [number, number, number] = [Math.floor(random() * 1e6), Math.floor(random() * 2 ** 31), Math.floor(random() * 3)];
        queue.push(...record);
        oracle.push(record);
      } else if (r < 0.999 && oracle.length > 0) {
        assert.deepEqual([queue.frontSlot, queue.frontSerial, queue.frontKind], oracle[0], `step ${step}`);
        queue.shift();
        oracle.shift();
      } else {
        queue.filter((slot) => slot % 3 !== 0);
        oracle.splice(0, oracle.length, ...oracle.filter(([slot]) => slot % 3 !== 0));
      }
      assert.equal(queue.length, oracle.length);
    }
    for (const record of oracle) {
      assert.deepEqual([queue.frontSlot, queue.frontSerial, queue.frontKind], record);
      queue.shift();
    }
    assert.equal(queue.length, 0);
  });
});
