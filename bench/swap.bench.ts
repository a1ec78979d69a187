// `npm run bench -- swap`: memory across live snapshot swaps. A real server (child process, 2
// worker threads) serves the full dataset's snapshot behind a `current` symlink; the bench flips
// it 20 times between that snapshot and a copy (other builtAt, so each flip is a real swap), sends
// SIGHUP, waits for the swap, answers a few requests on the new version, and reads the server's
// RSS (/proc/<pid>/status). Target: RSS after 20 swaps ≤ 1.2× RSS after the first load. Run once
// as shipped and once with glibc's mmap threshold pinned (MALLOC_MMAP_THRESHOLD_): large section
// buffers then always come from mmap and go back to the system when freed, instead of staying in
// the heap after glibc raised its threshold (what is left above 1.0× as shipped is that).
// Without the full dataset (../shared/data/csc) it uses the fixture and says so.
// Then latency through a swap (full dataset only): a new server as shipped (2 threads, its full
// warm-up) answers the report's mix at a fixed rate (GEOAPI_BENCH_SWAP_RATE, default 6,000 req/s;
// open loop, bench/report/load/loadgen.ts) for 10 s from 2 s after ready, and is told to swap 3 s
// in; the same run without the swap, on a new server too, is the baseline. Printed: each
// quarter-second's p50 / p99 and the whole run's p99 and max, both runs.
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSnapshot } from '../build-index/build.js';
import { fixtureSource, fullDatasetPresent, fullSource } from '../test/support/paths.js';
import { startTestServer, type TestServer } from '../test/support/server.js';
import { DEFAULT_WARM_UP_REQUESTS } from '../runtime/http/config.js';
import { allCities, readDataset } from './report/dataset.js';
import { runNodeLoad } from './report/load/drivers.js';
import type { LoadResult } from './report/load/loadgen.js';
import { generateWorkload, REPORT_SEED } from './report/workload.js';
import { fullSnapshot } from '../test/support/snapshots.js';

const SWAPS = 20;
/** Latency through a swap: the run, when the swap is asked for, the rate. */
const LOAD_SECONDS = 10;
const SWAP_AFTER_MS = 3000;
const WINDOWS_PER_SECOND = 4;
const SWAP_RATE = Number(process.env['GEOAPI_BENCH_SWAP_RATE'] ?? 6000);

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForSwaps(server: TestServer, count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (server.logs().split('\n').filter((line) => /snapshot: now serving/.test(line)).length < count) {
    if (/snapshot: refused/.test(server.logs())) throw new Error(`swap refused:\n${server.logs()}`);
    if (Date.now() > deadline) throw new Error(`swap ${count} not done in 120 s:\n${server.logs()}`);
    await sleep(20);
  }
}

/** Points the symlink `current` at `target` atomically (a new link renamed over the old one), as a deploy would. */
function pointLink(current: string, target: string): void {
  rmSync(`${current}.next`, { force: true });
  symlinkSync(target, `${current}.next`);
  renameSync(`${current}.next`, current);
}

async function run(label: string, snapshots: [string, string], work: string, env: Record<string, string>): Promise<{ first: number; last: number; peak: number }> {
  const current = join(work, `current-${label}`);
  pointLink(current, snapshots[0]);
  const server = await startTestServer({ snapshotDir: current, threads: 2, env: { GEOAPI_SNAPSHOT_WATCH: 'off', ...env } });
  try {
    const exercise = async (): Promise<void> => {
      for (const path of ['/v1/countries', '/v1/countries/US/cities', '/v1/search/autocomplete?q=San', '/v1/countries/GB/postcodes?limit=50', '/v1/meta/data-version']) {
        const answer = await server.get(path, { plan: 'business' });
        if (answer.status !== 200) throw new Error(`${path}: ${answer.status}`);
      }
    };
    await exercise();
    await sleep(2000);
    const first = rssMiB(server.pid);
    let peak = first;
    for (let swap = 1; swap <= SWAPS; swap++) {
      pointLink(current, snapshots[swap % 2]!);
      process.kill(server.pid, 'SIGHUP');
      await waitForSwaps(server, swap);
      await exercise();
      peak = Math.max(peak, rssMiB(server.pid));
    }
    await sleep(3000);
    const last = rssMiB(server.pid);
    return { first, last, peak };
  } finally {
    await server.close();
  }
}

/** The report's mix (bench/report/workload.ts, its seed), one path per line. */
function writeMix(file: string): void {
  const dataset = readDataset(fullSource, { postcodes: true });
  const workload = generateWorkload(dataset, allCities(dataset), { seed: REPORT_SEED, perOperation: 20_000, mixSize: 100_000 });
  writeFileSync(file, `${workload.mix.join('\n')}\n`);
}

/** The mix at SWAP_RATE on a new server from 2 s after ready; with `swap`, a swap to the second snapshot SWAP_AFTER_MS in. */
async function loadThrough(snapshots: [string, string], work: string, mixFile: string, swap: boolean): Promise<LoadResult> {
  const current = join(work, `current-load-${swap ? 'swap' : 'none'}`);
  pointLink(current, snapshots[0]);
  // As shipped: the full warm-up, the allocator setting `npm start` uses.
  const server = await startTestServer({
    snapshotDir: current,
    threads: 2,
    env: { GEOAPI_SNAPSHOT_WATCH: 'off', GEOAPI_WARM_UP_REQUESTS: String(DEFAULT_WARM_UP_REQUESTS), MALLOC_MMAP_THRESHOLD_: '131072' },
  });
  try {
    await server.untilReady(120_000);
    await sleep(2000);
    const load = runNodeLoad({ port: server.port, key: server.keys.business, pathsFile: mixFile, mode: 'open', connections: 32, seconds: LOAD_SECONDS, rate: SWAP_RATE, windows: LOAD_SECONDS * WINDOWS_PER_SECOND });
    if (swap) {
      await sleep(SWAP_AFTER_MS);
      pointLink(current, snapshots[1]);
      process.kill(server.pid, 'SIGHUP');
    }
    const result = await load;
    if (swap) await waitForSwaps(server, 1);
    return result;
  } finally {
    await server.close();
  }
}

function describeLoad(label: string, result: LoadResult): string {
  const worst = result.windows.reduce((a, b) => (b.p99 > a.p99 ? b : a));
  const quarters = result.windows.map((w) => `${w.p50.toFixed(1)}/${w.p99.toFixed(1)}`).join(' ');
  return `| ${label} | ${result.p99.toFixed(1)} ms | ${result.max.toFixed(1)} ms | ${worst.p50.toFixed(1)} / ${worst.p99.toFixed(1)} ms | ${result.non2xx + result.errors} |\n  quarter-seconds p50/p99 ms: ${quarters}`;
}

async function runSwapLatency(snapshots: [string, string], work: string): Promise<void> {
  const mixFile = join(work, 'mix.txt');
  writeMix(mixFile);
  console.log(`\nlatency through a swap: the report's mix at ${SWAP_RATE.toLocaleString('en-US')} req/s (open loop, 32 connections) for ${LOAD_SECONDS} s from 2 s after ready, swap asked for ${SWAP_AFTER_MS / 1000} s in; a new server (2 threads, as shipped) per run`);
  console.log('| run | p99 | max | worst quarter-second p50 / p99 | failed answers |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const swap of [false, true]) console.log(describeLoad(swap ? 'swapped 3 s in' : 'no swap (baseline)', await loadThrough(snapshots, work, mixFile, swap)));
}

export async function runSwapBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'geoapi-swap-bench-'));
  try {
    let dataset: string;
    let a: string;
    if (fullDatasetPresent()) {
      dataset = 'full dataset';
      a = fullSnapshot().dir;
    } else {
      dataset = 'fixture (full dataset absent)';
      a = join(work, 'a');
      buildSnapshot({ source: fixtureSource, out: a });
    }
    // The same data under another builtAt: the server treats it as a new build and swaps.
    const b = join(work, 'b');
    cpSync(a, b, { recursive: true });
    const manifestFile = join(b, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { builtAt: string };
    manifest.builtAt = new Date(Date.parse(manifest.builtAt) + 1000).toISOString();
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));

    console.log(`snapshot swap memory, ${dataset}, ${SWAPS} swaps, 2 worker threads (shared 2-core machine, other work running)`);
    console.log('| run | RSS after first load | peak during swaps | RSS after 20 swaps | ratio | target ≤ 1.2× |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [label, env] of [['as shipped', {}], ['MALLOC_MMAP_THRESHOLD_=131072', { MALLOC_MMAP_THRESHOLD_: '131072' }]] as const) {
      const { first, last, peak } = await run(label.replace(/\W/g, ''), [a, b], work, env);
      const ratio = last / first;
      console.log(`| ${label} | ${first.toFixed(0)} MiB | ${peak.toFixed(0)} MiB | ${last.toFixed(0)} MiB | ${ratio.toFixed(2)}× | ${ratio <= 1.2 ? 'met' : '**not met**'} |`);
    }
    if (fullDatasetPresent()) await runSwapLatency([a, b], work);
    else console.log('\nlatency through a swap: skipped (needs the full dataset)');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runSwapBench();
