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

type Key = number | string | null;

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

const PRINTABLE_ASCII_RE = /^[\x20-\x7e]*$/;
const SPACES_RE = /\s+/g;

/** matchKey() with a fast path: for printable ASCII it reduces to lower case + collapsed spaces. */
function foldedText(text: string): string {
  return PRINTABLE_ASCII_RE.test(text) ? text.toLowerCase().replace(SPACES_RE, ' ').trim() : matchKey(text);
}

/** Ascending order with null smallest. */
function compareKeys(a: Key, b: Key): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortObjects<T extends object>(items: T[], keys: readonly SortKey[], set: SortableFields): T[] {
  return sortBy(items, keys, set, (item, field) => (item as Record<string, unknown>)[field]);
}

/** sortObjects over any items: `valueOf(item, field)` is the value the item's object holds under `field`. */
export function sortBy<T>(items: T[], keys: readonly SortKey[], set: SortableFields, valueOf: (item: T, field: string) => unknown): T[] {
  if (keys.length === 0 || items.length < 2) return items;
  const numeric = keys.map((k) => set.byName.get(k.field)?.sortAs === 'number');
  // Decorate once: matchKey per comparison would dominate the sort.
  const decorated = items.map((item, index) => {
    const primary: Key[] = [];
    const secondary: Key[] = [];
    keys.forEach((k, i) => {
      const value = valueOf(item, k.field);
      if (numeric[i]) {
        primary.push(numericKey(value));
        secondary.push(null);
      } else {
        const text = textKey(value);
        primary.push(text === null ? null : foldedText(text));
        secondary.push(text);
      }
    });
    return { item, index, primary, secondary };
  });
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const folded = compareKeys(a.primary[i] ?? null, b.primary[i] ?? null);
      if (folded !== 0) return keys[i]!.descending ? -folded : folded;
      const raw = compareKeys(a.secondary[i] ?? null, b.secondary[i] ?? null);
      if (raw !== 0) return keys[i]!.descending ? -raw : raw;
    }
    return a.index - b.index;
  });
  for (let i = 0; i < decorated.length; i++) items[i] = decorated[i]!.item;
  return items;
}
