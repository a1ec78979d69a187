// Index benchmark on the full dataset's cities (../shared/data/csc), indexes built in-process from
// the JSON files. Each task answers one query per call, cycling through a fixed query set, so
// tinybench's latency percentiles are per-query percentiles. Baselines run in the same process:
// - fuzzy: TrigramIndex.search (every match) and searchTop (what a page of 10 rows needs, as the
//   fuzzy operation asks) vs scoring every name/native with pg_trgm similarity (trigrams
//   precomputed, the fastest brute force), threshold 0.3 (the API default) and 0.1;
//   target: index p99 ≤ 1 ms;
// - autocomplete: PrefixIndex.range + top-10 (exact first, population, row) vs startsWith over
//   every key + the same top-10;
// - nearby: GeoIndex.around vs computing every distance and selecting the nearest.
// Run: `npm run bench -- indexes`, or directly: `node dist/bench/indexes.bench.js`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { buildGeoIndex, distanceKm, GeoIndex } from '../runtime/indexes/geo-index.js';
import { PrefixIndex, PrefixIndexBuilder } from '../runtime/indexes/prefix-index.js';
import { TrigramIndex, TrigramIndexBuilder } from '../runtime/indexes/trigram-index.js';
import { matchKey } from '../runtime/text/normalise.js';
import { commonTrigramCount, similarityFromCounts, trigramsOf } from '../runtime/text/trigram.js';
import { prng } from '../test/support/random.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
const citiesDir = resolve(repoRoot, '../shared/data/csc/contributions/cities');

interface City {
  name: string;
  native: string | null;
  lng: number;
  lat: number;
  population: number;
}

function loadCities(): City[] {
  if (!existsSync(citiesDir)) throw new Error(`full dataset not found at ${citiesDir}; the index benchmark needs it`);
  const cities: City[] = [];
  for (const file of readdirSync(citiesDir).filter((f) => f.endsWith('.json')).sort()) {
    for (const raw of JSON.parse(readFileSync(join(citiesDir, file), 'utf8')) as Record<string, unknown>[]) {
      cities.push({
        name: String(raw.name),
        native: typeof raw.native === 'string' && raw.native !== '' ? raw.native : null,
        lng: typeof raw.longitude === 'string' ? Number(raw.longitude) : NaN,
        lat: typeof raw.latitude === 'string' ? Number(raw.latitude) : NaN,
        population: typeof raw.population === 'number' ? raw.population : -1,
      });
    }
  }
  return cities;
}


function typo(random: () => number, text: string): string {
  const chars = [...text];
  const i = Math.floor(random() * chars.length);
  const kind = Math.floor(random() * 3);
  if (kind === 0 && chars.length > 2) chars.splice(i, 1);
  else if (kind === 1) chars.splice(i, 0, 'aeiou'[Math.floor(random() * 5)]!);
  else if (i + 1 < chars.length) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
  return chars.join('');
}

/** A task body that answers the next query of `queries` on each call. */
function cycling<Q>(queries: Q[], answer: (q: Q) => unknown): () => void {
  let i = 0;
  return () => {
    answer(queries[i]!);
    i = (i + 1) % queries.length;
  };
}

/** Keeps the `limit` best of a stream of rows; `better(a, b)` orders them. */
function topK(limit: number, better: (a: number, b: number) => boolean): { offer(row: number): void; rows(): number[] } {
  const kept: number[] = [];
  return {
    offer(row) {
      if (kept.length === limit && !better(row, kept[kept.length - 1]!)) return;
      let at = kept.length === limit ? limit - 1 : kept.length;
      while (at > 0 && better(row, kept[at - 1]!)) {
        kept[at] = kept[at - 1]!;
        at--;
      }
      kept[at] = row;
      if (kept.length > limit) kept.length = limit;
    },
    rows: () => kept,
  };
}

interface Row {
  task: string;
  p50Ms: number;
  p99Ms: number;
  p50Ratio: number;
  p99Ratio: number;
  samples: number;
}

function stats(bench: Bench, i: number): { p50: number; p99: number; samples: number } {
  const task = bench.tasks[i]!;
  const result = task.result;
  if (!('latency' in result)) throw new Error(`bench task ${task.name} did not complete: ${result.state}`);
  return { p50: result.latency.p50, p99: result.latency.p99, samples: result.latency.samplesCount };
}

const fmt = (ms: number): string => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`);

/** Runs a baseline bench and an index bench; one table row per task, ratios against the baseline. */
async function compare(title: string, baseline: [string, () => void], candidates: [string, () => void][]): Promise<Row[]> {
  const slow = new Bench({ time: 1500, iterations: 40, warmupIterations: 3, warmupTime: 0 });
  slow.add(baseline[0], baseline[1]);
  const fast = new Bench({ time: 1500, iterations: 2000, warmupTime: 200 });
  for (const [name, fn] of candidates) fast.add(name, fn);
  await slow.run();
  await fast.run();
  const base = stats(slow, 0);
  const rows: Row[] = [{ task: `${title}: ${baseline[0]} (baseline)`, p50Ms: base.p50, p99Ms: base.p99, p50Ratio: 1, p99Ratio: 1, samples: base.samples }];
  candidates.forEach(([name], i) => {
    const s = stats(fast, i);
    rows.push({ task: `${title}: ${name}`, p50Ms: s.p50, p99Ms: s.p99, p50Ratio: base.p50 / s.p50, p99Ratio: base.p99 / s.p99, samples: s.samples });
  });
  return rows;
}

export async function runIndexBench(): Promise<void> {
  let t = performance.now();
  const cities = loadCities();
  const random = prng(2024);
  console.log(`cities: ${cities.length} (read in ${(performance.now() - t).toFixed(0)} ms)`);

  // ---- fuzzy ----
  t = performance.now();
  const trigramBuilder = new TrigramIndexBuilder();
  const docTrigrams: Int32Array[] = [];
  cities.forEach((city, row) => {
    const name = trigramsOf(city.name);
    trigramBuilder.addTrigrams(row, 0, name);
    docTrigrams.push(name);
    if (city.native) {
      const native = trigramsOf(city.native);
      trigramBuilder.addTrigrams(row, 1, native);
      docTrigrams.push(native);
    }
  });
  const trigramBytes = trigramBuilder.finish();
  const trigramIndex = TrigramIndex.from(trigramBytes.buffer);
  console.log(`trigram index: ${trigramIndex.docCount} docs, ${(trigramBytes.byteLength / 2 ** 20).toFixed(1)} MiB, built in ${(performance.now() - t).toFixed(0)} ms`);
  const fuzzyQueries = Array.from({ length: 500 }, () => typo(random, cities[Math.floor(random() * cities.length)]!.name));
  const bruteFuzzy = (query: string, threshold: number): number => {
    const q = trigramsOf(query);
    let matches = 0;
    for (const doc of docTrigrams) if (similarityFromCounts(commonTrigramCount(q, doc), q.length, doc.length) >= threshold) matches++;
    return matches;
  };
  const fuzzyRows = await compare(
    'fuzzy',
    ['score every name (t=0.3)', cycling(fuzzyQueries, (q) => bruteFuzzy(q, 0.3))],
    [
      ['TrigramIndex.search (t=0.3)', cycling(fuzzyQueries, (q) => trigramIndex.search(q, 0.3))],
      ['TrigramIndex.searchTop (t=0.3, k=10)', cycling(fuzzyQueries, (q) => trigramIndex.searchTop(q, 0.3, 10))],
      ['TrigramIndex.search (t=0.1)', cycling(fuzzyQueries, (q) => trigramIndex.search(q, 0.1))],
      ['TrigramIndex.searchTop (t=0.1, k=10)', cycling(fuzzyQueries, (q) => trigramIndex.searchTop(q, 0.1, 10))],
    ],
  );

  // ---- autocomplete ----
  t = performance.now();
  const prefixBuilder = new PrefixIndexBuilder();
  const keys: { key: string; row: number }[] = [];
  cities.forEach((city, row) => {
    const nameKey = matchKey(city.name);
    prefixBuilder.add(nameKey, row, 0);
    keys.push({ key: nameKey, row });
    if (city.native) {
      const nativeKey = matchKey(city.native);
      prefixBuilder.add(nativeKey, row, 1);
      keys.push({ key: nativeKey, row });
    }
  });
  const prefixIndex = PrefixIndex.from(prefixBuilder.finish().buffer);
  console.log(`prefix index: ${prefixIndex.count} entries, built in ${(performance.now() - t).toFixed(0)} ms`);
  const prefixQueries = Array.from({ length: 500 }, () => {
    const key = matchKey(cities[Math.floor(random() * cities.length)]!.name);
    return [...key].slice(0, 2 + Math.floor(random() * 4)).join('');
  });
  const exactOf = new Uint8Array(cities.length);
  const better = (a: number, b: number): boolean =>
    exactOf[a]! !== exactOf[b]! ? exactOf[a]! > exactOf[b]! : cities[a]!.population !== cities[b]!.population ? cities[a]!.population > cities[b]!.population : a < b;
  const prefixTop10 = (q: string): number[] => {
    const [start, end] = prefixIndex.range(q);
    const top = topK(10, better);
    for (let i = start; i < end; i++) {
      const row = prefixIndex.row(i);
      exactOf[row] = prefixIndex.isExact(i, q) ? 1 : exactOf[row]!;
      top.offer(row);
    }
    for (let i = start; i < end; i++) exactOf[prefixIndex.row(i)] = 0;
    return top.rows();
  };
  const filterTop10 = (q: string): number[] => {
    const top = topK(10, better);
    const hits: number[] = [];
    for (const { key, row } of keys) {
      if (!key.startsWith(q)) continue;
      if (key === q) exactOf[row] = 1;
      hits.push(row);
    }
    for (const row of hits) top.offer(row);
    for (const row of hits) exactOf[row] = 0;
    return top.rows();
  };
  const prefixRows = await compare('autocomplete', ['startsWith over every key + top-10', cycling(prefixQueries, filterTop10)], [
    ['PrefixIndex.range + top-10', cycling(prefixQueries, prefixTop10)],
  ]);

  // ---- nearby ----
  t = performance.now();
  const lngs = Float64Array.from(cities, (c) => c.lng);
  const lats = Float64Array.from(cities, (c) => c.lat);
  const geoIndex = GeoIndex.from(buildGeoIndex(lngs, lats).buffer);
  console.log(`geo index: ${geoIndex.pointCount} points, built in ${(performance.now() - t).toFixed(0)} ms`);
  const geoQueries = Array.from({ length: 500 }, () => {
    const city = cities[Math.floor(random() * cities.length)]!;
    return Number.isNaN(city.lng) ? [0, 0] : [city.lng + (random() - 0.5) * 0.5, city.lat + (random() - 0.5) * 0.5];
  }) as [number, number][];
  const distanceScratch = new Float64Array(cities.length);
  const bruteNearby = ([lng, lat]: [number, number], k: number, radiusKm: number): number[] => {
    const top = topK(k, (a, b) => distanceScratch[a]! < distanceScratch[b]! || (distanceScratch[a] === distanceScratch[b] && a < b));
    for (let row = 0; row < lngs.length; row++) {
      if (Number.isNaN(lngs[row]!)) continue;
      const d = distanceKm(lng, lat, lngs[row]!, lats[row]!);
      if (d > radiusKm) continue;
      distanceScratch[row] = d;
      top.offer(row);
    }
    return top.rows();
  };
  const geoRows = await compare('nearby', ['distance to every city, nearest 20 within 25 km', cycling(geoQueries, (q) => bruteNearby(q, 20, 25))], [
    ['GeoIndex.around (20 within 25 km)', cycling(geoQueries, ([lng, lat]) => geoIndex.around(lng, lat, 20, 25))],
    ['GeoIndex.around (100 within 500 km)', cycling(geoQueries, ([lng, lat]) => geoIndex.around(lng, lat, 100, 500))],
  ]);

  console.table(
    [...fuzzyRows, ...prefixRows, ...geoRows].map((r) => ({
      task: r.task,
      p50: fmt(r.p50Ms),
      p99: fmt(r.p99Ms),
      'p50 speed-up': `${r.p50Ratio.toFixed(0)}×`,
      'p99 speed-up': `${r.p99Ratio.toFixed(0)}×`,
      samples: r.samples,
    })),
  );
  const fuzzyP99 = Math.max(fuzzyRows[1]!.p99Ms, fuzzyRows[2]!.p99Ms);
  console.log(`fuzzy search p99 at the default threshold 0.3: ${fmt(fuzzyP99)} (target ≤ 1 ms: ${fuzzyP99 <= 1 ? 'ok' : 'MISSED'})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runIndexBench().catch((err: unknown) => {
    console.error(`index bench failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
