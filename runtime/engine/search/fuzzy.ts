// Fuzzy search: match_score of q with each row's English and native name — pg_trgm similarity(),
// or that of their unaccent() forms when higher (name-matches.ts) — the higher of the two names
// wins; rows reaching the threshold ranked by FUZZY_RULES. The trigram index returns the matching
// (row, field) documents that can rank among the first `limit` rows, with their exact scores;
// ranking reads typed arrays only.
import { TRIGRAM_FIELD_NATIVE } from '../../indexes/trigram-index.js';
import type { EntityIndexes } from './context.js';
import { nameMatches } from './name-matches.js';
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

// Per-row best scores of one search: the row scratch (row-scratch.ts) shared with autocomplete,
// `stamp` marking the rows touched by the current search so nothing needs clearing.
function scratchFor(indexes: EntityIndexes) {
  const s = nextRowScratch(indexes);
  return { stamp: s.stampA, nameScore: s.scoreA, nativeScore: s.scoreB, generation: s.generation };
}

/** Builds fuzzy search's scratch arrays ahead of the first request. */
export function prepareFuzzy(indexes: EntityIndexes): void {
  scratchFor(indexes);
}

export function fuzzySearch(indexes: EntityIndexes, query: FuzzyQuery): FuzzyHit[] {
  if (query.rows.isEmpty) return [];
  const [rowStart, rowEnd] = query.rows.span;
  // Rows rank by their best doc's score first, so the index's top-k cut (every doc scoring at
  // least the limit-th best row, ties included) holds the answer; it needs the rows to be one range.
  const matches = nameMatches(indexes, query.q, query.threshold, query.rows.isOneRange && query.limit >= 1 ? { rowStart, rowEnd, k: query.limit } : { rowStart, rowEnd });
  if (matches.count === 0) return [];

  const scratch = scratchFor(indexes);
  const { stamp, nameScore, nativeScore, generation } = scratch;
  const rows: number[] = [];
  const everyRow = query.rows.isAll;
  for (let i = 0; i < matches.count; i++) {
    const row = matches.rows[i]!;
    if (!everyRow && !query.rows.has(row)) continue;
    if (stamp[row] !== generation) {
      stamp[row] = generation;
      nameScore[row] = -1;
      nativeScore[row] = -1;
      rows.push(row);
    }
    // A (row, field) may come twice (plain and unaccent halves): the higher is its match_score.
    const score = matches.scores[i]!;
    if (matches.fields[i] === TRIGRAM_FIELD_NATIVE) nativeScore[row] = Math.max(nativeScore[row]!, score);
    else nameScore[row] = Math.max(nameScore[row]!, score);
  }

  const population = indexes.population;
  const top = new TopK<FuzzyHit>(query.limit, compareFuzzy, copyOrReuse);
  const candidate: FuzzyHit = { row: 0, id: 0, score: 0, population: 0, nativeWins: false };
  for (const row of rows) {
    const name = nameScore[row]!;
    const native = nativeScore[row]!;
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
