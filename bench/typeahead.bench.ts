// Type-ahead quality (not speed): for the 1,000 most populous GeoNames places that match a city of
// the dataset (the `prominence.cities` geonameId column of an enriched build), type the city's name
// one character at a time (from 2, autocomplete's minimum; type=city, limit 10, no filters) and
// record the first prefix length at which the city is 1st, in the top 3, in the top 10. Reports
// the share found in the top 3 within 3, 4 and 6 characters and the mean keystrokes to the top 3
// (a city never in the top 3 counts its whole name), on the default (npm package) and the full
// dataset, before (built with --no-enrich: rule 4 on the dataset's population only) and after.
// Targets (issue 15): ≥ 90% in the top 3 within 4 characters, ≥ 98% within 6, on both datasets.
//
// Run: `npm run bench -- typeahead`. Snapshots are built into GEOAPI_TYPEAHEAD_CACHE (kept, reused
// when present) or a temporary directory.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from '../build-index/build.js';
import { loadGeoNamesPlaces } from '../build-index/enrich/geonames.js';
import { autocompleteSearch } from '../runtime/engine/search/autocomplete.js';
import { searchContext } from '../runtime/engine/search/context.js';
import { RowRanges } from '../runtime/engine/search/row-filter.js';
import { openProminence } from '../runtime/format/prominence.js';
import { PROMINENCE_SECTION } from '../runtime/format/sections.js';
import { loadStore } from '../runtime/store/index.js';
import type { Store } from '../runtime/store/types.js';
import { matchKey } from '../runtime/text/normalise.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const FULL_SOURCE = resolve(repoRoot, '../shared/data/csc');
const PLACES = 1000;
const LIMIT = 10;

interface Target {
  id: number;
  name: string;
  geonamesPopulation: number;
}

interface Outcome {
  /** First prefix length (code points) at which the city is 1st / top 3 / top 10; Infinity never. */
  first: number;
  top3: number;
  top10: number;
  nameLength: number;
}

function snapshot(cache: string, label: string, source: string, enrich: boolean): string {
  const out = join(cache, `${label}-${enrich ? 'enriched' : 'plain'}`);
  if (!existsSync(join(out, 'manifest.json'))) {
    const t = performance.now();
    buildSnapshot({ source, out, enrich });
    console.log(`built ${label} (${enrich ? 'enriched' : '--no-enrich'}) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  return out;
}

/** The most populous matched GeoNames places, as dataset cities (from an enriched snapshot). */
function targetsOf(store: Store): Target[] {
  const population = new Map<number, number>();
  for (const place of loadGeoNamesPlaces() ?? []) population.set(place.id, place.population);
  const { geonameId } = openProminence(store.section(PROMINENCE_SECTION), store.cities.count, PROMINENCE_SECTION);
  const matched: Target[] = [];
  for (let row = 0; row < geonameId.length; row++) {
    const id = geonameId[row]!;
    if (id === 0) continue;
    matched.push({ id: store.cities.idAt(row), name: store.cities.nameAt(row), geonamesPopulation: population.get(id) ?? 0 });
  }
  matched.sort((a, b) => b.geonamesPopulation - a.geonamesPopulation || a.id - b.id);
  return matched.slice(0, PLACES);
}

function typeAhead(store: Store, targets: readonly Target[]): Outcome[] {
  const indexes = searchContext(store).indexes('cities');
  const rows = RowRanges.all(indexes.rowCount);
  const cache = new Map<string, number[]>();
  return targets.map((target) => {
    const chars = [...target.name];
    const outcome: Outcome = { first: Infinity, top3: Infinity, top10: Infinity, nameLength: chars.length };
    for (let length = 2; length <= chars.length; length++) {
      const q = chars.slice(0, length).join('').trim();
      if ([...q].length < 2) continue;
      let ids = cache.get(q);
      if (!ids) cache.set(q, (ids = autocompleteSearch(indexes, { q, key: matchKey(q), rows, limit: LIMIT }).map((c) => c.id)));
      const rank = ids.indexOf(target.id);
      if (rank < 0) continue;
      if (rank === 0) outcome.first = Math.min(outcome.first, length);
      if (rank < 3) outcome.top3 = Math.min(outcome.top3, length);
      outcome.top10 = Math.min(outcome.top10, length);
      if (outcome.first !== Infinity) break;
    }
    return outcome;
  });
}

function pct(part: number, whole: number): string {
  return `${((100 * part) / whole).toFixed(1)}%`;
}

function summarise(label: string, outcomes: readonly Outcome[]): string {
  const n = outcomes.length;
  const within = (k: number) => outcomes.filter((o) => o.top3 <= k).length;
  const keystrokes = outcomes.reduce((sum, o) => sum + (o.top3 === Infinity ? o.nameLength : o.top3), 0) / n;
  const firstMean = outcomes.filter((o) => o.first !== Infinity);
  const never = outcomes.filter((o) => o.top10 === Infinity).length;
  return [
    label.padEnd(28),
    pct(within(3), n).padStart(7),
    pct(within(4), n).padStart(7),
    pct(within(6), n).padStart(7),
    keystrokes.toFixed(2).padStart(7),
    (firstMean.reduce((s, o) => s + o.first, 0) / Math.max(1, firstMean.length)).toFixed(2).padStart(9),
    String(n - firstMean.length).padStart(9),
    String(never).padStart(8),
  ].join(' ');
}

export async function runTypeaheadBench(): Promise<void> {
  const kept = process.env.GEOAPI_TYPEAHEAD_CACHE;
  const cache = kept ?? mkdtempSync(join(tmpdir(), 'geoapi-bench-typeahead-'));
  mkdirSync(cache, { recursive: true });
  const datasets: [string, string][] = [['default (npm)', 'npm']];
  if (existsSync(join(FULL_SOURCE, 'contributions'))) datasets.push(['full', FULL_SOURCE]);
  else console.log(`full dataset not found at ${FULL_SOURCE}: default dataset only`);
  try {
    console.log(`${PLACES} most populous matched GeoNames places, typed from 2 characters, type=city, limit ${LIMIT}`);
    console.log(`${'dataset / build'.padEnd(28)}  top3≤3  top3≤4  top3≤6  keys→3  keys→1st  never1st  never10`);
    for (const [label, source] of datasets) {
      const slug = label.split(' ')[0]!;
      const enriched = loadStore(snapshot(cache, slug, source, true));
      const plain = loadStore(snapshot(cache, slug, source, false));
      const targets = targetsOf(enriched);
      console.log(summarise(`${label}, before (--no-enrich)`, typeAhead(plain, targets)));
      const after = typeAhead(enriched, targets);
      console.log(summarise(`${label}, after (enriched)`, after));
      const misses = targets.map((t, i) => ({ t, o: after[i]! })).filter(({ o }) => o.top3 > 6).slice(0, 15);
      if (misses.length > 0) console.log(`  not in the top 3 within 6 characters (first ${misses.length}): ${misses.map(({ t, o }) => `${t.name} (${t.geonamesPopulation.toLocaleString('en-US')}; top3 at ${o.top3})`).join(', ')}`);
    }
    console.log('targets: ≥ 90% in the top 3 within 4 characters, ≥ 98% within 6');
  } finally {
    if (!kept) rmSync(cache, { recursive: true, force: true });
  }
}
