// JSON-text fields are stored JSON-escaped (runtime/format/json-text.ts): the stored form is
// exactly the inside of JSON.stringify's literal, and reading it back gives the text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonTextFromStored, storedJsonText } from '../../runtime/format/json-text.js';

const TEXTS = [
  '',
  'plain',
  '{"de":"München","ja":"ミュンヘン"}',
  'back\\slash "quoted" \u0000\u0001\b\t\n\u000b\f\r\u001f\u007f',
  'line\u2028para\u2029 bom\ufeff emoji 😀',
  'lone \ud800 surrogate \udfff',
  '\\u0041 is not an escape here',
];

describe('stored JSON text', () => {
  it('stores the inside of the JSON string literal, and reads back the text', () => {
    for (const text of TEXTS) {
      const stored = storedJsonText(text)!;
      assert.equal(`"${stored}"`, JSON.stringify(text), JSON.stringify(text));
      assert.equal(jsonTextFromStored(stored), text, JSON.stringify(text));
    }
  });

  it('keeps null as null and a text needing no escape as itself', () => {
    assert.equal(storedJsonText(null), null);
    assert.equal(jsonTextFromStored(null), null);
    assert.equal(storedJsonText('Zürich'), 'Zürich');
  });
});
