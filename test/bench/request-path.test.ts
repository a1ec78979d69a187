// The request-path bench (bench/request-path.bench.ts) on the fixture snapshot: every distinct
// search request answers 200 through the worker's pipeline with the handler's own bytes, and each
// layer (engine, handler, pipeline) of each operation is measured.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runRequestPathBench } from '../../bench/request-path.bench.js';
import { fixtureSnapshot } from '../support/snapshots.js';

describe('request-path bench', () => {
  it('times the engine, the handler and the pipeline of distinct autocomplete and fuzzy requests', async () => {
    const lines: string[] = [];
    const times = await runRequestPathBench({ snapshotDir: fixtureSnapshot().dir, perOperation: 40, rounds: 1, print: (line) => lines.push(line) });
    assert.deepEqual(times.map((time) => `${time.operation} ${time.layer}`), ['autocomplete engine', 'autocomplete handler', 'autocomplete pipeline', 'fuzzy engine', 'fuzzy handler', 'fuzzy pipeline']);
    for (const time of times) assert.ok(Number.isFinite(time.micros) && time.micros > 0, `${time.operation} ${time.layer}: ${time.micros}`);
    assert.ok(lines.some((line) => line.includes('what each layer adds')), lines.join('\n'));
  });
});
