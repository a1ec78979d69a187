// The benchmark report in smoke mode (fixture dataset, sub-second runs): the whole pipeline —
// snapshot builds, PostgreSQL load, the three servers, parity checks, load runs, growth, Markdown —
// must keep working, so that `npm run bench:report` does not rot between full runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SECTIONS } from '../../bench/report/render.js';
import { postgresUnavailable } from '../../bench/report/postgres/cluster.js';
import { OPERATION_LABELS, OPERATIONS } from '../../bench/report/workload.js';
import { BROWSER_WORKLOADS } from '../../bench/report/runner.js';

const MAIN = fileURLToPath(new URL('../../bench/report/main.js', import.meta.url));

describe('bench:report --smoke', () => {
  const dir = mkdtempSync(join(tmpdir(), 'geoapi-report-smoke-'));
  const out = join(dir, 'REPORT.md');
  let report = '';
  let stderr = '';
  const withPostgres = postgresUnavailable() === null;

  before(() => {
    const run = spawnSync(process.execPath, [MAIN, '--smoke', '--out', out], { encoding: 'utf8', timeout: 120_000 });
    stderr = run.stderr;
    assert.equal(run.status, 0, `the smoke run failed (${run.status ?? run.signal}):\n${run.stderr}`);
    report = readFileSync(out, 'utf8');
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The text of one section, heading to the next heading. */
  const sectionText = (heading: (typeof SECTIONS)[number]): string => {
    const i = SECTIONS.indexOf(heading);
    const start = report.indexOf(`\n${heading}\n`);
    return report.slice(start, i + 1 < SECTIONS.length ? report.indexOf(`\n${SECTIONS[i + 1]}\n`) : report.length);
  };

  it('compares against PostgreSQL whenever PostgreSQL 15 is installed (always in CI)', () => {
    if (process.env.CI === 'true') assert.ok(withPostgres, `CI must have PostgreSQL 15: ${postgresUnavailable()}`);
    assert.equal(report.includes('PostgreSQL: not run'), !withPostgres, stderr);
  });

  it('writes every section of the report, in order, none of them empty', () => {
    const starts = SECTIONS.map((heading) => report.indexOf(`\n${heading}\n`));
    SECTIONS.forEach((heading, i) => {
      assert.ok(starts[i]! >= 0, `missing section ${heading}`);
      if (i > 0) assert.ok(starts[i]! > starts[i - 1]!, `section ${heading} comes before ${SECTIONS[i - 1]}`);
      const body = report.slice(starts[i]! + heading.length + 2, i + 1 < SECTIONS.length ? starts[i + 1]! : report.length);
      assert.ok(body.trim().length > 0, `section ${heading} is empty`);
    });
  });

  it('measures every operation and the mix for every system', () => {
    const throughput = sectionText('## Throughput at saturation');
    for (const op of OPERATIONS) {
      const row = throughput.split('\n').find((line) => line.startsWith(`| ${OPERATION_LABELS[op]} |`));
      assert.ok(row, `no throughput row for ${op}`);
      const cells = row.split('|').slice(2, withPostgres ? 5 : 4).map((cell) => Number(cell.trim().replace(/,/g, '')));
      for (const cell of cells) assert.ok(cell > 0, `${op}: expected positive requests/s, found ${row}`);
    }
    assert.match(throughput, /\n\| \*\*mix\*\* \| [\d,]+ \|/);
  });

  it('runs geoapi with a browser’s Accept-Encoding beside the same run without it', () => {
    const throughput = sectionText('## Throughput at saturation');
    assert.match(throughput, /\*\*Browsers\.\*\* Every browser sends `Accept-Encoding: gzip, deflate, br, zstd`/);
    for (const name of BROWSER_WORKLOADS) {
      const label = name === 'mix' ? '**mix**' : OPERATION_LABELS[name];
      const row = throughput.split('\n').find((line) => line.startsWith(`| ${label} | `) && /\| [\d,]+ \/ [\d,]+ \|/.test(line));
      assert.ok(row, `no browser row for ${name}`);
      const [without, withHeader] = row.split('|')[2]!.split('/').map((cell) => Number(cell.trim().replace(/,/g, '')));
      assert.ok(without! > 0 && withHeader! > 0, row);
    }
  });

  it('measures the machine’s floor: a bare uWS handler at the same fixed rate, for every operation and the mix', () => {
    const latency = sectionText('## Latency at a fixed rate (half of geoapi’s peak)');
    assert.match(latency, /\| floor: bare uWS p50 \/ p99 \/ p99\.9 ms \|\n/);
    for (const name of [...OPERATIONS.map((op) => OPERATION_LABELS[op]), '**mix**']) {
      const row = latency.split('\n').find((line) => line.startsWith(`| ${name} |`));
      assert.ok(row, `no latency row for ${name}`);
      const floor = row.split('|').at(-2)!.trim();
      assert.match(floor, /^[\d.,]+ \/ [\d.,]+ \/ [\d.,]+ · run p99 [\d.,]+/, `${name}: ${row}`);
    }
  });

  it('says what share of each fixed-rate run’s requests geoapi’s busiest request thread answered', () => {
    // The kernel deals connections to the threads (SO_REUSEPORT): an uneven split shows beside the tail.
    const latency = sectionText('## Latency at a fixed rate (half of geoapi’s peak)');
    for (const name of [...OPERATIONS.map((op) => OPERATION_LABELS[op]), '**mix**']) {
      const row = latency.split('\n').find((line) => line.startsWith(`| ${name} |`))!;
      const share = / · busiest thread (\d+) % of the requests/.exec(row.split('|')[3]!);
      assert.ok(share, `${name}: ${row}`);
      // At least an even split's share (the report runs one thread per core).
      assert.ok(Number(share[1]) >= Math.floor(100 / availableParallelism()) && Number(share[1]) <= 100, row);
    }
  });

  it('sees no errors and no problems', () => {
    const systems = withPostgres ? 'geoapi 0, PostgreSQL 0, naive 0' : 'geoapi 0, naive 0';
    assert.ok(report.includes(`over all measured runs: ${systems}.`), report.slice(0, 2000));
    assert.ok(!report.includes('Problems seen'), report.slice(report.indexOf('Problems seen')));
  });

  it('finds the baselines answering exactly like geoapi on the fixture', () => {
    const parity = sectionText('## Answer parity');
    for (const op of OPERATIONS) {
      const row = parity.split('\n').find((line) => line.startsWith(`| ${OPERATION_LABELS[op]} |`));
      assert.ok(row, `no parity row for ${op}`);
      for (const [, same, total] of row.matchAll(/(\d+)\/(\d+) \(shape/g)) assert.equal(same, total, row);
    }
  });

  it('reports geoapi’s memory against the snapshot, its warm-up and its response caches', () => {
    assert.match(report, /\| geoapi RSS after start ≤ 1\.5× the snapshot’s size on disk \([\d,]+ MiB\) \| [\d,]+ MiB \([\d.]+×\) \| \*\*(not )?met\*\* \|/);
    assert.match(report, /\| geoapi RSS after all load runs ≤ 2× the snapshot’s size on disk \([\d,]+ MiB\) \| [\d,]+ MiB \([\d.]+×\) \| \*\*(not )?met\*\* \|/);
    assert.match(report, /\| geoapi’s slowest single answer ≤ 5 ms, every operation, one request at a time [^|]* \| (worst [\d.]+ ms|\d+ of 10 above: [^|]*`[^`]+`[^|]*); the bare handler on the same requests: slowest [\d.]+ ms, \d+ of 10 operations above; by the server’s own clock: (every answer under 2\.00 ms|slowest [\d.]+ ms \(`[^`]+`\)) \| \*\*(not )?met\*\* \|/);
    const memory = sectionText('## Startup and memory');
    // spawn → first 200, spawn → ready (not before the first answer), RSS after start, after load.
    const row = /\n\| geoapi \| ([\d,]+) ms \| ([\d,]+) ms \| [\d,]+ MiB \| [\d,]+ MiB \(files [\d,]+ MiB\) \|/.exec(memory);
    assert.ok(row, memory);
    assert.ok(Number(row[2]!.replace(/,/g, '')) >= Number(row[1]!.replace(/,/g, '')), row[0]);
    assert.match(memory, /response caches after the load runs \(its metrics listener\): [\d,]+ MiB held of a [\d,]+ MiB budget for the whole process, [\d,]+ answers; hit ratio [\d.]+ % over [\d,]+ lookups/);
  });

  it('measures a new geoapi from ready on: the whole rate at once, ramped up, without its warm-up, and the floor', () => {
    const memory = sectionText('## Startup and memory');
    const labels = ['as shipped |', 'as shipped, the rate ramped up from 0 over 5 s (a balancer’s slow start) |', 'no warm-up requests, background threads at the same priority (', 'floor: bare uWS handler |'];
    for (const label of labels) {
      const row = memory.split('\n').find((line) => line.startsWith(`| ${label}`));
      assert.ok(row, `no row "${label}" right after ready:\n${memory}`);
      assert.match(row, /\| [\d.,]+ \/ [\d.,]+( · [\d.,]+ \/ [\d.,]+)* \| [\d.,]+ \| [\d.,]+ \|$/, row);
    }
  });

  it('reports geoapi’s garbage collection pauses during the mix', () => {
    const gc = sectionText('## Garbage collection');
    for (const run of ['mix at saturation', 'mix at half its peak']) {
      const row = new RegExp(`\\n\\| ${run} \\([\\d]+ s\\) \\| ([\\d,]+) \\(([\\d,]+) / ([\\d,]+)\\) \\| ([\\d.]+) / ([\\d.]+) / ([\\d.]+) \\| [\\d.]+ % \\| [\\d.]+ \\|`).exec(gc);
      assert.ok(row, `no GC row for ${run}:\n${gc}`);
      const [count, scavenges, markCompacts] = row.slice(1, 4).map((n) => Number(n.replace(/,/g, '')));
      // Sub-second smoke runs may see no collection at all: the parsing itself is tested in gc.test.ts.
      assert.equal(scavenges! + markCompacts!, count, row[0]);
      const [p50, p99, max] = row.slice(4, 7).map(Number);
      assert.ok(p50! <= p99! && p99! <= max!, row[0]);
    }
  });

  it('times geoapi’s single answers by the client, by the server’s own histogram and slow-request log, and against the bare handler, for every operation', () => {
    for (const op of OPERATIONS) {
      const row = new RegExp(`\\n\\| ${OPERATION_LABELS[op].replace(/[()]/g, '\\$&')} \\| [\\d.]+ / [\\d.]+ / [\\d.]+ \\| ([\\d,]+) of ([\\d,]+); (all under 2\\.00 ms|[\\d.]+ ms \\(\`[^\`]+\`\\)) \\| [\\d.]+ / [\\d.]+ / [\\d.]+ \\| \``).exec(report);
      assert.ok(row, `no single-answer row with the server's own time for ${op}`);
      assert.ok(Number(row[1]!.replace(/,/g, '')) <= Number(row[2]!.replace(/,/g, '')), row[0]);
    }
  });

  it('reports growth at 10 %, 50 % and 100 % of the cities', () => {
    for (const percent of [10, 50, 100]) assert.match(report, new RegExp(`\\| nearby \\(${percent} %\\) \\| \\d`));
  });
});
