// Seeded randomness, so every run of the report sends the same requests and samples the same cities
// (the project's one PRNG, test/support/random.ts, plus the few draws the workload needs).
import { prng } from '../../test/support/random.js';

export { prng };

/** A uniform integer in [0, n). */
export function below(random: () => number, n: number): number {
  return Math.floor(random() * n);
}

export function pick<T>(random: () => number, list: readonly T[]): T {
  if (list.length === 0) throw new Error('pick: expected a non-empty list, found an empty one');
  return list[below(random, list.length)]!;
}

/** Fisher–Yates, in place. */
export function shuffle<T>(random: () => number, list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = below(random, i + 1);
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

/**
 * A stable per-id draw in [0, 100): keeping ids whose draw is < p samples p % of the records, and
 * the 10 % sample is a subset of the 50 % one (nested sizes make the growth curve comparable).
 */
export function percentileOfId(id: number): number {
  return prng(id ^ 0x5bd1e995)() * 100;
}
