import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numericKey } from '../../runtime/engine/sort.js';
import { rowValuesOf, simpleDecimalAt } from '../../runtime/store/row-values.js';
import type { Store } from '../../runtime/store/types.js';
import { prng } from '../support/random.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

const encoder = new TextEncoder();

/** numericValue against value() for every numeric field of the rows. */
function numericValuesAgree(store: Store, rows: (entity: 'countries' | 'states' | 'cities' | 'postcodes') => Iterable<number>): number {
  let compared = 0;
  for (const entity of ['countries', 'states', 'cities', 'postcodes'] as const) {
    const rowBytes = store[entity].rowBytes!;
    const values = rowValuesOf(rowBytes);
    for (const field of rowBytes.layout) {
      if (field.name === 'translations') continue;
      for (const row of rows(entity)) {
        assert.equal(numericKey(values.numericValue(row, field)), numericKey(values.value(row, field)), `${entity} row ${row} ${field.name}`);
        compared++;
      }
    }
  }
  return compared;
}

describe('row values', () => {
  it('reads a simple decimal text as Number() does, and declines any other text (NaN)', () => {
    const random = prng(45);
    const digits = (n: number): string => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');
    const texts = ['0', '-0', '0.0', '-0.000', '1', '-1', '007.50', '40.71427000', '-122.41942000', '1.', '.5', '-', '', ' 1', '1 ', '1e3', '0x10', '+1', '1.2.3', '--1', 'Infinity', '١٢', '123456789012345', '1234567890123456', '0.000000000000001', '99999999999999.9'];
    for (let i = 0; i < 20_000; i++) {
      const whole = digits(1 + Math.floor(random() * 9));
      const fraction = random() < 0.8 ? `.${digits(1 + Math.floor(random() * 9))}` : '';
      texts.push(`${random() < 0.4 ? '-' : ''}${whole}${fraction}`);
    }
    let answered = 0;
    for (const text of texts) {
      const bytes = encoder.encode(`xx${text}yy`);
      const value = simpleDecimalAt(bytes, 2, bytes.length - 4);
      // Up to 15 digits: the digits' integer and the power of ten are then exact.
      const simple = /^-?\d+(\.\d+)?$/.test(text) && text.replace(/[-.]/g, '').length <= 15;
      assert.equal(!Number.isNaN(value), simple, JSON.stringify(text));
      if (!simple) continue;
      answered++;
      assert.ok(Object.is(value, Number(text)), `${JSON.stringify(text)}: ${value} against ${Number(text)}`);
    }
    assert.ok(answered > 10_000, `${answered} answered`);
  });

  it('gives, for every field of every fixture row, the number a numeric sort takes from its value', () => {
    const { store } = fixtureSnapshot();
    assert.ok(numericValuesAgree(store, (entity) => Array.from({ length: store[entity].count }, (_, row) => row)) > 1000);
  });

  it('gives the same numbers over the full dataset: its countries and states, and a sample of its cities and postcodes', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    const random = prng(46);
    numericValuesAgree(store, (entity) => {
      const count = store[entity].count;
      return count <= 10_000 ? Array.from({ length: count }, (_, row) => row) : Array.from({ length: 5000 }, () => Math.floor(random() * count));
    });
  });
});
