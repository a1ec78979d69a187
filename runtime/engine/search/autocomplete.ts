// Autocomplete: candidates from the prefix indexes (exact and starts-with on name/native, and on
// translations from 3 characters) and, only when those cannot fill the limit, from the trigram
// index (similarity ≥ AUTOCOMPLETE_FUZZY_THRESHOLD); ranked by AUTOCOMPLETE_RULES.
//
// match_score (unrounded here; served rounded to 2 decimals):
//   exact match (name, native or translation)  1
//   starts-with (name, native or translation)  typed share of the matched name: UTF-8 bytes of
//                                              matchKey(q) / of matchKey(matched text), < 1
//   trigram match                              pg_trgm similarity(q, name or native), or of their
//                                              unaccent() forms when higher (name-matches.ts)
// A row that matches several ways keeps its best: exact > starts-with on name/native > the
// higher score of its translation and trigram matches (ties: name, native, translation).
import { PREFIX_FIELD_NATIVE } from '../../indexes/prefix-index.js';
import { TRIGRAM_FIELD_NATIVE } from '../../indexes/trigram-index.js';
import { roundScore } from '../../text/trigram.js';
import type { EntityIndexes } from './context.js';
import { nameMatches } from './name-matches.js';
import { AUTOCOMPLETE_RULES, comparatorOf, copyOrReuse, MATCH_EXACT, MATCH_OTHER, MATCH_PREFIX, TopK, type AutocompleteCandidate, type MatchedField } from './ranking.js';
import type { RowRanges } from './row-filter.js';
import { PrefixTop } from './prefix-top.js';
import { nextRowScratch } from './row-scratch.js';

/**
 * Trigram matches below this similarity are not autocomplete candidates. Rule 3 ranks the fill by
 * match_score, so rows below fuzzy search's default 0.3 only ever take places that no better row
 * claims: the page is filled with the closest remaining matches instead of staying short. Measured
 * (bench/typos.bench.ts, full dataset): two-edit typos found in the top 10 rise from 55.8% (0.3)
 * to ~67% (0.2); most misses left score below 0.2 against their city.
 */
export const AUTOCOMPLETE_FUZZY_THRESHOLD = 0.2;
/** Translations match from this many characters of matchKey(q) (spec). */
export const TRANSLATION_MIN_CHARS = 3;
/**
 * Rule 3 compares scores rounded to 2 decimals: the trigram top-k cut keeps every row down to the
 * bottom of the limit-th best row's rounding interval (half a step below its rounded value, and a
 * hair for the float4 → 6-digit conversion), so rows whose rounded score ties it are candidates.
 */
const roundedTieFloor = (kth: number): number => roundScore(kth) - 0.0051;

export interface AutocompleteQuery {
  /** q as sent (trimmed): scored with pg_trgm similarity. */
  q: string;
  /** matchKey(q): compared with the prefix indexes' keys. */
  key: string;
  rows: RowRanges;
  limit: number;
}

const compareAutocomplete = comparatorOf(AUTOCOMPLETE_RULES);

const FIELD_RANK: Readonly<Record<MatchedField, number>> = { name: 0, native: 1, translation: 2 };

const FIELDS: readonly MatchedField[] = ['name', 'native', 'translation'];

/**
 * This search's view of the row scratch (row-scratch.ts): rows matched by name/native prefix
 * (prefixStamp, match, field, score) and rows holding a translation or trigram candidate
 * (otherStamp, otherScore, otherField), each stamped with the search's generation.
 */
function scratchFor(indexes: EntityIndexes) {
  const s = nextRowScratch(indexes);
  return {
    prefixStamp: s.stampA, match: s.byteA, field: s.byteB, score: s.scoreA,
    otherStamp: s.stampB, otherScore: s.scoreB, otherField: s.byteC,
    generation: s.generation,
  };
}

/**
 * Prefix ranges at least this long are answered by PrefixTop (shorter ones are scanned). A scan
 * offers every row of the range to the page, reading each one's id; PrefixTop visits only the rows
 * it hands out. Measured on the full dataset's cities (the http suite's distinct autocomplete
 * prefixes that need no trigram fill, fastest of 5 per query): 256 → 32 took their mean from
 * 14.5–15.0 µs to 9.8–11.6 and their p99 from 43 to 17–21 µs; below 16 the tiniest ranges slow down.
 */
const TOP_MIN_ENTRIES = 32;
const prefixTops = new WeakMap<EntityIndexes, PrefixTop | null>();

/** The PrefixTop of the entity, built here (the main thread builds it once to share: shared.ts), or null when rows cannot be ranked so. */
export function buildPrefixTop(indexes: EntityIndexes): PrefixTop | null {
  return PrefixTop.build(indexes.prefix, indexes.rowCount, indexes.prominence, indexes.idAt);
}

/** The entity's PrefixTop: the main thread's (shared.ts) when it built one, else built on first use (or ahead: prepareAutocomplete). */
function prefixTopOf(indexes: EntityIndexes): PrefixTop | null {
  let top = prefixTops.get(indexes);
  if (top === undefined) {
    const shared = indexes.prefixTopBytes;
    top = shared !== null ? PrefixTop.from(indexes.prefix, indexes.rowCount, shared, 'prefix top (shared)') : buildPrefixTop(indexes);
    prefixTops.set(indexes, top);
  }
  return top;
}

/** Builds what autocomplete prepares on first use (scratch arrays, PrefixTop), off the request path. */
export function prepareAutocomplete(indexes: EntityIndexes): void {
  scratchFor(indexes);
  prefixTopOf(indexes);
}

function codePointCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** True when (score, field) beats the row's current (score, field). */
function better(score: number, field: number, currentScore: number, currentField: number): boolean {
  return score > currentScore || (score === currentScore && field < currentField);
}

/** rankScores[i]: the served (rounded) score of rows[i], in a scratch array reused by every search of the thread. */
let rankScoreScratch = new Float64Array(64);
function rankScoresOf(rows: readonly number[], scores: Float64Array): Float64Array {
  if (rankScoreScratch.length < rows.length) rankScoreScratch = new Float64Array(Math.max(rows.length, rankScoreScratch.length * 2));
  for (let i = 0; i < rows.length; i++) rankScoreScratch[i] = roundScore(scores[rows[i]!]!);
  return rankScoreScratch;
}

/** The k-th largest of values[0, count) (1 ≤ k ≤ count): the k largest kept in order, k is a page's size. */
let largestScratch = new Float64Array(16);
function kthLargest(values: Float64Array, count: number, k: number): number {
  if (largestScratch.length < k) largestScratch = new Float64Array(k);
  const largest = largestScratch;
  let held = 0;
  for (let i = 0; i < count; i++) {
    const value = values[i]!;
    if (held === k && value <= largest[k - 1]!) continue;
    let at = held < k ? held++ : k - 1;
    while (at > 0 && largest[at - 1]! < value) {
      largest[at] = largest[at - 1]!;
      at--;
    }
    largest[at] = value;
  }
  return largest[k - 1]!;
}

export function autocompleteSearch(indexes: EntityIndexes, query: AutocompleteQuery): AutocompleteCandidate[] {
  if (query.rows.isEmpty) return [];
  const s = scratchFor(indexes);
  const generation = s.generation;
  const rows = query.rows;
  const prefixRows: number[] = [];
  // Encoded once: the prefix index keeps the encoding for its range() below.
  const keyBytes = indexes.prefix.keyByteLength(query.key);

  // Rules 1–2: exact and starts-with on name/native (one contiguous range of the prefix index).
  if (keyBytes > 0) {
    const prefix = indexes.prefix;
    const [start, end] = prefix.range(query.key);
    const best = end - start >= TOP_MIN_ENTRIES ? prefixTopOf(indexes) : null;
    if (best !== null) {
      // Only the `limit` best-ranked rows can be shown: exact rows first, then starts-with rows,
      // each by rank; each taken row is then scored over its own entries in the range. Under a
      // country or state filter the allowed rows' best ranks are picked in one pass instead.
      let exactEnd = start;
      while (exactEnd < end && prefix.keyLength(exactEnd) === keyBytes) exactEnd++;
      const isTaken = (row: number): boolean => s.prefixStamp[row] === generation;
      const take = (row: number): void => {
        s.prefixStamp[row] = generation;
        prefixRows.push(row);
        let bestMatch = MATCH_OTHER + 1;
        let bestField = 0;
        let bestScore = 0;
        for (let j = best.entriesStart(row), last = best.entriesStart(row + 1); j < last; j++) {
          const i = best.entryAt(j);
          if (i < start || i >= end) continue;
          const entryKeyBytes = prefix.keyLength(i);
          const match = entryKeyBytes === keyBytes ? MATCH_EXACT : MATCH_PREFIX;
          const field = prefix.field(i) === PREFIX_FIELD_NATIVE ? FIELD_RANK.native : FIELD_RANK.name;
          const score = match === MATCH_EXACT ? 1 : keyBytes / entryKeyBytes;
          if (match < bestMatch || (match === bestMatch && better(score, field, bestScore, bestField))) {
            bestMatch = match;
            bestField = field;
            bestScore = score;
          }
        }
        s.match[row] = bestMatch;
        s.field[row] = bestField;
        s.score[row] = bestScore;
      };
      if (rows.isAll) {
        const exactRows = best.eachBest(start, exactEnd, query.limit, isTaken, take);
        if (exactRows < query.limit) best.eachBest(exactEnd, end, query.limit - exactRows, isTaken, take);
      } else {
        const exactRows = best.eachBestAllowed(start, exactEnd, query.limit, rows, isTaken, take);
        if (exactRows < query.limit) best.eachBestAllowed(exactEnd, end, query.limit - exactRows, rows, isTaken, take);
      }
    } else {
      const everyRow = rows.isAll;
      for (let i = start; i < end; i++) {
        const row = prefix.row(i);
        if (!everyRow && !rows.has(row)) continue;
        const entryKeyBytes = prefix.keyLength(i);
        const match = entryKeyBytes === keyBytes ? MATCH_EXACT : MATCH_PREFIX;
        const field = prefix.field(i) === PREFIX_FIELD_NATIVE ? FIELD_RANK.native : FIELD_RANK.name;
        const score = match === MATCH_EXACT ? 1 : keyBytes / entryKeyBytes;
        if (s.prefixStamp[row] !== generation) {
          s.prefixStamp[row] = generation;
          prefixRows.push(row);
        } else if (s.match[row]! < match || (s.match[row] === match && better(score, field, s.score[row]!, s.field[row]!) === false)) {
          continue;
        }
        s.match[row] = match;
        s.field[row] = field;
        s.score[row] = score;
      }
    }
  }

  const top = new TopK<AutocompleteCandidate>(query.limit, compareAutocomplete, copyOrReuse);
  const candidate: AutocompleteCandidate = { row: 0, id: 0, match: 0, score: 0, rankScore: 0, field: 'name', population: 0 };
  const population = indexes.prominence;
  // rankScore: rule 3's value, which it reads only for MATCH_OTHER rows (0 for the others).
  const offer = (row: number, match: number, score: number, rankScore: number, field: number): void => {
    candidate.row = row;
    candidate.match = match;
    candidate.score = score;
    candidate.rankScore = rankScore;
    candidate.field = FIELDS[field]!;
    candidate.population = population[row]!;
    candidate.id = indexes.idAt(row);
    top.offer(candidate);
  };
  for (const row of prefixRows) offer(row, s.match[row]!, s.score[row]!, 0, s.field[row]!);
  // Rules 1–2 outrank everything else: other candidates matter only if these leave room.
  if (prefixRows.length >= query.limit) return top.items;

  const otherRows: number[] = [];
  const consider = (row: number, score: number, field: number): void => {
    if (s.prefixStamp[row] === generation || (!rows.isAll && !rows.has(row))) return;
    if (s.otherStamp[row] !== generation) {
      s.otherStamp[row] = generation;
      otherRows.push(row);
    } else if (!better(score, field, s.otherScore[row]!, s.otherField[row]!)) {
      return;
    }
    s.otherScore[row] = score;
    s.otherField[row] = field;
  };

  if (keyBytes > 0 && codePointCount(query.key) >= TRANSLATION_MIN_CHARS) {
    const translations = indexes.prefixTranslations;
    const [start, end] = translations.range(query.key);
    for (let i = start; i < end; i++) {
      const entryKeyBytes = translations.keyLength(i);
      consider(translations.row(i), entryKeyBytes === keyBytes ? 1 : keyBytes / entryKeyBytes, FIELD_RANK.translation);
    }
  }

  const [rowStart, rowEnd] = rows.span;
  // The limit-th best trigram row bounds what can still enter the page: of the `limit` rows
  // scoring at least as much, at most prefixRows.length are taken already, so the index's top-k
  // cut (ties included) loses nothing.
  const matches = nameMatches(
    indexes,
    query.q,
    AUTOCOMPLETE_FUZZY_THRESHOLD,
    rows.isOneRange ? { rowStart, rowEnd, k: query.limit, tieFloor: roundedTieFloor } : { rowStart, rowEnd },
  );
  for (let i = 0; i < matches.count; i++) {
    consider(matches.rows[i]!, matches.scores[i]!, matches.fields[i] === TRIGRAM_FIELD_NATIVE ? FIELD_RANK.native : FIELD_RANK.name);
  }
  // Rules 1–2 rank every prefix row first, and rule 3 every other row by rankScore: one whose
  // rankScore is below the `room` best of the others can never be shown, and is not offered
  // (offering builds its candidate, reads its id and copies what the page keeps).
  const room = query.limit - prefixRows.length;
  const rankScores = rankScoresOf(otherRows, s.otherScore);
  const cut = otherRows.length > room ? kthLargest(rankScores, otherRows.length, room) : -Infinity;
  for (let i = 0; i < otherRows.length; i++) {
    const row = otherRows[i]!;
    if (rankScores[i]! >= cut) offer(row, MATCH_OTHER, s.otherScore[row]!, rankScores[i]!, s.otherField[row]!);
  }
  return top.items;
}
