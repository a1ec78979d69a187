// bench:report names the single answers that took geoapi longest from its slow-request log (bench/report/slow-log.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loggedSlowAnswers } from '../../bench/report/slow-log.js';

// Lines as geoapi writes them (pino on stderr), between V8's --trace-gc lines on stdout.
const OUTPUT = [
  '[16228:0x39639110]       90 ms: Scavenge 4.3 (4.5) -> 3.8 (5.5) MB, 2.46 / 0.01 ms  (average mu = 1.000, current mu = 1.000) task; ',
  '{"level":"warn","time":"2026-11-29T20:31:35.392Z","thread":1,"requestId":"7a08caf2-1-a2","operation":"countryStates","method":"get","status":200,"durationMs":3.433,"target":"/v1/countries/CO/states","msg":"slow request"}',
  '{"level":"warn","time":"2026-11-29T20:31:35.401Z","thread":0,"requestId":"7a08caf2-0-b7","operation":"countryStates","method":"get","status":200,"durationMs":12.5,"target":"/v1/countries/AX/states","msg":"slow request"}',
  '{"level":"warn","time":"2026-11-29T20:31:35.402Z","thread":0,"requestId":"7a08caf2-0-zz","operation":"autocomplete","method":"get","status":200,"durationMs":40,"target":"/v1/search/autocomplete?q=[redacted]","msg":"slow request"}',
  '{"level":"info","time":"2026-11-29T20:31:35.403Z","msg":"quota: in memory"}',
  '{"level":"warn","msg":"slow request", truncated',
  '{"level":"warn","time":"2026-11-29T20:31:35.404Z","thread":1,"requestId":"7a08caf2-1-a3","operation":"countryStates","method":"get","status":200,"durationMs":2.1,"target":"/v1/countries/DE/states","msg":"slow request"}',
  '{"level":"warn","time":"2026-11-29T20:31:35.405Z","thread":1,"requestId":"7a08caf2-1-a4","operation":"countryStates","method":"get","status":200,"durationMs":2.0,"target":"/v1/countries/FR/states","msg":"slow request"}',
].join('\n');

describe('slow-request log', () => {
  it('names the slowest logged answers by the client’s paths, matched on request id, slowest first, at most 3', () => {
    const pathsById = new Map([
      ['7a08caf2-1-a2', '/v1/countries/CO/states'],
      ['7a08caf2-0-b7', '/v1/countries/AX/states'],
      ['7a08caf2-1-a3', '/v1/countries/DE/states'],
      ['7a08caf2-1-a4', '/v1/countries/FR/states'],
    ]);
    assert.deepEqual(loggedSlowAnswers(OUTPUT, pathsById), [
      { ms: 12.5, path: '/v1/countries/AX/states' },
      { ms: 3.433, path: '/v1/countries/CO/states' },
      { ms: 2.1, path: '/v1/countries/DE/states' },
    ]);
  });

  it('leaves out answers to requests it did not send (another pass, the load runs) and lines it cannot read', () => {
    assert.deepEqual(loggedSlowAnswers(OUTPUT, new Map()), []);
    assert.deepEqual(loggedSlowAnswers('', new Map([['x', '/v1/countries']])), []);
  });
});
