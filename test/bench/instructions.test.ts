// The instructions bench (bench/instructions.bench.ts) on the fixture snapshot: geoapi and the bare
// handler, each under callgrind, count instructions per request for a repeated answer and for
// distinct searches. CI installs valgrind (.ci/run); elsewhere the test runs where it is installed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callgrindAvailable, runInstructionsBench } from '../../bench/instructions.bench.js';
import { fixtureSnapshot } from '../support/snapshots.js';

describe('instructions bench', () => {
  it('counts the instructions per request of geoapi and of the bare handler under callgrind', { skip: !callgrindAvailable() && process.env.CI !== 'true' ? 'valgrind is not installed' : false, timeout: 600_000 }, async () => {
    assert.ok(callgrindAvailable(), 'CI must have valgrind (.ci/run installs it)');
    const lines: string[] = [];
    const route = '/v1/countries/US';
    const counts = await runInstructionsBench({ snapshotDir: fixtureSnapshot().dir, routes: [route], requests: 40, warmRequests: 40, distinct: 30, baselineCheckout: null, print: (line) => lines.push(line) });
    const ours = counts.geoapi.get(route)!;
    const bare = counts.bare.get(route)!;
    assert.ok(Number.isFinite(ours) && Number.isFinite(bare) && bare > 0, lines.join('\n'));
    assert.ok(bare < ours, `the bare handler executes fewer instructions than geoapi: ${bare} vs ${ours}`);
    const distinct = [...counts.geoapi.keys()].filter((label) => label.includes('distinct'));
    assert.deepEqual(distinct.map((label) => label.replace(/ ×\d+$/, '')), ['/v1/search/autocomplete distinct', '/v1/search/fuzzy distinct']);
    for (const label of distinct) assert.ok(counts.geoapi.get(label)! > 0, label);
    assert.equal(counts.before, null);
    assert.ok(lines.some((line) => line.startsWith('route')), lines.join('\n'));
  });
});
