// The request-path bench (bench/request-path.bench.ts) on the fixture snapshot: every distinct
// search request answers 200 through the worker's pipeline with the handler's own bytes, and each
// layer (engine, handler, pipeline) of each operation is measured, with warm caches and with the
// caches flushed before each request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runRequestPathBench } from '../../bench/request-path.bench.js';
import { fixtureSnapshot } from '../support/snapshots.js';

describe('request-path bench', () => {
  it('times the engine, the handler and the pipeline of distinct autocomplete and fuzzy requests, with warm and with flushed caches', async () => {
    const lines: string[] = [];
    const times = await runRequestPathBench({ snapshotDir: fixtureSnapshot().dir, perOperation: 40, rounds: 1, flushMebibytes: 1, print: (line) => lines.push(line) });
    const layers = ['engine', 'handler', 'pipeline'];
    const expected = ['autocomplete', 'fuzzy'].flatMap((operation) => ['warm', 'flushed'].flatMap((caches) => layers.map((layer) => `${operation} ${caches} ${layer}`)));
    assert.deepEqual(times.map((time) => `${time.operation} ${time.caches} ${time.layer}`), expected);
    for (const time of times) assert.ok(Number.isFinite(time.micros) && time.micros > 0, `${time.operation} ${time.caches} ${time.layer}: ${time.micros}`);
    assert.ok(lines.some((line) => line.includes('what each layer adds')), lines.join('\n'));
    assert.ok(lines.some((line) => line.includes('What a flush before each request adds')), lines.join('\n'));
  });

  it('runs warm only when the flush is 0 MiB', async () => {
    const times = await runRequestPathBench({ snapshotDir: fixtureSnapshot().dir, perOperation: 10, rounds: 1, flushMebibytes: 0, print: () => undefined });
    assert.deepEqual(new Set(times.map((time) => time.caches)), new Set(['warm']));
  });
});
