// Per-request ordering for the `sort` parameter. Lists come in the snapshot's precomputed order
// (by name), so this runs only when `sort` is given; Array#sort is stable, so equal keys keep
// that order (deterministic ties).
//
// Stable API: sortObjects(items, keys, set) sorts `items` in place and returns it; sortBy does the
// same for items whose values come from a function (list rows read from the table's bytes). SortKey
// comes from params.sortParam. Numbers and decimal text (latitude …) compare numerically, text by
// matchKey() then raw text; null/absent values sort as the smallest: first in `asc`, last in
// `desc` (decisions.md, as SQL's default NULLS order does).
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

function numericKey(value: unknown): number | null {
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

/**
 * One sort key's values, by the item's position in the input: numbers (null as -Infinity, which
 * no value is: the smallest, as null sorts), or the folded and the raw text. `sign` is -1 for `desc`.
 */
type Column = { numeric: true; values: Float64Array; sign: number } | { numeric: false; folded: (string | null)[]; raw: (string | null)[]; sign: number };

/** sortObjects over any items: `valueOf(item, field)` is the value the item's object holds under `field`. */
export function sortBy<T>(items: T[], keys: readonly SortKey[], set: SortableFields, valueOf: (item: T, field: string) => unknown): T[] {
  const n = items.length;
  if (keys.length === 0 || n < 2) return items;
  // Decorate once, into one array per key: matchKey per comparison would dominate the sort, and
  // comparisons over typed columns stay monomorphic.
  const columns: Column[] = keys.map((key) => {
    const sign = key.descending ? -1 : 1;
    if (set.byName.get(key.field)?.sortAs === 'number') {
      const values = new Float64Array(n);
      for (let i = 0; i < n; i++) values[i] = numericKey(valueOf(items[i]!, key.field)) ?? -Infinity;
      return { numeric: true, values, sign };
    }
    const folded: (string | null)[] = new Array<string | null>(n);
    const raw: (string | null)[] = new Array<string | null>(n);
    for (let i = 0; i < n; i++) {
      const text = textKey(valueOf(items[i]!, key.field));
      raw[i] = text;
      folded[i] = text === null ? null : matchKey(text);
    }
    return { numeric: false, folded, raw, sign };
  });
  const order: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const only = columns.length === 1 ? columns[0]! : null;
  if (only !== null && only.numeric) {
    const { values, sign } = only;
    order.sort((a, b) => {
      const x = values[a]!;
      const y = values[b]!;
      return x < y ? -sign : x > y ? sign : a - b;
    });
  } else {
    order.sort((a, b) => {
      for (const column of columns) {
        if (column.numeric) {
          const x = column.values[a]!;
          const y = column.values[b]!;
          if (x !== y) return x < y ? -column.sign : column.sign;
          continue;
        }
        const folded = compareKeys(column.folded[a]!, column.folded[b]!);
        if (folded !== 0) return folded * column.sign;
        const raw = compareKeys(column.raw[a]!, column.raw[b]!);
        if (raw !== 0) return raw * column.sign;
      }
      return a - b;
    });
  }
  const sorted = order.map((i) => items[i]!);
  for (let i = 0; i < n; i++) items[i] = sorted[i]!;
  return items;
}
