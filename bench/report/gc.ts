// Garbage collection pauses of the geoapi server during a run, from V8's --trace-gc lines (the
// server runs with it in the report; every isolate — the main thread and each worker thread —
// prints one line per collection to stdout):
//   [pid:0x5581c3a0]     1234 ms: Scavenge 39.9 (58.6) -> 24.6 (58.6) MB, 4.31 / 0.32 ms  (average mu = …) task;
//   [pid:0x7f14c8000f00] 8124 ms: Mark-Compact 40.1 (59.1) -> 24.3 (59.4) MB, 12.69 / 0.31 ms  (+ 0.7 ms in 7 steps since start of marking, biggest step 0.2 ms, …)
// The first time after "MB," is the pause: the thread runs no JavaScript meanwhile, so every
// request on that thread waits. Incremental marking steps before a Mark-Compact are pauses too,
// but short ones (their largest is kept apart).

export interface GcPause {
  /** The isolate (thread) that paused. */
  isolate: string;
  kind: string;
  ms: number;
}

export interface GcSummary {
  count: number;
  scavenges: number;
  markCompacts: number;
  p50: number;
  p99: number;
  max: number;
  /** Sum of the pauses (ms). */
  totalMs: number;
  /** Largest incremental marking step seen (ms). */
  maxMarkingStepMs: number;
  /** Threads (isolates) that collected at least once. */
  isolates: number;
}

const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: ([A-Za-z -]+?)(?: \([^)]*\))? [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms(.*)$/;
const STEP = /biggest step ([\d.]+) ms/;

export function parseGcTrace(text: string): { pauses: GcPause[]; maxMarkingStepMs: number } {
  const pauses: GcPause[] = [];
  let maxMarkingStepMs = 0;
  for (const line of text.split('\n')) {
    const m = LINE.exec(line.trim());
    if (!m) continue;
    pauses.push({ isolate: m[1]!, kind: m[2]!, ms: Number(m[3]) });
    const step = STEP.exec(m[4]!);
    if (step) maxMarkingStepMs = Math.max(maxMarkingStepMs, Number(step[1]));
  }
  return { pauses, maxMarkingStepMs };
}

export function summarizeGc(text: string): GcSummary {
  const { pauses, maxMarkingStepMs } = parseGcTrace(text);
  const sorted = pauses.map((p) => p.ms).sort((a, b) => a - b);
  const at = (q: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!);
  return {
    count: pauses.length,
    scavenges: pauses.filter((p) => p.kind === 'Scavenge').length,
    markCompacts: pauses.filter((p) => p.kind.startsWith('Mark')).length,
    p50: at(0.5),
    p99: at(0.99),
    max: at(1),
    totalMs: sorted.reduce((sum, ms) => sum + ms, 0),
    maxMarkingStepMs,
    isolates: new Set(pauses.map((p) => p.isolate)).size,
  };
}
