import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalityMatchMemo } from '../../../runtime/engine/postcodes/match-memo.js';
import { prng } from '../../support/random.js';

const bytesOf = (key: string, matched: Int32Array): number => matched.byteLength + key.length * 2;

describe('LocalityMatchMemo', () => {
  it('answers every key with the list set for it or not at all, holds at most its budget, and always keeps the latest key (random operations against a Map)', () => {
    const random = prng(7);
    const maxBytes = 4096;
    const memo = new LocalityMatchMemo(maxBytes);
    const setFor = new Map<string, Int32Array>();
    for (let i = 0; i < 60_000; i++) {
      const key = `${Math.floor(random() * 40)}\u0000${Math.floor(random() * 60)}`;
      const held = memo.get(key);
      if (held !== undefined) {
        assert.equal(held, setFor.get(key), `${JSON.stringify(key)} answers the list set for it`);
        continue;
      }
      const list = new Int32Array(random() < 0.3 ? 0 : Math.floor(random() * 225));
      memo.set(key, list);
      setFor.set(key, list);
      assert.equal(memo.get(key), list, 'the key just set is held');
      let bytes = 0;
      let size = 0;
      for (const [k, m] of setFor) {
        const found = memo.get(k);
        if (found === undefined) continue;
        assert.equal(found, m);
        bytes += bytesOf(k, m);
        size++;
      }
      assert.equal(memo.bytes, bytes, 'its byte count is what it holds');
      assert.equal(memo.size, size);
      assert.ok(bytes <= maxBytes || size === 1, `within the budget: ${bytes} of ${maxBytes} bytes, ${size} keys`);
    }
  });

  it('gives keys used since they were set a second chance: the unused ones go first', () => {
    const memo = new LocalityMatchMemo(5 * bytesOf('k0', new Int32Array(90)));
    for (let i = 0; i < 5; i++) memo.set(`k${i}`, new Int32Array(90));
    memo.get('k0');
    memo.get('k2');
    memo.set('k5', new Int32Array(90));
    assert.equal(memo.get('k1'), undefined, 'the oldest unused key is evicted');
    for (const kept of ['k0', 'k2', 'k3', 'k4', 'k5']) assert.notEqual(memo.get(kept), undefined, kept);
  });

  it('peeks at a key without giving it a second chance: a peeked key goes as if unused', () => {
    const memo = new LocalityMatchMemo(5 * bytesOf('k0', new Int32Array(90)));
    for (let i = 0; i < 5; i++) memo.set(`k${i}`, new Int32Array(90));
    assert.equal(memo.peek('k0')?.length, 90);
    assert.equal(memo.peek('nope'), undefined);
    memo.get('k1');
    memo.set('k5', new Int32Array(90));
    assert.equal(memo.peek('k0'), undefined, 'peeked, not used: evicted first');
    assert.notEqual(memo.peek('k1'), undefined, 'used: kept');
  });

  it('keeps a single entry larger than its budget until the next one comes', () => {
    const memo = new LocalityMatchMemo(100);
    memo.set('big', new Int32Array(500));
    assert.equal(memo.get('big')?.length, 500);
    memo.set('next', new Int32Array(10));
    assert.equal(memo.get('big'), undefined);
    assert.equal(memo.get('next')?.length, 10);
  });
});
