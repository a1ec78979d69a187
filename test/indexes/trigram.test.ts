import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commonTrigramCount, roundScore, showTrgm, similarity, similarityFromCounts, trigramsOf } from '../../runtime/text/trigram.js';

describe('pg_trgm trigrams', () => {
  it('pads each word with two spaces before and one after', () => {
    assert.deepEqual(showTrgm('cat'), ['  c', ' ca', 'at ', 'cat']);
  });

  it('splits words on anything but letters and digits, and lower-cases them', () => {
    assert.deepEqual(showTrgm("Foo-BAR o'k"), showTrgm('foo bar o k'));
    assert.deepEqual(showTrgm('A1'), ['  a', ' a1', 'a1 ']);
  });

  it('deduplicates trigrams within and across words', () => {
    assert.equal(trigramsOf('aaaa aaaa').length, trigramsOf('aaaa').length);
    assert.deepEqual(showTrgm('aaaa'), ['  a', ' aa', 'aa ', 'aaa']);
  });

  it('has no trigrams for text without letters or digits', () => {
    assert.equal(trigramsOf('').length, 0);
    assert.equal(trigramsOf(' -- !? ').length, 0);
    assert.equal(similarity('', ''), 0);
    assert.equal(similarity('--', 'foo'), 0);
  });

  it('hashes multibyte trigrams like PostgreSQL (legacy CRC-32, low 3 bytes)', () => {
    // show_trgm('São Paulo') on PostgreSQL 15.
    assert.deepEqual(showTrgm('São Paulo'), ['0xa7075e', '0xc24282', '0xc535fc', '  p', '  s', ' pa', 'aul', 'lo ', 'pau', 'ulo']);
  });

  it("lower-cases one character at a time as glibc's towlower (İ → i, final Σ → σ)", () => {
    assert.equal(similarity('İstanbul', 'istanbul'), 1);
    assert.equal(similarity('ΟΔΟΣ', 'οδοσ'), 1);
    assert.notEqual(similarity('ΟΔΟΣ', 'οδος'), 1);
  });

  it('keeps diacritics: é and e are different characters', () => {
    assert.ok(similarity('Zürich', 'Zurich') < 1);
  });

  it('returns float4 values: similarity is float4(common / union)', () => {
    assert.equal(similarity('Москва', 'Моксва'), Math.fround(3 / 11));
    assert.equal(similarityFromCounts(1, 3, 0), 0);
    assert.equal(similarityFromCounts(2, 4, 4), Math.fround(2 / 6));
  });

  it('is symmetric and 1 for equal word sets', () => {
    assert.equal(similarity('new york', 'York New'), 1);
    assert.equal(similarity('abc', 'abd'), similarity('abd', 'abc'));
  });

  it('returns ascending distinct codes', () => {
    const codes = trigramsOf('Saint-Étienne du Rouvray 東京');
    for (let i = 1; i < codes.length; i++) assert.ok(codes[i - 1]! < codes[i]!);
    assert.equal(commonTrigramCount(codes, codes), codes.length);
  });

  it("rounds scores as round(x::numeric, 2): 6 significant digits, then half away from zero", () => {
    assert.equal(roundScore(Math.fround(3 / 11)), 0.27);
    assert.equal(roundScore(0.125), 0.13);
    assert.equal(roundScore(Math.fround(0.175)), 0.18); // float4 0.17499999701… → "0.175000"
    assert.equal(roundScore(1), 1);
    assert.equal(roundScore(0), 0);
  });
});

describe('roundScore fast path', () => {
  it('gives what PostgreSQL\'s textual rounding gives, for every similarity of small trigram counts and for random scores', async () => {
    const { roundScoreByText } = await import('../../runtime/text/trigram.js');
    const scores: number[] = [0, 1, 0.005, 0.015, 0.125, 0.175, 0.995, 1e-7];
    for (let total = 1; total <= 400; total++) for (let common = 0; common <= total; common++) scores.push(common / total, Math.fround(common / total));
    let seed = 7;
    for (let i = 0; i < 200_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      scores.push(seed / 2147483648, Math.fround(seed / 2147483648), Math.round(seed / 2147483.648) / 1000 + 0.0005);
    }
    for (const score of scores) assert.equal(roundScore(score), roundScoreByText(score), `score ${score}`);
  });
});
