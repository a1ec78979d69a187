// nameMatches (runtime/engine/search/name-matches.ts) with a top-k cut: `trigram-pq.` alone, or
// the two searches (the plain half, then the unaccent half started from the floor the first ended
// with), must hand the caller every row that can rank among the first k by its best score — ties
// at the k-th place included — with that best score, exactly as the uncut search does (the
// oracle: every match, then ranked). A plain query's matches from `trigram-pq.` alone must be the
// two searches' (PostgreSQL's own, test/indexes/pg-parity.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchContext } from '../../runtime/engine/search/context.js';
import { nameMatches, nameMatchesByHalves, type NameMatches } from '../../runtime/engine/search/name-matches.js';
import { trigramSection } from '../../runtime/format/sections.js';
import { TrigramIndex } from '../../runtime/indexes/trigram-index.js';
import { roundScore, trigramsOf } from '../../runtime/text/trigram.js';
import { unaccent } from '../../runtime/text/unaccent.js';
import type { Store } from '../../runtime/store/types.js';
import { typo } from '../support/search-queries.js';
import { prng } from '../support/random.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

const roundedTieFloor = (kth: number): number => roundScore(kth) - 0.0051;

/** Best score per row. */
function bestByRow(matches: NameMatches): Map<number, number> {
  const best = new Map<number, number>();
  for (let i = 0; i < matches.count; i++) best.set(matches.rows[i]!, Math.max(best.get(matches.rows[i]!) ?? -1, matches.scores[i]!));
  return best;
}

function assertTopRows(store: Store, queries: string[], thresholds: number[]): void {
  const indexes = searchContext(store).indexes('cities');
  const rowEnd = store.cities.count;
  for (const q of queries) {
    for (const threshold of thresholds) {
      const every = bestByRow(nameMatches(indexes, q, threshold, { rowStart: 0, rowEnd }));
      const ranked = [...every.values()].sort((a, b) => b - a);
      for (const k of [1, 3, 10]) {
        for (const tieFloor of [undefined, roundedTieFloor]) {
          const cut = bestByRow(nameMatches(indexes, q, threshold, { rowStart: 0, rowEnd, k, ...(tieFloor ? { tieFloor } : {}) }));
          // Rows that can rank or tie: best score ≥ the floor of the k-th best row score.
          const floor = ranked.length >= k ? Math.max(threshold, tieFloor ? tieFloor(ranked[k - 1]!) : ranked[k - 1]!) : threshold;
          const where = `nameMatches(${JSON.stringify(q)}, ${threshold}, k=${k}${tieFloor ? ', rounded ties' : ''})`;
          for (const [row, score] of every) {
            if (score < floor) continue;
            assert.equal(cut.get(row), score, `${where}: row ${row} (best ${score}) missing or with a lower score`);
          }
          for (const [row, score] of cut) assert.ok(score <= every.get(row)!, `${where}: row ${row} scored above its best`);
        }
      }
    }
  }
}

function queriesOf(store: Store, count: number, seed: number): string[] {
  const random = prng(seed);
  const queries: string[] = ['São Paulo', 'Sao Paulo', 'Zürich', 'Zurich', 'Kraków', 'Ærø', 'Lodz', 'Łódź', 'san', 'ny'];
  for (let i = 0; i < count; i++) {
    const name = store.cities.nameAt(Math.floor(random() * store.cities.count));
    queries.push(i % 3 === 0 ? name.slice(0, 2 + (i % 5)) : typo(random, name));
  }
  return queries;
}

describe('nameMatches with a top-k cut', () => {
  it('returns every row that can rank among the first k, with its best score (fixture)', () => {
    const { store } = fixtureSnapshot();
    assertTopRows(store, queriesOf(store, 120, 5), [0.2, 0.3, 0.5]);
  });

  it('returns every row that can rank among the first k, with its best score (full dataset)', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    assertTopRows(store, queriesOf(store, 60, 6), [0.2, 0.3]);
  });
});

/** Best score per (row, field): what callers keep of the matches. */
function bestByDoc(matches: NameMatches): Map<string, number> {
  const best = new Map<string, number>();
  for (let i = 0; i < matches.count; i++) {
    const key = `${matches.rows[i]}/${matches.fields[i]}`;
    best.set(key, Math.max(best.get(key) ?? -1, matches.scores[i]!));
  }
  return best;
}

/** Accented names of the store's cities (and a typo of each): queries whose trigrams unaccent changes. */
function accentedQueries(store: Store, count: number, seed: number): string[] {
  const random = prng(seed);
  const names: string[] = [];
  for (let row = 0; row < store.cities.count && names.length < count; row += 1 + Math.floor(random() * 40)) {
    const name = store.cities.nameAt(row);
    if (/[^\x00-\x7f]/.test(name)) names.push(name, typo(random, name));
  }
  return [...names, 'Zürich', 'Zurïch', 'São Paulo', 'Kraków', 'Łódź', 'Ærø'];
}

describe('nameMatches for accented queries', () => {
  for (const [label, open] of [['fixture', fixtureSnapshot], ['full dataset', fullSnapshot]] as const) {
    it(`searches the changed docs alone for q where it can, with every (row, field) at the best score searching every doc gives (${label})`, { skip: label === 'full dataset' ? fullDatasetSkip() : false }, () => {
      const { store } = open();
      const indexes = searchContext(store).indexes('cities');
      // q searched over every doc, as before the changed docs had an index of their own.
      const everyDoc = { ...indexes, trigramChanged: indexes.trigram };
      // A fresh changed-docs index: its floor (0 until its first search) shows whether it was searched.
      const watched = { ...indexes, trigramChanged: TrigramIndex.from(indexes.trigramChangedBytes) };
      assert.equal(watched.trigramChanged.resultFloor, 0);
      const rowEnd = store.cities.count;
      for (const q of accentedQueries(store, 80, 9)) {
        for (const threshold of [0.2, 0.3, 0.5]) {
          assert.deepEqual(bestByDoc(nameMatches(watched, q, threshold, { rowStart: 0, rowEnd })), bestByDoc(nameMatches(everyDoc, q, threshold, { rowStart: 0, rowEnd })), `nameMatches(${JSON.stringify(q)}, ${threshold})`);
        }
      }
      assert.ok(watched.trigramChanged.resultFloor > 0, 'the changed docs’ index was searched');
      assertTopRows(store, accentedQueries(store, 30, 10), [0.2, 0.3]);
    });
  }

  it('searches every doc for q when unaccent(q) has more trigrams (ß → ss) or an unchanged doc holds a trigram of q that unaccent(q) lacks', () => {
    const { store } = fixtureSnapshot();
    const indexes = searchContext(store).indexes('cities');
    const fresh = () => ({ ...indexes, trigramChanged: TrigramIndex.from(indexes.trigramChangedBytes) });
    const options = { rowStart: 0, rowEnd: store.cities.count };
    // A fresh changed-docs index's floor is 0 until its first search.
    const moreTrigrams = fresh();
    nameMatches(moreTrigrams, 'Großstraße', 0.2, options);
    assert.equal(moreTrigrams.trigramChanged.resultFloor, 0, 'Großstraße: unaccent(q) = Grossstrasse has more trigrams');
    // Were q's own codes held by some unchanged doc, its accented ones among them, it could not skip them.
    const everyCode = { ...fresh(), unchangedCodes: trigramsOf('São Paolo') };
    nameMatches(everyCode, 'São Paolo', 0.2, options);
    assert.equal(everyCode.trigramChanged.resultFloor, 0, 'São Paolo with its codes held outside the changed docs');
    const skipping = fresh();
    nameMatches(skipping, 'São Paolo', 0.2, options);
    assert.ok(skipping.trigramChanged.resultFloor > 0, 'São Paolo: the changed docs alone');
  });
});

/** Plain queries: typos and prefixes of ASCII-folded names, and the store's non-Latin names and typos of them (Cyrillic, CJK…), which unaccent leaves alone. */
function plainQueries(store: Store, count: number, seed: number): string[] {
  const random = prng(seed);
  const queries: string[] = ['Zurich', 'Sao Paulo', 'Lodz', 'Strasse', 'Москва', 'san', 'ny'];
  for (let i = 0; i < count; i++) {
    const name = store.cities.nameAt(Math.floor(random() * store.cities.count)).normalize('NFD').replace(/\p{M}/gu, '');
    queries.push(i % 3 === 0 ? name.slice(0, 2 + (i % 5)) : typo(random, name));
  }
  for (let row = 0, found = 0; row < store.cities.count && found < count / 4; row += 1 + Math.floor(random() * 20)) {
    const native = store.cities.record(row).native;
    if (native && /^[^\p{Script=Latin}]*$/u.test(native) && /[^\x00-\x7f]/.test(native) && unaccent(native) === native) {
      queries.push(native, typo(random, native));
      found++;
    }
  }
  return queries.filter((q) => sameTrigrams(q, unaccent(q)));
}

function sameTrigrams(a: string, b: string): boolean {
  return trigramsOf(a).join() === trigramsOf(b).join();
}

describe('nameMatches for plain queries', () => {
  for (const [label, open] of [['fixture', fixtureSnapshot], ['full dataset', fullSnapshot]] as const) {
    it(`answers from trigram-pq. alone with every (row, field) at the score of the two searches (${label})`, { skip: label === 'full dataset' ? fullDatasetSkip() : false }, () => {
      const { store } = open();
      const indexes = searchContext(store).indexes('cities');
      const rowEnd = store.cities.count;
      const queries = plainQueries(store, label === 'fixture' ? 120 : 60, 11);
      assert.ok(queries.some((q) => /[^\x00-\x7f]/.test(q)), 'some plain queries are not ASCII');
      for (const q of queries) {
        for (const threshold of [0.2, 0.3, 0.5]) {
          // Fresh plain-half indexes: their floor (0 until their first search) shows whether they were searched.
          const watched = { ...indexes, trigram: TrigramIndex.from(store.section(trigramSection('cities'))), trigramChanged: TrigramIndex.from(indexes.trigramChangedBytes) };
          const alone = bestByDoc(nameMatches(watched, q, threshold, { rowStart: 0, rowEnd }));
          if (/^[\x00-\x7f]*$/.test(q)) assert.equal(watched.trigram.resultFloor + watched.trigramChanged.resultFloor, 0, `${JSON.stringify(q)}: trigram-pq. alone`);
          assert.deepEqual(alone, bestByDoc(nameMatchesByHalves(indexes, q, threshold, { rowStart: 0, rowEnd })), `nameMatches(${JSON.stringify(q)}, ${threshold})`);
        }
      }
      assertTopRows(store, queries.slice(0, 40), [0.2, 0.3]);
    });
  }

  it('takes the two searches for a plain query holding a guard code, never for an ASCII one', () => {
    const { store } = fixtureSnapshot();
    const indexes = searchContext(store).indexes('cities');
    const options = { rowStart: 0, rowEnd: store.cities.count };
    const searchedHalves = (q: string, guard: Int32Array): boolean => {
      const watched = { ...indexes, plainQueryGuard: guard, trigramChanged: TrigramIndex.from(indexes.trigramChangedBytes) };
      nameMatches(watched, q, 0.2, options);
      return watched.trigramChanged.resultFloor > 0;
    };
    const codes = (q: string) => Int32Array.from(trigramsOf(q));
    assert.equal(searchedHalves('Москва', new Int32Array(0)), false);
    assert.equal(searchedHalves('Москва', codes('Москва')), true);
    // An ASCII query's codes are never guard codes (build-index keeps those docs' own trigrams instead).
    assert.equal(searchedHalves('Zurich', codes('Zurich')), false);
  });
});
