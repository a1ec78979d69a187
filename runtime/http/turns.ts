// Work a thread does beside its requests: steps run one per event-loop turn, so requests that
// arrive meanwhile are answered between them (uWS delivers them in the loop's poll phase, before
// the next turn's step). The worker runs its preparations this way (worker.ts): the first store's
// before ready, a swap's new store while the current one still serves.
import type { PreparationStep } from './app.js';

/**
 * Runs `steps` one per event-loop turn while `wanted()`, then calls `done()`. A step returning true
 * runs again on the next turn; one returning a promise is done when it settles (it never rejects);
 * one that throws is reported to `failed` and skipped. With `pace`, the steps owe a rest of `pace`
 * times their duration, taken as a timer once it is worth one (most steps take far less than a
 * timer's millisecond): they then take at most 1 / (1 + pace) of the thread's time. With `busy`
 * too, asked at the start of each turn (the requests that arrived during a step have been started
 * by then, in the loop's poll phase), the rest is taken only while the thread answers requests: an
 * idle one, with no one to yield to, owes nothing.
 */
export function runInTurns(
  steps: PreparationStep[],
  options: { wanted: () => boolean; done: () => void; failed: (error: Error) => void; pace?: number; busy?: () => boolean },
): void {
  const { wanted, done, failed } = options;
  const pace = options.pace ?? 0;
  const busy = options.busy ?? (() => true);
  const queue = [...steps];
  let restMs = 0;
  const next = (): void => {
    if (!wanted()) return;
    if (pace > 0) {
      if (!busy()) restMs = 0;
      else if (restMs >= 1) {
        setTimeout(next, restMs);
        restMs = 0;
        return;
      }
    }
    const step = queue[0];
    if (!step) {
      done();
      return;
    }
    let outcome: ReturnType<PreparationStep> = undefined;
    const stepStarted = performance.now();
    try {
      outcome = step();
    } catch (error) {
      failed(error instanceof Error ? error : new Error(String(error)));
    }
    if (outcome !== true) queue.shift();
    if (outcome instanceof Promise) {
      void outcome.then(next, next);
      return;
    }
    restMs += (performance.now() - stepStarted) * pace;
    setImmediate(next);
  };
  setImmediate(next);
}
