// `npm run bench -- swap`: memory across live snapshot swaps. A real server (child process, 2
// worker threads) serves the full dataset's snapshot behind a `current` symlink; the bench flips
// it 20 times between that snapshot and a copy (other builtAt, so each flip is a real swap), sends
// SIGHUP, waits for the swap, answers a few requests on the new version, and reads the server's
// RSS (/proc/<pid>/status). Target: RSS after 20 swaps ≤ 1.2× RSS after the first load. Run once
// as shipped and once with glibc's mmap threshold pinned (MALLOC_MMAP_THRESHOLD_): large section
// buffers then always come from mmap and go back to the system when freed, instead of staying in
// the heap after glibc raised its threshold (what is left above 1.0× as shipped is that).
// Without the full dataset (../shared/data/csc) it uses the fixture and says so.
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSnapshot } from '../build-index/build.js';
import { fixtureSource, fullDatasetPresent } from '../test/support/paths.js';
import { startTestServer, type TestServer } from '../test/support/server.js';
import { fullSnapshot } from '../test/support/snapshots.js';

const SWAPS = 20;

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

async function run(label: string, snapshots: [string, string], work: string, env: Record<string, string>): Promise<{ first: number; last: number; peak: number }> {
  const current = join(work, `current-${label}`);
  const flip = (target: string): void => {
    rmSync(`${current}.next`, { force: true });
    symlinkSync(target, `${current}.next`);
    renameSync(`${current}.next`, current);
  };
  flip(snapshots[0]);
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
      flip(snapshots[swap % 2]!);
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
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runSwapBench();
