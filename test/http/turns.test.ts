// runInTurns (runtime/http/turns.ts): the worker's preparations, one step per event-loop turn.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runInTurns } from '../../runtime/http/turns.js';

function run(steps: (() => boolean | void | Promise<void>)[], options: { wanted?: () => boolean; pace?: number; busy?: () => boolean } = {}): Promise<{ failures: string[] }> {
  return new Promise((resolve) => {
    const failures: string[] = [];
    runInTurns(steps, {
      wanted: options.wanted ?? (() => true),
      done: () => resolve({ failures }),
      failed: (error) => failures.push(error.message),
      ...(options.pace === undefined ? {} : { pace: options.pace }),
      ...(options.busy === undefined ? {} : { busy: options.busy }),
    });
  });
}

/** How many timers `work` sets (the rests of a paced run are timers; turns without a rest are immediates). */
async function timersSetBy(work: () => Promise<unknown>): Promise<number> {
  const original = globalThis.setTimeout;
  let count = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    count++;
    return original(...args);
  }) as typeof setTimeout;
  try {
    await work();
  } finally {
    globalThis.setTimeout = original;
  }
  return count;
}

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('runInTurns', () => {
  test('runs the steps in order, each in a turn of its own: what a step schedules runs before the next step', async () => {
    const seen: string[] = [];
    await run([
      () => {
        seen.push('a');
        setImmediate(() => seen.push('between'));
      },
      () => void seen.push('b'),
    ]);
    assert.deepEqual(seen, ['a', 'between', 'b']);
  });

  test('runs a step again while it returns true, and waits for a step returning a promise', async () => {
    const seen: string[] = [];
    let left = 3;
    await run([
      () => {
        seen.push(`again ${left}`);
        return --left > 0;
      },
      () => new Promise<void>((resolve) => setTimeout(() => {
        seen.push('settled');
        resolve();
      }, 5)),
      () => void seen.push('last'),
    ]);
    assert.deepEqual(seen, ['again 3', 'again 2', 'again 1', 'settled', 'last']);
  });

  test('reports a step that throws and goes on with the next', async () => {
    const seen: string[] = [];
    const { failures } = await run([
      () => {
        throw new Error('broken step');
      },
      () => void seen.push('next'),
    ]);
    assert.deepEqual(failures, ['broken step']);
    assert.deepEqual(seen, ['next']);
  });

  test('stops, without calling done, once it is no longer wanted', async () => {
    let wanted = true;
    const seen: number[] = [];
    let finished = false;
    runInTurns([1, 2, 3].map((n) => () => {
      seen.push(n);
      if (n === 2) wanted = false;
    }), { wanted: () => wanted, done: () => (finished = true), failed: () => {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(seen, [1, 2]);
    assert.equal(finished, false);
  });

  test('with a pace, rests that many times as long as the steps took: they take at most 1 / (1 + pace) of the time', async () => {
    const stepMs = 4;
    const steps = Array.from({ length: 5 }, () => () => busyFor(stepMs));
    const started = performance.now();
    await run(steps, { pace: 4 });
    const elapsed = performance.now() - started;
    // 5 steps of 4 ms, each followed by a rest of at least 16 ms (a timer never fires early by more than its rounding).
    assert.ok(elapsed >= 5 * stepMs * 5 - 5, `took ${elapsed.toFixed(1)} ms, expected at least ~100 ms`);
  });

  test('with a pace and a busy check, rests only after steps during which requests came', async () => {
    const steps = () => Array.from({ length: 5 }, () => () => busyFor(2));
    assert.equal(await timersSetBy(() => run(steps(), { pace: 4, busy: () => false })), 0, 'an idle thread does not rest');
    assert.ok((await timersSetBy(() => run(steps(), { pace: 4, busy: () => true }))) >= 4, 'a busy one rests after its steps');
  });
});
