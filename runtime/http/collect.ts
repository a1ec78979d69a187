// One full garbage collection soon after a snapshot swap, or once a thread has built its indexes, in the thread that calls it. The old
// snapshot lives in SharedArrayBuffers whose memory goes back to the system only once every
// thread holding them has collected its references; left to itself V8 may take many swaps'
// worth of allocation to get there (measured: bench/swap.bench.ts). The JS heaps are small (the
// data are outside them), so one collection per swap costs a few milliseconds.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null = null;

function gcFunction(): () => void {
  if (gc !== null) return gc;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return (gc = exposed);
  // Exposes gc() to a new context only; the global scope stays as it is.
  setFlagsFromString('--expose-gc');
  return (gc = runInNewContext('gc') as () => void);
}

/** Collects garbage once, `delayMs` from now (requests still in flight on the old snapshot finish first); calls in between share it. */
export function collectSoon(delayMs: number): void {
  if (pending !== null) return;
  pending = setTimeout(() => {
    pending = null;
    gcFunction()();
  }, delayMs);
  pending.unref();
}

let pending: NodeJS.Timeout | null = null;

/**
 * Collects garbage now: once a thread has prepared its indexes (their building leaves garbage and
 * a grown heap behind), before its warm-up requests (worker.ts says why not after them), so the
 * memory goes back before the server says ready instead of when V8's memory reducer gets to it,
 * seconds later.
 */
export function collectNow(): void {
  gcFunction()();
}
