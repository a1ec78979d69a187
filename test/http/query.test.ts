import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode, decodePathParam, decodeSlowly, MAX_QUERY_LENGTH, parseQuery, QueryError } from '../../runtime/http/query.js';
import { prng } from '../support/random.js';

const parsed = (raw: string | undefined): Record<string, string> => Object.fromEntries(parseQuery(raw));
const refusal = (raw: string): string => {
  try {
    parseQuery(raw);
  } catch (error) {
    assert.ok(error instanceof QueryError, `expected a QueryError, found ${String(error)}`);
    return error.message;
  }
  assert.fail(`expected ${JSON.stringify(raw)} to be refused`);
};

describe('strict query parser', () => {
  it('parses name=value pairs separated by &', () => {
    assert.deepEqual(parsed('a=1&b=two&c='), { a: '1', b: 'two', c: '' });
  });

  it('gives no parameters for an absent or empty query', () => {
    assert.deepEqual(parsed(undefined), {});
    assert.deepEqual(parsed(''), {});
  });

  it('gives a name without "=" the empty value', () => {
    assert.deepEqual(parsed('include_translations&x=1'), { include_translations: '', x: '1' });
  });

  it('decodes + as a space (an unencoded + from a client arrives as a space)', () => {
    assert.deepEqual(parsed('number=+14155552671&q=new+york'), { number: ' 14155552671', q: 'new york' });
    assert.deepEqual(parsed('number=%2B14155552671'), { number: '+14155552671' });
  });

  it('decodes percent-encoded UTF-8 and keeps raw UTF-8', () => {
    assert.deepEqual(parsed('q=z%C3%BCrich&r=zürich&%71%32=x'), { q: 'zürich', r: 'zürich', q2: 'x' });
  });

  it('refuses a parameter given twice, naming it', () => {
    assert.equal(refusal('a=1&a=2'), 'Invalid query parameters: a: given more than once');
    // Also when the two spellings decode to the same name.
    assert.equal(refusal('q=1&%71=2'), 'Invalid query parameters: q: given more than once');
  });

  it('refuses malformed percent-encoding', () => {
    assert.match(refusal('q=%zz'), /^Invalid query parameters: q: malformed percent-encoding/);
    assert.match(refusal('q=abc%'), /q: malformed percent-encoding/);
    assert.match(refusal('q=%4'), /q: malformed percent-encoding/);
    assert.match(refusal('%zz=1'), /parameter name malformed percent-encoding/);
  });

  it('refuses percent-encoded bytes that are not UTF-8', () => {
    assert.equal(refusal('q=%FF'), 'Invalid query parameters: q: not valid UTF-8');
    assert.equal(refusal('q=%C3'), 'Invalid query parameters: q: not valid UTF-8');
    assert.equal(refusal('q=%ED%A0%80'), 'Invalid query parameters: q: not valid UTF-8'); // a UTF-16 surrogate
  });

  it('refuses raw bytes that were not UTF-8 (uWS hands them over as U+FFFD)', () => {
    assert.equal(refusal('q=a\uFFFDb'), 'Invalid query parameters: q: not valid UTF-8');
  });

  it('refuses control characters, raw or decoded', () => {
    assert.equal(refusal('q=%00'), 'Invalid query parameters: q: control characters are not allowed');
    assert.equal(refusal('q=a%0Ab'), 'Invalid query parameters: q: control characters are not allowed');
    assert.equal(refusal('q=%7F'), 'Invalid query parameters: q: control characters are not allowed');
    assert.equal(refusal('q=%C2%85'), 'Invalid query parameters: q: control characters are not allowed'); // C1 NEL
    assert.equal(refusal('q=a\tb'), 'Invalid query parameters: q: control characters are not allowed');
    assert.match(refusal('a%00=1'), /parameter name control characters/);
  });

  it('refuses empty parameters and parameters without a name', () => {
    assert.match(refusal('a=1&&b=2'), /empty parameter/);
    assert.match(refusal('a=1&'), /empty parameter/);
    assert.match(refusal('=1'), /has no name/);
  });

  it('refuses a query longer than the limit and accepts one at the limit', () => {
    assert.match(refusal(`q=${'a'.repeat(MAX_QUERY_LENGTH)}`), /longer than 4096 characters/);
    assert.equal(parseQuery(`q=${'a'.repeat(MAX_QUERY_LENGTH - 2)}`).get('q')!.length, MAX_QUERY_LENGTH - 2);
  });

  it('keeps values that read like internal problem names or numbers as ordinary text', () => {
    assert.deepEqual(parsed('x=percent&y=utf8&z=1&w=3'), { x: 'percent', y: 'utf8', z: '1', w: '3' });
  });

  it('shortens and escapes an over-long or odd name in messages', () => {
    const message = refusal(`${'n'.repeat(100)}=1&${'n'.repeat(100)}=2`);
    assert.ok(message.length < 120, message);
    assert.equal(refusal('a"b=1&a"b=2'), 'Invalid query parameters: a\\"b: given more than once');
  });
});

describe('path parameter decoding', () => {
  it('percent-decodes and keeps + as a plus', () => {
    assert.equal(decodePathParam('S%C3%A3o+Paulo', 'name'), 'São+Paulo');
    assert.equal(decodePathParam('A%2FB', 'code'), 'A/B');
  });

  it('refuses malformed encoding, invalid UTF-8 and control characters, naming the parameter', () => {
    assert.throws(() => decodePathParam('%zz', 'ciso'), { name: 'QueryError', message: 'Invalid path parameter ciso: malformed percent-encoding (expected % followed by two hex digits)' });
    assert.throws(() => decodePathParam('%FF', 'ciso'), { message: 'Invalid path parameter ciso: not valid UTF-8' });
    assert.throws(() => decodePathParam('a%00', 'code'), { message: 'Invalid path parameter code: control characters are not allowed' });
    assert.throws(() => decodePathParam('\uFFFD', 'code'), { message: 'Invalid path parameter code: not valid UTF-8' });
  });

  it('decodes every component as the general decoder does (random components, both + modes)', () => {
    // Pieces that reach each branch of the one-pass decoder and each way out of it.
    const pieces = ['a', 'Z', '0', ' ', '~', '+', '%', '%2', '%20', '%2B', '%2b', '%25', '%41', '%7e', '%7F', '%7f', '%1F', '%00', '%80', '%C3%BC', '%c3%bc', '%E2%82%AC', '%FF', '%zz', '%g1', '%1g', 'ü', '€', '\uFFFD', '\t', '\u007f', '\u0085', '&', '='];
    const random = prng(0x51f0);
    for (let round = 0; round < 20_000; round++) {
      let raw = '';
      for (let k = Math.floor(random() * 7); k > 0; k--) raw += pieces[Math.floor(random() * pieces.length)];
      for (const plusAsSpace of [true, false]) assert.equal(decode(raw, plusAsSpace), decodeSlowly(raw, plusAsSpace), `${JSON.stringify(raw)} plusAsSpace=${plusAsSpace}`);
    }
  });
});
