import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CITY_FIELDS } from '../../runtime/render/fields.js';
import { sortBy, sortObjects } from '../../runtime/engine/sort.js';
import { matchKey } from '../../runtime/text/normalise.js';
import { prng } from '../support/random.js';

const rows = () => [
  { id: 1, name: 'Zürich', latitude: '47.37', population: null },
  { id: 2, name: 'zug', latitude: '-10.5', population: 30000 },
  { id: 3, name: 'Aarau', latitude: '9.1', population: 21000 },
  { id: 4, name: 'Aarau', latitude: null, population: 21000 },
];

describe('sortObjects', () => {
  it('compares decimal text numerically, not as text', () => {
    assert.deepEqual(sortObjects(rows(), [{ field: 'latitude', descending: false }], CITY_FIELDS).map((r) => r.id), [4, 2, 3, 1]);
  });

  it('puts nulls first ascending and last descending', () => {
    assert.deepEqual(sortObjects(rows(), [{ field: 'latitude', descending: true }], CITY_FIELDS).map((r) => r.id), [1, 3, 2, 4]);
    assert.deepEqual(sortObjects(rows(), [{ field: 'latitude', descending: false }], CITY_FIELDS).map((r) => r.id), [4, 2, 3, 1]);
    assert.deepEqual(sortObjects(rows(), [{ field: 'population', descending: true }], CITY_FIELDS).map((r) => r.id), [2, 3, 4, 1]);
    assert.deepEqual(sortObjects(rows(), [{ field: 'population', descending: false }], CITY_FIELDS).map((r) => r.id), [1, 3, 4, 2]);
  });

  it('folds case and diacritics for text and keeps input order on ties', () => {
    assert.deepEqual(sortObjects(rows(), [{ field: 'name', descending: false }], CITY_FIELDS).map((r) => r.id), [3, 4, 2, 1]);
  });

  it('applies later keys to break ties', () => {
    const sorted = sortObjects(rows(), [{ field: 'population', descending: false }, { field: 'id', descending: true }], CITY_FIELDS);
    assert.deepEqual(sorted.map((r) => r.id), [1, 4, 3, 2]);
  });
});

describe('sortBy', () => {
  // The documented order, compared pairwise with no decoration: numbers (and decimal text) by
  // value for numeric fields, else matchKey then raw text; null and absent smallest; ties by input order.
  function oracle(items: Record<string, unknown>[], keys: { field: string; descending: boolean }[]): Record<string, unknown>[] {
    const numericOf = (value: unknown): number | null => {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? n : null;
    };
    const textOf = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
    const cmp = (a: number | string | null, b: number | string | null): number => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : a > b ? 1 : 0);
    return items
      .map((item, index) => ({ item, index }))
      .sort((a, b) => {
        for (const key of keys) {
          const sign = key.descending ? -1 : 1;
          if (CITY_FIELDS.byName.get(key.field)?.sortAs === 'number') {
            const c = cmp(numericOf(a.item[key.field]), numericOf(b.item[key.field]));
            if (c !== 0) return c * sign;
            continue;
          }
          const [x, y] = [textOf(a.item[key.field]), textOf(b.item[key.field])];
          const folded = cmp(x === null ? null : matchKey(x), y === null ? null : matchKey(y));
          if (folded !== 0) return folded * sign;
          const raw = cmp(x, y);
          if (raw !== 0) return raw * sign;
        }
        return a.index - b.index;
      })
      .map(({ item }) => item);
  }

  it('orders random items by one to three keys as the documented comparison does (oracle)', () => {
    const random = prng(16);
    const pick = <V>(values: readonly V[]): V => values[Math.floor(random() * values.length)]!;
    const names = ['Aarau', 'aarau', 'Zürich', 'zurich', 'Ängelholm', 'angelholm', 'San  José', 'san jose', 'Łódź', 'Lodz', '', ' x', null];
    const numbers = [null, 0, -0, 1, -1, 2.5, 1e6, '47.37', '-10.5', ' 3 ', 'abc', '', Infinity, NaN];
    for (let trial = 0; trial < 300; trial++) {
      const items = Array.from({ length: 1 + Math.floor(random() * 40) }, (_, id) => {
        const item: Record<string, unknown> = { id, name: pick(names), latitude: pick(numbers), population: pick(numbers), native: pick(names) };
        if (random() < 0.1) delete item['native'];
        return item;
      });
      const keys = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ field: pick(['name', 'latitude', 'population', 'native', 'id']), descending: random() < 0.5 }));
      const expected = oracle(items, keys).map((item) => item['id']);
      assert.deepEqual(sortBy([...items], keys, CITY_FIELDS, (item, field) => item[field]).map((item) => item['id']), expected, JSON.stringify(keys));
      assert.deepEqual(sortObjects([...items], keys, CITY_FIELDS).map((item) => item['id']), expected);
    }
  });

  it('orders thousands of items with numbers of every magnitude and sign as the documented comparison does (oracle)', () => {
    const random = prng(17);
    const number = (): unknown => {
      const kind = random();
      if (kind < 0.05) return null;
      if (kind < 0.1) return random() < 0.5 ? 0 : -0;
      if (kind < 0.4) return Math.round((random() - 0.5) * 2e6); // ints, many repeated digits
      if (kind < 0.7) return (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
      if (kind < 0.8) return Number.MAX_VALUE * (random() < 0.5 ? -1 : 1);
      if (kind < 0.9) return ((random() - 0.5) * 180).toFixed(5); // decimal text
      return Math.floor(random() * 4); // ties
    };
    for (let trial = 0; trial < 20; trial++) {
      const items = Array.from({ length: 500 + Math.floor(random() * 3000) }, (_, id) => ({ id, latitude: number(), population: number(), name: random() < 0.5 ? 'a' : 'B' }) as Record<string, unknown>);
      const keys = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ field: ['latitude', 'population', 'name'][Math.floor(random() * 3)]!, descending: random() < 0.5 }));
      assert.deepEqual(sortObjects([...items], keys, CITY_FIELDS).map((item) => item['id']), oracle(items, keys).map((item) => item['id']), JSON.stringify(keys));
    }
  });
});
