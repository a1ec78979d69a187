// Per-request ordering for the `sort` parameter. Lists come in the snapshot's precomputed order
// (by name), so this runs only when `sort` is given; items with equal keys keep that order
// (deterministic ties).
//
// Stable API: sortObjects(items, keys, set) sorts `items` in place and returns it; sortBy does the
// same for items whose values come from a function (list rows read from the table's bytes);
// numericKey is the value a numeric field sorts by. SortKey comes from params.sortParam. Numbers
// and decimal text (latitude …) compare numerically, text by matchKey() then raw text; null/absent
// values sort as the smallest: first in `asc`, last in `desc` (decisions.md, as SQL's default
// NULLS order does).
import { matchKey } from '../text/normalise.js';

/** What sorting needs of a field list (render/fields.ts): how each field compares. */
export interface SortableFields {
  readonly byName: ReadonlyMap<string, { readonly sortAs: 'number' | 'text' | 'none' }>;
}

export interface SortKey {
  field: string;
  descending: boolean;
}

type Key = string | null;

/** What a field compared as a number sorts by: a finite number, or the Number() of non-blank text; else null. */
export function numericKey(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function textKey(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : String(value);
}

/** Ascending order with null smallest. */
function compareKeys(a: Key, b: Key): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const numberSortedSets = new WeakMap<SortableFields, Map<string, SortableFields>>();

/**
 * `set` with `field` compared as a number: for values that stand for the field's own (a name's
 * rank in name order, runtime/format/name-order.ts). One object per (set, field).
 */
export function numberSorted(set: SortableFields, field: string): SortableFields {
  let byField = numberSortedSets.get(set);
  if (byField === undefined) numberSortedSets.set(set, (byField = new Map()));
  let sorted = byField.get(field);
  if (sorted === undefined) {
    const byName = new Map(set.byName);
    byName.set(field, { sortAs: 'number' });
    byField.set(field, (sorted = { byName }));
  }
  return sorted;
}

export function sortObjects<T extends object>(items: T[], keys: readonly SortKey[], set: SortableFields): T[] {
  return sortBy(items, keys, set, (item, field) => (item as Record<string, unknown>)[field]);
}

/** Bits per pass of the radix sort: 3 passes over a 32-bit word, 2,048 counters. */
const RADIX_BITS = 11;
const RADIX_MASK = (1 << RADIX_BITS) - 1;

/** A double's bits, read as two 32-bit words (little-endian: [low, high]). */
const doubleBits = new Float64Array(1);
const doubleWords = new Uint32Array(doubleBits.buffer);

/**
 * Sorts `order` (item positions) stably by `keys[position]`, unsigned 32-bit, in place: least
 * significant digit first, skipping digits every item shares. `spare` is scratch of the same length.
 */
function radixSortBy(order: Int32Array, spare: Int32Array, keys: Uint32Array, counts: Int32Array): void {
  const n = order.length;
  let from = order;
  let to = spare;
  for (let shift = 0; shift < 32; shift += RADIX_BITS) {
    counts.fill(0);
    for (let k = 0; k < n; k++) counts[(keys[from[k]!]! >>> shift) & RADIX_MASK]!++;
    if (counts[(keys[from[0]!]! >>> shift) & RADIX_MASK] === n) continue; // one digit for all: order unchanged
    let sum = 0;
    for (let d = 0; d <= RADIX_MASK; d++) {
      const count = counts[d]!;
      counts[d] = sum;
      sum += count;
    }
    for (let k = 0; k < n; k++) {
      const position = from[k]!;
      to[counts[(keys[position]! >>> shift) & RADIX_MASK]!++] = position;
    }
    const written = to;
    to = from;
    from = written;
  }
  if (from !== order) order.set(from);
}

/** Dense ranks of text values: matchKey first, then the raw text, null smallest. */
function textRanks<T>(items: readonly T[], field: string, valueOf: (item: T, field: string, numeric: boolean) => unknown): Uint32Array {
  const n = items.length;
  const folded: (string | null)[] = new Array<string | null>(n);
  const raw: (string | null)[] = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const text = textKey(valueOf(items[i]!, field, false));
    raw[i] = text;
    folded[i] = text === null ? null : matchKey(text);
  }
  const compare = (a: number, b: number): number => compareKeys(folded[a]!, folded[b]!) || compareKeys(raw[a]!, raw[b]!);
  const order: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort(compare);
  const ranks = new Uint32Array(n);
  let rank = 0;
  for (let k = 1; k < n; k++) {
    if (compare(order[k - 1]!, order[k]!) !== 0) rank++;
    ranks[order[k]!] = rank;
  }
  return ranks;
}

/**
 * sortObjects over any items: `valueOf(item, field, numeric)` is the value the item's object holds
 * under `field` (`numeric`: the field compares as a number, so a number may stand for its text).
 *
 * A stable radix sort of the items' positions, least significant key first: each key's values are
 * read once per item into unsigned words that order as the values do (a number's bits, flipped so
 * that they compare as unsigned; a text's rank), complemented for `desc`. No comparator runs per
 * comparison: the first sort of a list in each thread ran one unoptimised (the US's 16,731 cities
 * by latitude, in process: ~30 ms the first time, 9–12 ms after; 3.5 ms now), and matchKey or a
 * record read per comparison would dominate any sort. Ties keep the input order (a radix sort is
 * stable).
 */
export function sortBy<T>(items: T[], keys: readonly SortKey[], set: SortableFields, valueOf: (item: T, field: string, numeric: boolean) => unknown): T[] {
  const n = items.length;
  if (keys.length === 0 || n < 2) return items;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const spare = new Int32Array(n);
  const counts = new Int32Array(RADIX_MASK + 1);
  for (let k = keys.length - 1; k >= 0; k--) {
    const key = keys[k]!;
    const flip = key.descending ? 0xffffffff : 0;
    if (set.byName.get(key.field)?.sortAs === 'number') {
      const low = new Uint32Array(n);
      const high = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        // +0 for -0, which compares equal to it; null as -Infinity, below every value.
        doubleBits[0] = (numericKey(valueOf(items[i]!, key.field, true)) ?? -Infinity) + 0;
        const negative = doubleWords[1]! >= 0x80000000;
        low[i] = (negative ? ~doubleWords[0]! : doubleWords[0]!) ^ flip;
        high[i] = (negative ? ~doubleWords[1]! : doubleWords[1]! | 0x80000000) ^ flip;
      }
      radixSortBy(order, spare, low, counts);
      radixSortBy(order, spare, high, counts);
    } else {
      const ranks = textRanks(items, key.field, valueOf);
      if (flip !== 0) for (let i = 0; i < n; i++) ranks[i] = ~ranks[i]!;
      radixSortBy(order, spare, ranks, counts);
    }
  }
  const sorted = Array.from(order, (position) => items[position]!);
  for (let i = 0; i < n; i++) items[i] = sorted[i]!;
  return items;
}
