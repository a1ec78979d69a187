// Seeded randomness for tests and benchmarks: the same seed gives the same cases, so a failing
// property test or a benchmark's query list reproduces exactly.

/** mulberry32: a small, fast, well-distributed 32-bit PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
