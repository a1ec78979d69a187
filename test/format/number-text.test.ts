import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DECIMAL_BYTES, integerText, writeDecimalAt } from '../../runtime/text/number-text.js';
import { JsonBytes } from '../../runtime/render/row-json.js';
import { prng } from '../support/random.js';

const decoder = new TextDecoder();

function numberText(value: number): string {
  const out = new JsonBytes();
  out.number(value);
  return decoder.decode(out.buffer.subarray(0, out.length));
}

/** Values of the shapes served (scores, distances in km, coordinates) and of every other shape. */
function sampleValues(): number[] {
  const next = prng(20261125);
  const values: number[] = [0.1, 0.2, 0.3, 0.1 + 0.2, 0.5, 0.05, 1e-6, 1.5e-6, 9.99e-7, 1e-7, 0.000001, 123456789.12345678, 999999999999999.9, 99999999999999.99, 1e15 + 0.5, 1e21, 1.7976931348623157e308, 5e-324, -0.5, -179.99999999, 2 ** 53 - 0.5];
  for (let i = 0; i < 200_000; i++) {
    const kind = i % 5;
    const sign = next() < 0.3 ? -1 : 1;
    if (kind === 0) values.push(sign * Math.round(next() * 10 ** (2 + (i % 7))) / 10 ** (1 + (i % 8))); // k / 10^d
    else if (kind === 1) values.push(sign * Math.round(next() * 20_000_000) / 100); // distances
    else if (kind === 2) values.push(Number((sign * next() * 180).toFixed(1 + (i % 8)))); // coordinates as text
    else if (kind === 3) values.push(sign * next() * 10 ** ((i % 40) - 20)); // any double
    else values.push(Math.round(next() * 100) / 100); // match scores
  }
  return values;
}

describe('numbers as text without String()', () => {
  it('writes every number as JSON.stringify does (200,000 seeded values of every shape)', () => {
    for (const value of sampleValues()) assert.equal(numberText(value), JSON.stringify(value), `value ${value}`);
  });

  it('writes null for non-finite numbers, as JSON.stringify does', () => {
    for (const value of [NaN, Infinity, -Infinity]) assert.equal(numberText(value), 'null');
  });

  it('declines integers, exponent-notation magnitudes and more than 8 decimals, writing nothing', () => {
    const buffer = new Uint8Array(DECIMAL_BYTES).fill(0x78);
    for (const value of [3, -0, 1e-7, 1e15, 1e21, 0.123456789, 0.1 + 0.2, NaN, Infinity]) {
      assert.equal(writeDecimalAt(buffer, 0, value), -1, `value ${value}`);
      assert.ok(buffer.every((byte) => byte === 0x78));
    }
  });

  it('writes a served decimal within DECIMAL_BYTES', () => {
    const buffer = new Uint8Array(DECIMAL_BYTES);
    const end = writeDecimalAt(buffer, 0, -9999999.12345678);
    assert.equal(decoder.decode(buffer.subarray(0, end)), '-9999999.12345678');
  });

  it('spells integers as String() does, for every size of count, length and id', () => {
    const next = prng(7);
    const values = [0, -0, 1, 9, 10, 999, 1000, 1001, 100000, 1000000, 2 ** 31, 2 ** 53 - 1, -1, -1000, -(2 ** 53) + 1, 2 ** 53, 1e21, 1.5, NaN];
    for (let i = 0; i < 100_000; i++) values.push(Math.floor(next() * 10 ** (i % 16)));
    for (const value of values) assert.equal(integerText(value), String(value), `value ${value}`);
  });
});
