// matchKey's printable-ASCII shortcut gives exactly what the full normaliser gives: index keys
// written at build time and query keys made per request must never differ.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchKey, matchKeyOfAnyText } from '../../runtime/text/normalise.js';

describe('matchKey', () => {
  it('folds printable ASCII as the full normaliser does', () => {
    for (const text of ['', ' ', 'San Francisco', '  New   York  ', 'ABC xyz', "O'Fallon", 'a~b|c{d}', 'x  ', '  y']) {
      assert.equal(matchKey(text), matchKeyOfAnyText(text), JSON.stringify(text));
    }
    let seed = 11;
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      const length = i % 17;
      for (let k = 0; k < length; k++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        text += String.fromCharCode(0x20 + (seed % 95));
      }
      assert.equal(matchKey(text), matchKeyOfAnyText(text), JSON.stringify(text));
    }
  });

  it('leaves other text to the full normaliser', () => {
    assert.equal(matchKey('São  Paulo'), 'sao paulo');
    assert.equal(matchKey('Łódź'), 'lodz');
    assert.equal(matchKey('a\tb'), 'a b');
  });
});
