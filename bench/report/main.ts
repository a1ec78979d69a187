// `npm run bench:report`: geoapi against PostgreSQL 15 and a naive in-memory server on the full
// dataset, written as Markdown (bench/REPORT.md). `--smoke` runs the same code on the test fixture
// in seconds (CI runs it, so the benchmark cannot rot). See bench/REPORT.md "How to rerun".
import { existsSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderReport } from './render.js';
import { runReport, wrkAvailable, type RunnerOptions } from './runner.js';
import { REPORT_SEED } from './workload.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name}: expected a positive number, found ${JSON.stringify(text)}`);
  return value;
}

export function optionsFrom(argv: string[], log: (line: string) => void): { options: RunnerOptions; out: string } {
  const { values } = parseArgs({
    args: argv,
    options: {
      smoke: { type: 'boolean', default: false },
      out: { type: 'string' },
      data: { type: 'string' },
      snapshot: { type: 'string' },
      'no-postgres': { type: 'boolean', default: false },
      seconds: { type: 'string' },
      'fixed-seconds': { type: 'string' },
      'growth-seconds': { type: 'string' },
      workers: { type: 'string' },
      'node-loadgen': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const smoke = values.smoke!;
  const dataDir = resolve(values.data ?? (smoke ? resolve(REPO_ROOT, 'test/fixtures/csc') : resolve(REPO_ROOT, '../shared/data/csc')));
  if (!existsSync(dataDir)) throw new Error(`dataset not found at ${dataDir} (pass --data <dir>)`);
  const seconds = positive('seconds', values.seconds, smoke ? 0.3 : 5);
  const options: RunnerOptions = {
    smoke,
    dataDir,
    snapshotDir: values.snapshot ? resolve(values.snapshot) : null,
    postgres: !values['no-postgres'],
    seconds,
    fixedSeconds: positive('fixed-seconds', values['fixed-seconds'], smoke ? 0.3 : 5),
    growthSeconds: positive('growth-seconds', values['growth-seconds'], smoke ? 0.2 : 4),
    warmupSeconds: smoke ? 0 : 1,
    connections: 32,
    workers: positive('workers', values.workers, availableParallelism()),
    requestsPerOperation: smoke ? 40 : 20_000,
    mixSize: smoke ? 200 : 100_000,
    validationSample: smoke ? 10 : 25,
    serviceSample: smoke ? 10 : 2000,
    // wrk counts whole seconds: sub-second smoke runs use the Node generator.
    useWrk: !smoke && !values['node-loadgen'] && Number.isInteger(seconds) && wrkAvailable(),
    seed: REPORT_SEED,
    log,
  };
  return { options, out: resolve(values.out ?? (smoke ? join(tmpdir(), 'geoapi-report-smoke.md') : resolve(REPO_ROOT, 'bench/REPORT.md'))) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const log = (line: string): void => {
    process.stderr.write(`[bench:report ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  };
  try {
    const { options, out } = optionsFrom(process.argv.slice(2), log);
    const data = await runReport(options);
    writeFileSync(out, renderReport(data));
    log(`report written to ${out} (${(data.durationMs / 60_000).toFixed(1)} min)`);
  } catch (error) {
    process.stderr.write(`bench:report: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
