import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chooseScavenge } from '../../runtime/http/scavenge.js';

const SCAVENGE_MODULE = new URL('../../runtime/http/scavenge.js', import.meta.url).href;

describe('the scavenge choice', () => {
  it('keeps helper threads only when the request threads leave a core over', () => {
    assert.deepEqual(chooseScavenge(2, 2, []), { parallel: false, given: false, why: '2 request threads on 2 cores: a helper would wait for a core they use' });
    assert.deepEqual(chooseScavenge(1, 1, []), { parallel: false, given: false, why: '1 request thread on 1 core: a helper would wait for a core they use' });
    assert.equal(chooseScavenge(8, 4, []).parallel, false);
    assert.deepEqual(chooseScavenge(1, 2, []), { parallel: true, given: false, why: '1 of 2 cores left for helpers' });
  });

  it('follows the flag given on the node command line, the last one when it is given twice', () => {
    assert.deepEqual(chooseScavenge(2, 2, ['--parallel-scavenge']), { parallel: true, given: true, why: 'as given on the node command line' });
    assert.deepEqual(chooseScavenge(1, 4, ['--no-parallel_scavenge']), { parallel: false, given: true, why: 'as given on the node command line' });
    assert.equal(chooseScavenge(1, 4, ['--no-parallel-scavenge', '--parallel-scavenge']).parallel, true);
    assert.equal(chooseScavenge(2, 2, ['--max-old-space-size=100', '--parallel-scavenges']).given, false);
  });
});

/**
 * A child process applies `parallel`, then a worker thread (the server's young generation)
 * allocates short-lived objects, a few thousand of them surviving each collection. Returns the
 * helpers' time of each of its scavenges (V8's --trace-gc-nvp: background.scavenge.parallel).
 */
function helperTimes(parallel: boolean): number[] {
  const script = `
    import { applyScavenge } from ${JSON.stringify(SCAVENGE_MODULE)};
    import { Worker } from 'node:worker_threads';
    applyScavenge({ parallel: ${parallel}, given: false, why: 'test' });
    const worker = new Worker(\`
      const kept = new Array(4096);
      for (let i = 0; i < 3_000_000; i++) kept[i & 4095] = { i, text: 'row ' + i, values: [i, i + 1] };
    \`, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 12 } });
    worker.on('exit', (code) => process.exit(code));
  `;
  const child = spawnSync(process.execPath, ['--trace-gc-nvp', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout
    .split('\n')
    .filter((line) => / gc=s /.test(line))
    .map((line) => Number(/ background\.scavenge\.parallel=([\d.]+)/.exec(line)![1]));
}

describe('the scavenge setting in worker threads', () => {
  it('reaches the scavenges of a worker thread started after it: no helper time with helpers off', () => {
    const times = helperTimes(false);
    assert.ok(times.length >= 10, `expected at least 10 scavenges, found ${times.length}`);
    assert.deepEqual(times.filter((ms) => ms > 0), []);
  });

  it('leaves helpers working when on (the measure above can see them)', () => {
    const times = helperTimes(true);
    assert.ok(times.length >= 10, `expected at least 10 scavenges, found ${times.length}`);
    assert.ok(times.some((ms) => ms > 0), `expected helper time in some of ${times.length} scavenges`);
  });
});
