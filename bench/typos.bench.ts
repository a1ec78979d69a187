// Typo recall (quality, not speed): how often the intended city is in the top 10 of autocomplete
// and of fuzzy search (threshold 0.3, type=city, no filters) when its name is typed with 1 or 2
// random edits (delete, insert, substitute with a–z, transpose adjacent). Cities are sampled
// weighted by prominence (`prominence.cities`: dataset population, else GeoNames), 1,000 distinct
// per run, seeded (test/support/random.ts), so every run asks the same queries. Reported overall
// and for names of 4–6 characters (where trigram scores fall fastest).
//
// Before/after in the same run: GEOAPI_TYPO_BASELINE=<dist dir of another build> (e.g. db49dbc
// compiled with tsc) answers the same queries with that build's engine over the same snapshot.
//
// Run: `npm run bench -- typos`. GEOAPI_BENCH_SNAPSHOT=<dir> reuses a built full snapshot (else
// one is built into a temporary directory).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSnapshot } from '../build-index/build.js';
import { openProminence } from '../runtime/format/prominence.js';
import { PROMINENCE_SECTION } from '../runtime/format/sections.js';
import { loadStore } from '../runtime/store/index.js';
import type { Store } from '../runtime/store/types.js';
import { prng } from '../test/support/random.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const FULL_SOURCE = resolve(repoRoot, '../shared/data/csc');
const SAMPLE = 1000;
const LIMIT = 10;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

interface Case {
  id: number;
  name: string;
  q: string;
  edits: 1 | 2;
}

/** Searches of one build: both return the ids of the first LIMIT rows. */
interface Engine {
  label: string;
  autocomplete(q: string): number[];
  fuzzy(q: string): number[];
}

async function engineFrom(distRoot: string, label: string, snapshotDir: string): Promise<Engine> {
  const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(distRoot, path)).href)) as T;
  const { loadStore: load_ } = await load<{ loadStore: (dir: string) => Store }>('runtime/store/index.js');
  const { searchContext } = await load<{ searchContext: (s: Store) => { indexes(e: string): { rowCount: number; idAt(row: number): number } } }>('runtime/engine/search/context.js');
  const { RowRanges } = await load<{ RowRanges: { all(n: number): unknown } }>('runtime/engine/search/row-filter.js');
  const { autocompleteSearch } = await load<{ autocompleteSearch: (i: unknown, q: unknown) => { row: number; id: number }[] }>('runtime/engine/search/autocomplete.js');
  const { fuzzySearch } = await load<{ fuzzySearch: (i: unknown, q: unknown) => { row: number; id: number }[] }>('runtime/engine/search/fuzzy.js');
  const { matchKey } = await load<{ matchKey: (t: string) => string }>('runtime/text/normalise.js');
  const store = load_(snapshotDir);
  const indexes = searchContext(store).indexes('cities');
  const rows = RowRanges.all(indexes.rowCount);
  return {
    label,
    autocomplete: (q) => autocompleteSearch(indexes, { q, key: matchKey(q), rows, limit: LIMIT }).map((c) => c.id),
    fuzzy: (q) => fuzzySearch(indexes, { q, threshold: 0.3, rows, limit: LIMIT }).map((c) => c.id),
  };
}

/** One random edit of a code-point array (in place). */
function edit(random: () => number, chars: string[]): void {
  const i = Math.floor(random() * chars.length);
  const letter = LETTERS[Math.floor(random() * LETTERS.length)]!;
  switch (Math.floor(random() * 4)) {
    case 0:
      if (chars.length > 2) chars.splice(i, 1);
      else chars[i] = letter;
      break;
    case 1:
      chars.splice(i, 0, letter);
      break;
    case 2:
      chars[i] = letter;
      break;
    default:
      if (i + 1 < chars.length) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
      else chars.splice(i, 0, letter);
  }
}

/** SAMPLE distinct cities drawn with probability ∝ prominence, each typed with 1 and with 2 edits. */
export function casesOf(store: Store): Case[] {
  const { prominence } = openProminence(store.section(PROMINENCE_SECTION), store.cities.count, PROMINENCE_SECTION);
  const rows: number[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (let row = 0; row < prominence.length; row++) {
    if (!(prominence[row]! > 0)) continue;
    total += prominence[row]!;
    rows.push(row);
    cumulative.push(total);
  }
  const random = prng(15_2);
  const chosen = new Set<number>();
  while (chosen.size < SAMPLE) {
    const target = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    const name = store.cities.nameAt(rows[lo]!);
    if ([...name].length >= 3) chosen.add(rows[lo]!);
  }
  const cases: Case[] = [];
  for (const row of chosen) {
    const name = store.cities.nameAt(row);
    for (const edits of [1, 2] as const) {
      let q = name;
      for (let attempt = 0; attempt < 10 && q.toLowerCase() === name.toLowerCase(); attempt++) {
        const chars = [...name];
        for (let e = 0; e < edits; e++) edit(random, chars);
        q = chars.join('').trim();
      }
      if ([...q].length >= 2) cases.push({ id: store.cities.idAt(row), name, q, edits });
    }
  }
  return cases;
}

function percent(found: number, of: number): string {
  return of === 0 ? '–' : `${((100 * found) / of).toFixed(1)}%`;
}

export async function runTyposBench(): Promise<void> {
  let snapshotDir = process.env.GEOAPI_BENCH_SNAPSHOT;
  let temp: string | null = null;
  if (!snapshotDir) {
    temp = mkdtempSync(join(tmpdir(), 'geoapi-typos-'));
    snapshotDir = join(temp, 'snapshot');
    buildSnapshot({ source: FULL_SOURCE, out: snapshotDir });
  }
  try {
    const store = loadStore(snapshotDir);
    const cases = casesOf(store);
    const engines = [await engineFrom(join(repoRoot, 'dist'), 'this build', snapshotDir)];
    if (process.env.GEOAPI_TYPO_BASELINE) engines.unshift(await engineFrom(resolve(process.env.GEOAPI_TYPO_BASELINE), `baseline (${process.env.GEOAPI_TYPO_BASELINE})`, snapshotDir));
    console.log(`${cases.length} queries: ${SAMPLE} cities (∝ prominence, seed 152) × 1 and 2 edits; top ${LIMIT}, type=city, fuzzy threshold 0.3`);
    console.log('| build | operation | 1 edit | 2 edits | 2 edits, names of 4–6 chars | either op, 2 edits | engine mean (first pass, rough) |');
    console.log('|---|---|---|---|---|---|---|');
    for (const engine of engines) {
      const hits = { autocomplete: new Set<Case>(), fuzzy: new Set<Case>() };
      const micros = { autocomplete: 0, fuzzy: 0 };
      for (const c of cases) {
        let t = performance.now();
        if (engine.autocomplete(c.q).includes(c.id)) hits.autocomplete.add(c);
        micros.autocomplete += performance.now() - t;
        t = performance.now();
        if (engine.fuzzy(c.q).includes(c.id)) hits.fuzzy.add(c);
        micros.fuzzy += performance.now() - t;
      }
      const two = cases.filter((c) => c.edits === 2);
      const short = two.filter((c) => [...c.name].length >= 4 && [...c.name].length <= 6);
      const either = two.filter((c) => hits.autocomplete.has(c) || hits.fuzzy.has(c)).length;
      for (const op of ['autocomplete', 'fuzzy'] as const) {
        const found = (list: Case[]) => list.filter((c) => hits[op].has(c)).length;
        const one = cases.filter((c) => c.edits === 1);
        console.log(`| ${engine.label} | ${op} | ${percent(found(one), one.length)} | ${percent(found(two), two.length)} | ${percent(found(short), short.length)} (${short.length}) | ${percent(either, two.length)} | ${((1000 * micros[op]) / cases.length).toFixed(0)} µs |`);
      }
    }
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}
