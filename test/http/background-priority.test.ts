import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { planBackgroundPriority } from '../../runtime/http/background-priority.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MODULE = new URL('../../runtime/http/background-priority.js', import.meta.url).href;
const onLinux = process.platform === 'linux';

interface ChildReport {
  first: { nice: number; threads: number; why: string };
  second: { nice: number; threads: number; why: string };
  /** Whether the second plan is the first one. */
  same: boolean;
  /** Nice values of the calling (main) thread, of each thread there before the plan (before and after apply()), of each thread a Worker started after it. */
  main: number;
  planned: number[];
  before: number[];
  after: number[];
}

/**
 * A child process (run under `nice -n <startNice>`) plans to lower its background threads by
 * `nice`, starts a worker thread, applies the plan (twice), plans again, and reports every
 * thread's nice value (/proc/self/task/<id>/stat).
 */
function childReport(nice: number, startNice = 0): ChildReport {
  const script = `
    import { readdirSync, readFileSync } from 'node:fs';
    import { Worker } from 'node:worker_threads';
    import { planBackgroundPriority } from ${JSON.stringify(MODULE)};
    const niceOf = (id) => Number(readFileSync('/proc/self/task/' + id + '/stat', 'utf8').split(') ')[1].split(' ')[16]);
    const tasks = () => readdirSync('/proc/self/task').map(Number);
    const before = tasks().filter((id) => id !== process.pid);
    const first = planBackgroundPriority(${nice});
    const planned = before.map(niceOf);
    const worker = new Worker('setTimeout(() => {}, 2000)', { eval: true });
    worker.on('online', () => {
      first.apply();
      first.apply();
      const second = planBackgroundPriority(${nice});
      const after = tasks().filter((id) => id !== process.pid && !before.includes(id));
      const plain = (plan) => ({ nice: plan.nice, threads: plan.threads, why: plan.why });
      process.stdout.write(JSON.stringify({ first: plain(first), second: plain(second), same: first === second, main: niceOf(process.pid), planned, before: before.map(niceOf), after: after.map(niceOf) }));
      process.exit(0);
    });
  `;
  const child = spawnSync('nice', ['-n', String(startNice), process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as ChildReport;
}

describe('the background threads\' priority', { skip: !onLinux && 'per-thread priorities are Linux only' }, () => {
  it("lowers, when applied, every thread there at the plan (V8's platform threads), not the calling thread nor a worker started after", () => {
    const report = childReport(10);
    assert.ok(report.before.length >= 4, `expected V8's platform threads, found ${report.before.length} threads besides the main one`);
    assert.deepEqual(report.first, { nice: 10, threads: report.before.length, why: "V8's compiler and GC helpers yield the cores to the request threads once ready" });
    assert.deepEqual(report.planned, report.before.map(() => report.main), 'planning alone changes nothing');
    assert.deepEqual(report.before, report.before.map(() => Math.min(19, report.main + 10)));
    assert.ok(report.after.length >= 1, 'expected the worker thread among the threads started after');
    assert.deepEqual(report.after, report.after.map(() => report.main));
  });

  it('plans once per process: a second call answers the first plan, and a worker started since keeps its priority', () => {
    const report = childReport(10);
    assert.equal(report.same, true);
    assert.deepEqual(report.after, report.after.map(() => report.main));
  });

  it('counts from the calling thread\'s nice value and stops at 19, the lowest priority', () => {
    const report = childReport(10, 15);
    assert.ok(report.main >= 15, `expected the child at nice 15 or more, found ${report.main}`);
    assert.equal(report.first.nice, 19 - report.main);
    assert.deepEqual(report.before, report.before.map(() => 19));
  });

  it('changes nothing when set to 0', () => {
    const report = childReport(0);
    assert.deepEqual(report.first, { nice: 0, threads: 0, why: 'unchanged (--background-nice 0)' });
    assert.deepEqual(report.planned, report.planned.map(() => report.main));
    assert.deepEqual(report.before, report.before.map(() => report.main));
  });
});

/** Nice values of a process's threads: its main thread's, and the others'. */
function threadNices(pid: number): { main: number; others: number[] } {
  const niceOf = (id: string): number => Number(readFileSync(`/proc/${pid}/task/${id}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
  const ids = readdirSync(`/proc/${pid}/task`);
  return { main: niceOf(String(pid)), others: ids.filter((id) => id !== String(pid)).map(niceOf) };
}

describe('a server\'s threads', { skip: !onLinux && 'per-thread priorities are Linux only' }, () => {
  it('serve the request threads at the main thread\'s priority and, once ready, V8\'s platform threads 10 below it', async () => {
    const server = await startTestServer({ threads: 2 });
    try {
      await server.untilReady(); // every thread warmed: the plan is applied then
      assert.equal((await server.get('/v1/countries/FR', { plan: 'business' })).status, 200);
      const { main, others } = threadNices(server.pid);
      const lowered = Math.min(19, main + 10);
      assert.ok(others.filter((nice) => nice === main).length >= 2, `expected the 2 request threads at the main thread's ${main}, found ${JSON.stringify(others)}`);
      assert.ok(others.filter((nice) => nice === lowered).length >= 4, `expected V8's 4 platform threads at ${lowered}, found ${JSON.stringify(others)}`);
      assert.deepEqual(others.filter((nice) => nice !== main && nice !== lowered), []);
    } finally {
      await server.close();
    }
  });

  it('leave every thread at the main thread\'s priority with --background-nice 0', async () => {
    const server = await startTestServer({ threads: 2, args: ['--background-nice', '0'] });
    try {
      await server.untilReady(); // every thread warmed: the plan is applied then
      assert.equal((await server.get('/v1/countries/FR', { plan: 'business' })).status, 200);
      const { main, others } = threadNices(server.pid);
      assert.deepEqual(others, others.map(() => main));
    } finally {
      await server.close();
    }
  });
});

describe('the background threads\' priority without /proc', () => {
  it('says why it changed nothing', () => {
    // This process's first call: the answer is kept for the process, and the test runner's threads stay as they are.
    const result = planBackgroundPriority(10, '/nonexistent/task');
    assert.equal(result.nice, 0);
    assert.equal(result.threads, 0);
    assert.match(result.why, onLinux ? /^unchanged \(\/nonexistent\/task: ENOENT/ : /^unchanged \(per-thread priorities need Linux/);
  });
});
