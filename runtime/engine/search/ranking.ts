// Ranking as data: an ordered list of named rules (Meilisearch style). Two candidates are
// compared by the first rule that tells them apart; later rules only break ties of earlier ones.
// The same lists drive the engine and the brute-force oracles in test/routes/search, so "the five rules"
// are written down once.

export interface RankingRule<C> {
  readonly name: string;
  /** Negative when `a` ranks before `b`, positive when after, 0 when this rule cannot tell. */
  compare(a: C, b: C): number;
}

export function comparatorOf<C>(rules: readonly RankingRule<C>[]): (a: C, b: C) => number {
  // Each rule held in its own variable, so every call site below sees one function per rule
  // list and V8 can inline the chain (a loop over the rules, or closures built from one literal,
  // would give one megamorphic call site: ~5× slower in autocomplete's candidate scan).
  const [r0, r1, r2, r3, r4, r5] = rules.map((rule) => rule.compare);
  switch (rules.length) {
    case 0:
      return () => 0;
    case 1:
      return r0!;
    case 2:
      return (a, b) => r0!(a, b) || r1!(a, b);
    case 3:
      return (a, b) => r0!(a, b) || r1!(a, b) || r2!(a, b);
    case 4:
      return (a, b) => r0!(a, b) || r1!(a, b) || r2!(a, b) || r3!(a, b);
    case 5:
      return (a, b) => r0!(a, b) || r1!(a, b) || r2!(a, b) || r3!(a, b) || r4!(a, b);
    case 6:
      return (a, b) => r0!(a, b) || r1!(a, b) || r2!(a, b) || r3!(a, b) || r4!(a, b) || r5!(a, b);
    default:
      return (a, b) => {
        for (const rule of rules) {
          const order = rule.compare(a, b);
          if (order !== 0) return order;
        }
        return 0;
      };
  }
}

/** How an autocomplete candidate matched q (its best way, when several apply). */
export const MATCH_EXACT = 0;
/** Name or native starts with q. */
export const MATCH_PREFIX = 1;
/** Everything else: translation matches and trigram (fuzzy) matches, ranked by match_score. */
export const MATCH_OTHER = 2;

export type MatchedField = 'name' | 'native' | 'translation';

export interface AutocompleteCandidate {
  row: number;
  id: number;
  match: number;
  /** Unrounded match score (see runtime/engine/search/README.md). */
  score: number;
  /** The match_score the client sees (2 decimals): what rule 3 compares. */
  rankScore: number;
  field: MatchedField;
  /**
   * Rule 4's value, the row's prominence: the dataset's population, else the matched GeoNames
   * population (`prominence.cities`); -1 when unknown, so unknown populations rank last.
   */
  population: number;
}

/** The spec's five autocomplete rules, in priority order. */
export const AUTOCOMPLETE_RULES: readonly RankingRule<AutocompleteCandidate>[] = [
  { name: 'exactName', compare: (a, b) => (a.match === MATCH_EXACT ? 0 : 1) - (b.match === MATCH_EXACT ? 0 : 1) },
  { name: 'startsWith', compare: (a, b) => (a.match <= MATCH_PREFIX ? 0 : 1) - (b.match <= MATCH_PREFIX ? 0 : 1) },
  // "closest remaining fuzzy match": the score orders only the candidates left after rules 1–2;
  // it is the rounded match_score the client sees, so equal served scores fall to population.
  { name: 'fuzzyScore', compare: (a, b) => (a.match === MATCH_OTHER && b.match === MATCH_OTHER ? b.rankScore - a.rankScore : 0) },
  { name: 'population', compare: (a, b) => b.population - a.population },
  { name: 'id', compare: (a, b) => a.id - b.id },
];

export interface ScoredCandidate {
  row: number;
  id: number;
  /** Unrounded similarity. */
  score: number;
  population: number;
}

/** Fuzzy search: score desc, then population desc, then id asc. */
export const FUZZY_RULES: readonly RankingRule<ScoredCandidate>[] = [
  { name: 'score', compare: (a, b) => b.score - a.score },
  { name: 'population', compare: (a, b) => b.population - a.population },
  { name: 'id', compare: (a, b) => a.id - b.id },
];

export interface DistanceCandidate {
  row: number;
  id: number;
  distanceKm: number;
}

/** Nearby search: nearest first, lower id on equal distance (places sharing one coordinate). */
export const NEARBY_RULES: readonly RankingRule<DistanceCandidate>[] = [
  { name: 'distance', compare: (a, b) => a.distanceKm - b.distanceKm },
  { name: 'id', compare: (a, b) => a.id - b.id },
];

/**
 * A TopK `clone` for a reused scratch object of plain fields: a copy when no item is pushed out,
 * else the scratch's fields written over the pushed-out item's object.
 */
export function copyOrReuse<C extends object>(item: C, into: C | undefined): C {
  return into === undefined ? { ...item } : Object.assign(into, item);
}

/**
 * The last TopK of each ranking, held on purpose with its items: a search's TopK and its copies
 * are garbage once it is answered, and a full collection that found none alive made V8 throw
 * away the code of `offer` (runtime/http/keepsakes.ts says why).
 */
const lastTopK = new Map<unknown, object>();
const KEPT_RANKINGS = 8;

/**
 * Keeps the best `limit` items seen, in rank order, without sorting everything: an item that
 * does not beat the current worst is rejected with one comparison. `offer` copies nothing;
 * callers that reuse a scratch object pass `clone` to keep a copy only when it is kept. Once
 * `limit` items are held, a kept item pushes the worst out, and `clone` is given that one's
 * object to copy into (`into`): a search makes at most `limit` copies, however many it keeps.
 */
export class TopK<C> {
  readonly items: C[] = [];

  constructor(
    readonly limit: number,
    private readonly compare: (a: C, b: C) => number,
    private readonly clone: (item: C, into: C | undefined) => C = (item) => item,
  ) {
    // A few rankings, each a module's constant; a comparator made per call is not held.
    if (lastTopK.size < KEPT_RANKINGS || lastTopK.has(compare)) lastTopK.set(compare, this);
  }

  /** True when `item` would be kept (lets callers skip expensive work for hopeless items). */
  wouldKeep(item: C): boolean {
    return this.items.length < this.limit || this.compare(item, this.items[this.items.length - 1]!) < 0;
  }

  offer(item: C): boolean {
    const items = this.items;
    if (items.length >= this.limit && this.compare(item, items[items.length - 1]!) >= 0) return false;
    // Binary search for the insertion point keeps equal items in arrival order.
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(item, items[mid]!) < 0) hi = mid;
      else lo = mid + 1;
    }
    // Shifted by hand: splice() makes an array of what it removed, one per kept item.
    const full = items.length === this.limit;
    const kept = this.clone(item, full ? items[items.length - 1] : undefined);
    if (!full) items.push(kept);
    for (let i = items.length - 1; i > lo; i--) items[i] = items[i - 1]!;
    items[lo] = kept;
    return true;
  }
}
