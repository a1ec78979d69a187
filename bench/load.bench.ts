// Snapshot build and load benchmark on the full dataset (../shared/data/csc):
// - full build time and snapshot size;
// - load time (loadSnapshotBytes + openStore) against JSON.parse of the same source files, same run
//   (target: loading ≥ 20× faster);
// - resident memory after loading, each side measured in a fresh child process
//   (target: RSS after load ≤ 2× snapshot size); build target ≤ 60 s.
// The build runs in a child process; each fresh-process row runs one load in a new node process.
// Run: `npm run bench -- load`, or directly: `node dist/bench/load.bench.js`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadSnapshotBytes, openStore } from '../runtime/store/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const fullSource = resolve(repoRoot, '../shared/data/csc');

/** Every JSON file of a contributions/ layout. */
function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.json')) out.push(path);
    }
  };
  walk(join(root, 'contributions'));
  return out;
}

function parseSources(files: string[]): unknown[] {
  return files.map((file) => JSON.parse(readFileSync(file, 'utf8')));
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

/** The full build, in a child process so that its garbage does not distort the load timings here. */
function buildInChild(source: string, out: string): { totalMs: number; timings: Record<string, number> } {
  const build = pathToFileURL(join(here, '../build-index/build.js')).href;
  const script = `const { buildSnapshot } = await import(${JSON.stringify(build)});
    const r = buildSnapshot({ source: ${JSON.stringify(source)}, out: ${JSON.stringify(out)} });
    process.stdout.write(JSON.stringify({ totalMs: r.totalMs, timings: r.timings }));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 20 }));
}

/** A full GC between iterations, so each load does not pay for the previous one's buffers. */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

interface ChildRun {
  ms: number;
  rss: number;
}

/**
 * Runs one side in a fresh node process (warm page cache, cold heap: what a server start sees)
 * and reports its wall time and its RSS afterwards, with GC forced.
 */
function childRun(side: 'snapshot' | 'json' | 'empty', snapshotDir: string, files: string[]): ChildRun {
  const loader = pathToFileURL(join(here, '../runtime/store/index.js')).href;
  const scripts = {
    empty: `globalThis.keep = null;`,
    snapshot: `globalThis.keep = openStore(loadSnapshotBytes(${JSON.stringify(snapshotDir)}));`,
    json: `globalThis.keep = ${JSON.stringify(files)}.map((f) => JSON.parse(readFileSync(f, 'utf8')));`,
  };
  const script = `const { readFileSync } = await import('node:fs');
    const { loadSnapshotBytes, openStore } = await import(${JSON.stringify(loader)});
    const started = performance.now();
    ${scripts[side]}
    const ms = performance.now() - started;
    globalThis.gc(); globalThis.gc();
    process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss }));`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out) as ChildRun;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function childRuns(side: 'snapshot' | 'json' | 'empty', snapshotDir: string, files: string[], runs = 3): ChildRun {
  const results = Array.from({ length: runs }, () => childRun(side, snapshotDir, files));
  return { ms: median(results.map((r) => r.ms)), rss: median(results.map((r) => r.rss)) };
}

const MB = 1024 * 1024;
const fmtMs = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
const fmtMb = (bytes: number) => `${(bytes / MB).toFixed(1)} MiB`;

export async function runLoadBench(): Promise<void> {
  if (!existsSync(join(fullSource, 'contributions'))) {
    throw new Error(`full dataset not found at ${fullSource}; the load benchmark needs it`);
  }
  const work = mkdtempSync(join(tmpdir(), 'geoapi-load-bench-'));
  try {
    const out = join(work, 'snapshot');
    const built = buildInChild(fullSource, out);
    const snapshotBytes = dirBytes(out);
    const files = sourceFiles(fullSource);
    const sourceBytes = files.reduce((sum, f) => sum + statSync(f).size, 0);

    const gc = fullGc();
    const bench = new Bench({ iterations: 5, time: 0, warmupIterations: 1, warmupTime: 0 });
    // Snapshot first: its run must not pay for collecting the JSON side's 300 MB of garbage.
    bench.add('loadSnapshotBytes + openStore', () => {
      openStore(loadSnapshotBytes(out));
    }, { beforeEach: gc });
    bench.add('JSON.parse of the source files (baseline)', () => {
      parseSources(files);
    }, { beforeEach: gc });
    await bench.run();
    const mean = (i: number): number => {
      const result = bench.tasks[i]!.result;
      if (!('latency' in result)) throw new Error(`bench task ${bench.tasks[i]!.name} did not complete: ${result.state}`);
      return result.latency.mean;
    };
    const loadMs = mean(0);
    const parseMs = mean(1);

    const empty = childRuns('empty', out, files);
    const snapshotRun = childRuns('snapshot', out, files);
    const jsonRun = childRuns('json', out, files);

    const rows = [
      { metric: 'full build', value: fmtMs(built.totalMs), target: '≤ 60000 ms', ok: built.totalMs <= 60_000 },
      { metric: 'source JSON size', value: fmtMb(sourceBytes), target: '', ok: true },
      { metric: 'snapshot size', value: fmtMb(snapshotBytes), target: '', ok: true },
      { metric: 'fresh process: JSON.parse sources (median of 3)', value: fmtMs(jsonRun.ms), target: 'baseline', ok: true },
      { metric: 'fresh process: load + open snapshot (median of 3)', value: fmtMs(snapshotRun.ms), target: '', ok: true },
      { metric: 'fresh process: load speed-up', value: `${(jsonRun.ms / snapshotRun.ms).toFixed(1)}×`, target: '≥ 20×', ok: jsonRun.ms / snapshotRun.ms >= 20 },
      { metric: 'in process: JSON.parse sources (mean of 5)', value: fmtMs(parseMs), target: 'baseline', ok: true },
      { metric: 'in process: load + open snapshot (mean of 5)', value: fmtMs(loadMs), target: '', ok: true },
      { metric: 'in process: load speed-up', value: `${(parseMs / loadMs).toFixed(1)}×`, target: '≥ 20×', ok: parseMs / loadMs >= 20 },
      { metric: 'RSS, empty node process', value: fmtMb(empty.rss), target: '', ok: true },
      { metric: 'RSS after loading the snapshot', value: fmtMb(snapshotRun.rss), target: `≤ ${fmtMb(2 * snapshotBytes)}`, ok: snapshotRun.rss <= 2 * snapshotBytes },
      { metric: 'RSS after JSON.parse of the sources', value: fmtMb(jsonRun.rss), target: 'baseline', ok: true },
      { metric: 'RSS ratio snapshot / JSON', value: (snapshotRun.rss / jsonRun.rss).toFixed(2), target: '', ok: true },
    ];
    console.table(rows.map((r) => ({ metric: r.metric, value: r.value, target: r.target, status: r.target && r.target !== 'baseline' ? (r.ok ? 'ok' : 'MISSED') : '' })));
    console.log('build phases (ms):', Object.fromEntries(Object.entries(built.timings).map(([k, v]) => [k, Math.round(v)])));
    console.log('Timings depend on machine load; a server start is the fresh-process row.');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runLoadBench().catch((err: unknown) => {
    console.error(`load bench failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
