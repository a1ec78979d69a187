import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CITY_FIELDS } from '../../runtime/render/fields.js';
import { sortObjects } from '../../runtime/engine/sort.js';

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
