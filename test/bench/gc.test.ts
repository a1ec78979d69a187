// The report's GC section reads V8's --trace-gc lines (bench/report/gc.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGcTrace, summarizeGc } from '../../bench/report/gc.js';

// Lines as Node 20 (V8 11.3) prints them, two worker isolates and the main one, with other output between.
const TRACE = [
  '[16228:0x39639110]       90 ms: Scavenge 4.3 (4.5) -> 3.8 (5.5) MB, 2.46 / 0.01 ms  (average mu = 1.000, current mu = 1.000) task; ',
  '{"level":"info","time":"2026-11-24T11:12:57.628Z","msg":"quota: in memory"}',
  '[16228:0x7f14c8000f00]     8124 ms: Mark-Compact 40.1 (59.1) -> 24.3 (59.4) MB, 12.69 / 0.31 ms  (+ 0.7 ms in 7 steps since start of marking, biggest step 0.2 ms, walltime since start of marking 33 ms) (average mu = 0.998, current mu = 0.979) finalize incremental marking via task; GC in old space requested',
  '[16228:0x7f14c0000f00]     8303 ms: Scavenge 40.0 (58.9) -> 25.6 (58.9) MB, 5.78 / 0.28 ms  (average mu = 0.998, current mu = 0.998) task; ',
  '[16228:0x7f14c0000f00]     8310 ms: Scavenge (interleaved) 40.0 (58.9) -> 25.6 (58.9) MB, 1.50 / 0.28 ms  (average mu = 0.998, current mu = 0.998) allocation failure; ',
  '[16228:0x7f14c0000f00]     9011 ms: Mark-Compact (reduce) 30.0 (58.9) -> 20.6 (40.9) MB, 3.10 / 0.00 ms  (+ 8.9 ms in 11 steps since start of marking, biggest step 8.2 ms, walltime since start of marking 30 ms) (average mu = 0.9) low memory notification; GC in old space requested',
].join('\n');

describe('GC trace parsing', () => {
  it('reads every collection with its isolate, kind and pause', () => {
    const { pauses, maxMarkingStepMs } = parseGcTrace(TRACE);
    assert.deepEqual(pauses.map((p) => [p.isolate, p.kind, p.ms]), [
      ['0x39639110', 'Scavenge', 2.46],
      ['0x7f14c8000f00', 'Mark-Compact', 12.69],
      ['0x7f14c0000f00', 'Scavenge', 5.78],
      ['0x7f14c0000f00', 'Scavenge', 1.5],
      ['0x7f14c0000f00', 'Mark-Compact', 3.1],
    ]);
    assert.equal(maxMarkingStepMs, 8.2);
  });

  it('summarises the pauses', () => {
    const s = summarizeGc(TRACE);
    assert.deepEqual(
      { count: s.count, scavenges: s.scavenges, markCompacts: s.markCompacts, p50: s.p50, max: s.max, isolates: s.isolates },
      { count: 5, scavenges: 3, markCompacts: 2, p50: 3.1, max: 12.69, isolates: 3 },
    );
    assert.equal(s.p99, 12.69);
    assert.ok(Math.abs(s.totalMs - 25.53) < 1e-9);
    assert.deepEqual(summarizeGc('no collections here'), { count: 0, scavenges: 0, markCompacts: 0, p50: 0, p99: 0, max: 0, totalMs: 0, maxMarkingStepMs: 0, isolates: 0 });
  });
});
