// Fuzzy search: match_score of q with each row's English and native name — pg_trgm similarity(),
// or that of their unaccent() forms when higher (name-matches.ts) — the higher of the two names
// wins; rows reaching the threshold ranked by FUZZY_RULES. The trigram index returns the matching
// (row, field) documents that can rank among the first `limit` rows, with their exact scores;
// ranking reads typed arrays only.
import { TRIGRAM_FIELD_NATIVE } from '../../indexes/trigram-index.js';
import type { EntityIndexes } from './context.js';
import { nameMatches, type NameMatches } from './name-matches.js';
import { comparatorOf, copyOrReuse, FUZZY_RULES, TopK, type ScoredCandidate } from './ranking.js';
import type { RowRanges } from './row-filter.js';
import { nextRowScratch } from './row-scratch.js';

export interface FuzzyQuery {
  q: string;
  /** Unrounded similarity a row must reach, 0.1 to 1. */
  threshold: number;
  rows: RowRanges;
  limit: number;
}

export interface FuzzyHit extends ScoredCandidate {
  /** The native name scored strictly higher than the English name. */
  nativeWins: boolean;
}

const compareFuzzy = comparatorOf(FUZZY_RULES);

/**
 * Answers of at most this many matches merge their (row, field) scores by scanning the rows met
 * so far: the per-row scratch arrays (row-scratch.ts) cost random loads into arrays of every row,
 * cache misses that a typical answer (a dozen matches) spends more time on than its merge.
 */
const SCAN_MERGE_MAX = 48;

/**
 * The matches merged by row: [0, count) of rows with their best name and native scores (-1 where
 * none matched). The thread's, reused by every search (searches run one at a time per thread).
 */
const merged = { count: 0, rows: new Int32Array(64), nameScore: new Float64Array(64), nativeScore: new Float64Array(64) };

/** Builds fuzzy search's scratch arrays ahead of the first request. */
export function prepareFuzzy(indexes: EntityIndexes): void {
  nextRowScratch(indexes);
}

/** Appends `row` to `merged` with no scores yet; returns its place. */
function addRow(row: number): number {
  if (merged.count === merged.rows.length) {
    const size = merged.count * 2;
    const rows = new Int32Array(size);
    const nameScore = new Float64Array(size);
    const nativeScore = new Float64Array(size);
    rows.set(merged.rows);
    nameScore.set(merged.nameScore);
    nativeScore.set(merged.nativeScore);
    Object.assign(merged, { rows, nameScore, nativeScore });
  }
  const at = merged.count++;
  merged.rows[at] = row;
  merged.nameScore[at] = -1;
  merged.nativeScore[at] = -1;
  return at;
}

/** Each matched row of the query's rows once, with the higher score of each of its fields. */
function mergeByRow(indexes: EntityIndexes, matches: NameMatches, rowRanges: RowRanges): void {
  merged.count = 0;
  const everyRow = rowRanges.isAll;
  // Larger answers find a row's place through the row scratch: stampA marks the rows met by this
  // search (nothing needs clearing), stampB holds their place in `merged`.
  const scratch = matches.count <= SCAN_MERGE_MAX ? null : nextRowScratch(indexes);
  for (let i = 0; i < matches.count; i++) {
    const row = matches.rows[i]!;
    if (!everyRow && !rowRanges.has(row)) continue;
    let at = -1;
    if (scratch === null) {
      for (let j = 0; j < merged.count; j++) {
        if (merged.rows[j] === row) {
          at = j;
          break;
        }
      }
      if (at < 0) at = addRow(row);
    } else if (scratch.stampA[row] !== scratch.generation) {
      scratch.stampA[row] = scratch.generation;
      at = scratch.stampB[row] = addRow(row);
    } else {
      at = scratch.stampB[row]!;
    }
    // A (row, field) may come twice (plain and unaccent halves): the higher is its match_score.
    const score = matches.scores[i]!;
    if (matches.fields[i] === TRIGRAM_FIELD_NATIVE) merged.nativeScore[at] = Math.max(merged.nativeScore[at]!, score);
    else merged.nameScore[at] = Math.max(merged.nameScore[at]!, score);
  }
}

export function fuzzySearch(indexes: EntityIndexes, query: FuzzyQuery): FuzzyHit[] {
  if (query.rows.isEmpty) return [];
  const [rowStart, rowEnd] = query.rows.span;
  // Rows rank by their best doc's score first, so the index's top-k cut (every doc scoring at
  // least the limit-th best row, ties included) holds the answer; it needs the rows to be one range.
  const matches = nameMatches(indexes, query.q, query.threshold, query.rows.isOneRange && query.limit >= 1 ? { rowStart, rowEnd, k: query.limit } : { rowStart, rowEnd });
  if (matches.count === 0) return [];

  mergeByRow(indexes, matches, query.rows);

  const population = indexes.population;
  const top = new TopK<FuzzyHit>(query.limit, compareFuzzy, copyOrReuse);
  const candidate: FuzzyHit = { row: 0, id: 0, score: 0, population: 0, nativeWins: false };
  for (let at = 0; at < merged.count; at++) {
    const row = merged.rows[at]!;
    const name = merged.nameScore[at]!;
    const native = merged.nativeScore[at]!;
    candidate.row = row;
    // A native name missing from the index has the name's trigrams (build-index/sections/trigram.ts),
    // so a name below the threshold (-1 here) never hides a native that ties it.
    candidate.nativeWins = native > name;
    candidate.score = candidate.nativeWins ? native : name;
    candidate.population = population[row]!;
    // The id is only needed when score and population tie the current worst.
    candidate.id = indexes.idAt(row);
    top.offer(candidate);
  }
  return top.items;
}
