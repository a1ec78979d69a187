// Two compiled checkouts in one process, interleaved request by request (a shared, loaded machine
// then slows both alike): per request, each build answers `--reps` times (response caches
// cleared before each call) and its fastest time is kept. Reports p50/p99/max of autocomplete and
// fuzzy over the search bench's query mix (test/support/search-queries.ts: seed 2024, 1,000
// each; the accented ones, whose trigrams unaccent changes, also apart), and the single slowest requests bench/REPORT.md names, first call (after the build's own
// preparation, when it has one) and warm.
//   node dist/bench/compare-builds.js --baseline ../wt-prev [--candidate .] [--snapshot dir]
//     [--baseline-snapshot dir] [--reps 5]
// The snapshot defaults to the test suite's full-dataset snapshot (test/support/snapshots.ts); the
// baseline reads --baseline-snapshot instead when given (one its own build made, for a change of
// snapshot format: the same dataset, so the same answers).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Caller } from '../runtime/contract/index.js';
import type { Operation, Reply, RequestContext } from '../runtime/routes/types.js';
import type { Store } from '../runtime/store/types.js';
import { trigramsOf } from '../runtime/text/trigram.js';
import { unaccent } from '../runtime/text/unaccent.js';
import { searchQuerySets } from '../test/support/search-queries.js';
import { fullSnapshot } from '../test/support/snapshots.js';

const CALLER: Caller = { keyId: 'bench', plan: 'business', tierName: 'business', tier: 'full', countryTier: 'full', rank: 4 };

interface Build {
  name: string;
  call(op: string, params: Record<string, string>, query: Record<string, string>): Reply;
  clear(): void;
  store: Store;
  prepare: (() => void) | null;
}

async function openBuild(checkout: string, snapshotDir: string): Promise<Build> {
  const load = (path: string) => import(pathToFileURL(resolve(checkout, 'dist', path)).href) as Promise<Record<string, unknown>>;
  const { loadStore } = (await load('runtime/store/index.js')) as { loadStore(dir: string): Store };
  const { engineFor } = (await load('runtime/engine/index.js')) as { engineFor(store: Store): RequestContext['engine'] };
  const registry = (await load('runtime/routes/registry.js')) as { allOperations(): Operation[]; preparationStepsFor?: (store: Store) => (() => void)[] };
  // Builds before the one response cache (runtime/http/response-cache.ts) kept caches in the
  // operations; newer ones keep none there (a handler returns a render the HTTP layer caches).
  const optional = (path: string) => load(path).catch(() => null);
  const search = (await optional('runtime/routes/search/shared.js')) as { searchCache(store: Store, op: string): { clear(): void } } | null;
  const memos = (await optional('runtime/routes/reference/body-memo.js')) as { bodyMemo(store: Store): unknown } | null;
  const postcodes = (await load('runtime/routes/postcodes/index.js')) as { clearPostcodeResponseCache?(): void };
  const store = loadStore(snapshotDir);
  const operations = new Map(registry.allOperations().map((op) => [op.name, op]));
  return {
    name: checkout,
    store,
    clear() {
      if (search) for (const op of ['autocomplete', 'fuzzySearch', 'nearbySearch']) search.searchCache(store, op).clear();
      if (memos) {
        // The memo's internals: a fresh map so default lists are serialised again.
        const memo = memos.bodyMemo(store) as { entries: Map<string, unknown>; heldBytes: number };
        memo.entries.clear();
        memo.heldBytes = 0;
      }
      postcodes.clearPostcodeResponseCache?.();
    },
    call(op, params, query) {
      const context: RequestContext = {
        params, query: new Map(Object.entries(query)), header: () => undefined, caller: CALLER, engine: engineFor(store), store,
        now: new Date(1_790_000_000_000), requireFeature: () => {}, hasFeature: () => true,
        usage: () => {
          throw new Error('compare-builds: /v1/usage is not compared');
        },
      };
      const reply = operations.get(op)!.handle(context);
      // A render is what the server runs on a response-cache miss: part of the answer's cost.
      if ('render' in reply) reply.render();
      return reply;
    },
    prepare: registry.preparationStepsFor ? () => registry.preparationStepsFor!(store).forEach((step) => step()) : null,
  };
}

const SLOWEST: [string, Record<string, string>, Record<string, string>][] = [
  ['autocomplete', {}, { q: 'Blackb' }],
  ['autocomplete', {}, { q: 'flic' }],
  ['autocomplete', {}, { q: 'Ma' }],
  ['fuzzySearch', {}, { q: 'Roccaforte Mondovì' }],
  ['fuzzySearch', {}, { q: 'lmendorf' }],
  ['stateCities', { ciso: 'CA', siso: 'QC' }, {}],
  ['countryCities', { ciso: 'US' }, {}],
  ['countryStates', { ciso: 'UG' }, {}],
  ['postcodeSearch', { countryCode: 'JP' }, { limit: '20' }],
  ['postcodeSearch', { countryCode: 'JP' }, { q: '43', limit: '20' }],
  ['postcodeLookup', { countryCode: 'ID', code: '23753' }, {}],
];

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

function timeOnce(build: Build, op: string, params: Record<string, string>, query: Record<string, string>): number {
  build.clear();
  const t = performance.now();
  build.call(op, params, query);
  return performance.now() - t;
}

export async function runCompareBuilds(argv = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { baseline: { type: 'string' }, candidate: { type: 'string' }, snapshot: { type: 'string' }, 'baseline-snapshot': { type: 'string' }, reps: { type: 'string' } } });
  if (!values.baseline) throw new Error('--baseline <compiled checkout> expected');
  const snapshotDir = values.snapshot ?? fullSnapshot().dir;
  const reps = Number(values.reps ?? 5);
  const builds = [await openBuild(resolve(values.baseline), values['baseline-snapshot'] ?? snapshotDir), await openBuild(resolve(values.candidate ?? '.'), snapshotDir)];

  console.log('\nslowest single requests (REPORT.md): first call after the build\'s preparation, then the fastest of 20 warm calls');
  for (const build of builds) {
    const t = performance.now();
    build.prepare?.();
    console.log(`  ${build.name}: preparation ${build.prepare ? `${(performance.now() - t).toFixed(0)} ms` : 'none (built on first use)'}`);
  }
  for (const [op, params, query] of SLOWEST) {
    const cells = builds.map((build) => {
      const first = timeOnce(build, op, params, query);
      let warm = Infinity;
      for (let i = 0; i < 20; i++) warm = Math.min(warm, timeOnce(build, op, params, query));
      return `first ${first.toFixed(2)} ms, warm ${warm.toFixed(3)} ms`;
    });
    console.log(`  ${op} ${JSON.stringify({ ...params, ...query })}: ${cells.map((cell, i) => `[${i === 0 ? 'baseline' : 'candidate'}] ${cell}`).join('  ')}`);
  }

  const store = builds[0]!.store;
  const sets = searchQuerySets({ count: store.cities.count, name: (row) => store.cities.nameAt(row) });
  for (const op of ['autocomplete', 'fuzzySearch'] as const) {
    for (const build of builds) for (const query of sets[op]) timeOnce(build, op, {}, query);
    const times = builds.map(() => [] as number[]);
    for (const query of sets[op]) {
      const best = builds.map(() => Infinity);
      for (let r = 0; r < reps; r++) builds.forEach((build, i) => (best[i] = Math.min(best[i]!, timeOnce(build, op, {}, query))));
      best.forEach((ms, i) => times[i]!.push(ms));
    }
    console.log(`\n${op} (${sets[op].length} queries, fastest of ${reps} per query, builds interleaved)`);
    printTimes(times, '');
    // The accented queries (unaccent changes their trigrams) take a pass of their own (name-matches.ts).
    const accented = sets[op].flatMap((query, i) => (isAccented(query.q!) ? [i] : []));
    console.log(`  of which accented (${accented.length} queries):`);
    printTimes(times.map((ms) => accented.map((i) => ms[i]!)), '  ');
  }
}

/** p50/p99/max/mean of each build's times (baseline first), and the candidate ÷ baseline ratio per query. */
function printTimes(times: number[][], indent: string): void {
  times.forEach((ms, i) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
    console.log(`${indent}  ${i === 0 ? 'baseline ' : 'candidate'} p50 ${us(at(sorted, 0.5))}  p99 ${us(at(sorted, 0.99))}  max ${us(sorted[sorted.length - 1]!)}  mean ${us(mean)}`);
  });
  const ratios = times[1]!.map((ms, i) => ms / times[0]![i]!).sort((a, b) => a - b);
  console.log(`${indent}  candidate ÷ baseline per query: median ${at(ratios, 0.5).toFixed(2)}, p10 ${at(ratios, 0.1).toFixed(2)}, p90 ${at(ratios, 0.9).toFixed(2)}`);
}

function isAccented(q: string): boolean {
  const plain = trigramsOf(q);
  const unaccented = trigramsOf(unaccent(q));
  return plain.length !== unaccented.length || plain.some((code, i) => code !== unaccented[i]);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  await runCompareBuilds();
}
