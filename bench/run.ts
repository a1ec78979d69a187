// `npm run bench [-- name ...]`: runs the benchmark suites in one process, one after another.
// Each suite prints its own table with ratios against a baseline measured in the same run.
const SUITES: Record<string, { module: string; fn: string }> = {
  load: { module: './load.bench.js', fn: 'runLoadBench' },
  indexes: { module: './indexes.bench.js', fn: 'runIndexBench' },
  search: { module: './search.bench.js', fn: 'runSearchBench' },
  postcodes: { module: './postcodes.bench.js', fn: 'runPostcodeBench' },
  http: { module: './http.bench.js', fn: 'runHttpBench' },
  etag: { module: './etag.bench.js', fn: 'runEtagBench' },
  quota: { module: './quota.bench.js', fn: 'runQuotaBench' },
  metrics: { module: './metrics.bench.js', fn: 'runMetricsBench' },
  typeahead: { module: './typeahead.bench.js', fn: 'runTypeaheadBench' },
  swap: { module: './swap.bench.js', fn: 'runSwapBench' },
  typos: { module: './typos.bench.js', fn: 'runTyposBench' },
  render: { module: './render.bench.js', fn: 'runRenderBench' },
  path: { module: './request-path.bench.js', fn: 'runRequestPathBench' },
  instructions: { module: './instructions.bench.js', fn: 'runInstructionsBench' },
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : Object.keys(SUITES);
  let failed = 0;
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) {
      console.error(`unknown bench suite "${name}"; expected one of: ${Object.keys(SUITES).join(', ')}`);
      failed++;
      continue;
    }
    console.log(`\n=== bench: ${name} ===`);
    try {
      const mod = (await import(suite.module)) as Record<string, () => Promise<void>>;
      const run = mod[suite.fn];
      if (typeof run !== 'function') throw new Error(`${suite.module} does not export ${suite.fn}()`);
      await run();
    } catch (error) {
      failed++;
      console.error(`bench ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
