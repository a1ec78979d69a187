// What metrics and request logs cost per request over HTTP: the same server (real operations,
// fixture snapshot, one worker thread) with metrics off, with the metrics listener on (scraped
// once per run, as Prometheus would), and with the access log on as well — interleaved round by
// round in the same run so machine noise hits them alike. The load generator is autocannon in
// its own process. Reported: requests/s per mode (median of the rounds) and the ratio to "off".
// Target (issue 14): metrics on ≥ 0.95 × off.
//
// Run: `npm run bench -- metrics`, or `node dist/bench/metrics.bench.js`. Settings (environment):
//   GEOAPI_BENCH_SECONDS (4) per run, GEOAPI_BENCH_ROUNDS (3), GEOAPI_BENCH_CONNECTIONS (32),
//   GEOAPI_BENCH_ROUTE (/v1/countries/US: a cheap answer, the worst case for a fixed per-request cost).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { fixtureSnapshot } from '../test/cli/support.js';
import { request, startTestServer, type TestServer } from '../test/support/server.js';

const setting = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}: expected a positive number, found ${process.env[name]}`);
  return value;
};

function autocannon(url: string, key: string, seconds: number, connections: number): { rps: number; bad: number } {
  const bin = createRequire(import.meta.url).resolve('autocannon');
  const run = spawnSync(process.execPath, [bin, '--json', '-c', String(connections), '-d', String(seconds), '-H', `x-geoapi-key=${key}`, url], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (run.status !== 0) throw new Error(`autocannon failed (${run.status}): ${run.stderr}`);
  const result = JSON.parse(run.stdout) as { requests: { average: number }; non2xx: number; errors: number; timeouts: number };
  return { rps: result.requests.average, bad: result.non2xx + result.errors + result.timeouts };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function runMetricsBench(): Promise<void> {
  const seconds = setting('GEOAPI_BENCH_SECONDS', 4);
  const rounds = setting('GEOAPI_BENCH_ROUNDS', 3);
  const connections = setting('GEOAPI_BENCH_CONNECTIONS', 32);
  const route = process.env['GEOAPI_BENCH_ROUTE'] ?? '/v1/countries/US';
  const snapshotDir = fixtureSnapshot();
  const modes: { name: string; args: string[]; server?: TestServer; rps: number[] }[] = [
    { name: 'metrics off', args: [], rps: [] },
    { name: 'metrics on', args: ['--metrics-port', '0'], rps: [] },
    { name: 'metrics on + access log', args: ['--metrics-port', '0', '--access-log'], rps: [] },
  ];
  try {
    for (const mode of modes) mode.server = await startTestServer({ snapshotDir, args: mode.args });
    for (let round = 0; round < rounds; round++) {
      for (const mode of modes) {
        const server = mode.server!;
        const { rps, bad } = autocannon(`${server.url}${route}`, server.keys.business, seconds, connections);
        if (bad > 0) throw new Error(`${mode.name}: ${bad} answers were not 2xx`);
        if (server.metricsUrl !== null && (await request(server.metricsUrl)).status !== 200) throw new Error(`${mode.name}: scrape failed`);
        mode.rps.push(rps);
      }
    }
  } finally {
    for (const mode of modes) await mode.server?.close();
  }
  const base = median(modes[0]!.rps);
  console.log(`metrics and logs, ${route}, ${connections} connections, ${rounds} × ${seconds} s per mode (1 worker thread; autocannon on the same machine)`);
  for (const mode of modes) {
    const rps = median(mode.rps);
    console.log(`${mode.name.padEnd(26)} ${rps.toFixed(0).padStart(8)} req/s  ${(rps / base).toFixed(3)} × off   rounds: ${mode.rps.map((r) => r.toFixed(0)).join(', ')}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runMetricsBench();
