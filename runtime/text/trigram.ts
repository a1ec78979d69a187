// pg_trgm trigrams and similarity(), bit for bit as PostgreSQL 15 computes them in a UTF8
// database with LC_CTYPE C.UTF-8 (Debian 12, glibc 2.36), so the fuzzy match_score is exactly
// `similarity()` (decisions.md). What PostgreSQL does (contrib/pg_trgm/trgm_op.c):
// - words are maximal runs of characters that libc's iswalpha()/iswdigit() accept (checked on
//   the original text), each lower-cased with towlower() per character, padded with two spaces
//   before and one after; every 3-character window is a trigram;
// - a trigram of 3 single-byte characters is kept as its 3 bytes; any other (multibyte) one is
//   replaced by 3 bytes of a "legacy" CRC-32 of its UTF-8 bytes, so distinct trigrams can
//   collide exactly as they do in PostgreSQL;
// - trigrams are deduplicated; similarity = |A∩B| / |A∪B| computed in float4 (0 when either
//   side has no trigrams).
// A trigram is represented as the integer b0<<16 | b1<<8 | b2 of its 3 bytes — the number
// show_trgm() prints as 0x…. The character tables below are glibc's, dumped from the server
// (`node scripts/pg-similarity-table.mjs --ctype`), not JavaScript's \p{…}/toLowerCase(), whose
// Unicode version differs (JS knows letters glibc 2.36 does not, and lower-cases İ to "i̇").

// <ctype-tables>
// PostgreSQL 15.18 (Debian 15.18-0+deb12u1), LC_CTYPE C.UTF-8: 760 word ranges, 182 lower-case runs
const WORD_RANGES = '1c.9,8.p,7.p,1c.0,b.0,5.0,6.m,2.u,2.cp,5.b,f.4,8.0,2.0,2f.0,17.4,2.1,3.3,2.0,7.0,2.2,2.0,2.j,2.2a,2.3u,9.4l,2.11,3.0,7.14,14.d,2.0,2.1,2.1,2.0,9.q,5.3,u.a,6.1j,2.g,5.2t,2.7,5.7,5.f,3.0,h.1b,e.2s,f.16,a.1,5.0,6.n,3.i,k.o,8.a,6.n,2.5,i.15,b.b,4.6,7.23,2.f,2.2,5.e,3.9,2.i,2.7,3.1,3.l,2.6,2.0,4.3,4.7,3.1,3.1,2.0,9.0,5.1,2.4,3.b,b.0,5.2,2.5,5.1,3.l,2.6,2.1,2.1,2.1,5.4,5.1,3.1,5.0,8.3,2.0,8.f,c.2,2.8,2.2,2.l,2.6,2.1,2.4,4.8,2.2,2.1,4.0,g.3,3.9,a.3,5.2,2.7,3.1,3.l,2.6,2.1,2.4,4.7,3.1,3.1,a.1,5.1,2.4,3.9,2.0,h.1,2.5,4.2,2.3,4.1,2.0,2.1,4.1,4.2,4.b,5.4,4.2,2.2,4.0,7.0,f.9,h.3,2.7,2.2,2.m,2.f,4.7,2.2,2.2,9.1,2.2,3.0,3.3,3.9,h.3,2.7,2.2,2.m,2.9,2.4,4.7,2.2,2.2,9.1,7.1,2.3,3.9,2.1,e.c,2.2,2.14,3.7,2.2,2.2,2.0,6.3,8.4,3.9,b.5,2.2,2.h,4.n,2.8,2.0,3.6,9.5,2.0,2.7,7.9,3.1,e.1l,6.6,7.0,3.9,14.1,2.0,2.4,2.n,2.0,2.i,2.2,3.4,2.0,7.0,3.9,3.3,x.0,w.9,n.7,2.z,5.g,7.f,2.z,1w.1i,2.0,3.e,7.25,3.11,2.0,6.0,3.16,2.98,2.3,3.6,2.0,2.3,3.14,2.3,3.w,2.3,3.6,2.0,2.3,3.e,2.1k,2.3,3.1u,12.f,h.2d,3.5,4.h7,3.g,2.p,6.22,4.a,8.j,c.k,d.j,d.c,2.2,2.1,d.1f,3.i,f.0,5.0,4.9,13.9,7.2g,8.16,6.1x,b.u,2.b,5.8,e.13,3.4,c.17,5.p,7.9,13.r,5.1q,3.j,c.9,7.9,e.0,o.1,c.2,1e.1f,2.e,2.7,4.9,13.15,3.1l,2.a,f.1i,a.9,4.1c,3.8,8.16,3.2,16.3,2.5,2.1,4.0,6.5b,14.d,c.7p,3.5,3.11,3.5,3.7,2.0,2.0,2.0,2.u,3.1g,2.6,2.0,4.2,2.6,4.3,3.5,5.c,6.2,2.6,39.0,e.0,h.c,2u.0,5.0,3.9,2.0,4.4,7.0,2.0,2.0,2.3,2.a,3.3,6.4,5.0,i.14,mm.1f,1ef.6c,7.3,4.1,d.11,2.0,6.0,3.1j,8.0,h.m,a.6,2.6,2.6,2.6,2.6,2.6,2.6,2.6,2.v,1c.0,d2.2,q.8,8.4,3.4,5.2d,7.2,2.2h,2.3,6.16,2.2l,i.v,1d.f,e9.533,1t.h3g,1w.19,3.7g,4.r,l.1a,6.7,4.34,14.8,3.2u,3.1r,6.1,2.0,2.4,p.j,2.w,p.1f,d.1v,2.0,b.9,p.5,4.0,2.19,6.y,e.s,4.1e,2.b,g.a,7.u,2.1i,a.d,3.9,7.m,4.1w,2.0,2.0,p.2,3.f,3.3,c.5,3.5,3.5,a.6,2.6,2.16,2.d,7.3e,6.9,7.8mb,d.m,5.1c,6it.a5,3.2x,13.6,d.4,6.b,2.c,2.4,2.0,2.1,2.1,2.2z,y.a2,j.1r,3.1h,15.b,39.4,2.3q,k.9,8.p,7.p,c.2g,4.5,3.5,3.5,3.2,10.b,2.p,2.i,2.1,2.e,3.d,z.3e,1y.1g,7g.s,4.1c,1c.v,e.t,6.16,6.t,3.z,5.7,2.4,17.4d,3.9,7.z,5.z,5.13,9.1f,d.a,2.e,2.6,2.1,2.a,2.e,2.6,2.1,1w.8m,a.l,b.7,p.5,2.15,2.8,1y.5,3.0,2.17,2.1,4.0,3.m,b.m,a.u,1u.i,2.1,b.l,b.p,1z.1j,7.1,1t.3,2.1,6.7,2.2,2.s,17.s,4.s,10.7,2.r,s.1h,b.l,b.i,e.h,33.20,1k.1e,e.1e,e.13,9.9,93.15,2.1,4.1,27.s,b.0,9.l,17.h,1b.k,s.m,a.1x,x.9,2.4,d.1i,a.0,e.o,8.9,7.1e,4.9,5.3,9.y,4.0,a.1r,2.3,a.c,2.0,10.h,2.x,3.0,7.0,1u.6,2.0,2.3,2.e,2.9,8.1k,8.9,7.3,2.7,3.1,3.l,2.6,2.1,2.4,4.7,3.1,3.1,4.0,7.0,6.6,4d.1t,2.2,2.3,6.9,6.2,v.1t,3.1,2.0,9.9,4n.1h,3.6,q.5,z.1q,2.0,4.0,c.9,13.1h,3.0,8.9,1j.q,3.d,6.9,7.6,56.1k,2w.21,m.7,3.0,3.7,2.1,2.t,2.1,3.1,3.3,e.9,1z.7,3.19,3.5,2.0,2.1,s.1e,3.9,i.1z,6.0,j.20,7c.8,2.18,2.6,2.0,g.9,p.t,3.l,2.d,22.6,2.1,2.17,4.0,2.1,2.2,2.0,3.1,9.9,7.5,2.1,2.10,2.1,2.3,2.0,8.9,8n.m,56.0,28.pl,2v.32,i.5f,219.2o,g.tq,34i.g6,6nu.fs,8.u,2.9,7.26,2.9,7.t,j.1b,h.3,d.9,a.k,6.i,j5.1r,3l.22,5.1k,8.g,1t.1,2.0,d.1,f.4qf,9.yd,17.8,6w8.3,2.6,2.1,2.82,1a.2,i.3,9.az,1s5.2y,6.c,4.8,8.9,5.0,4ma.2c,2.1y,2.1,3.0,3.1,3.3,2.b,2.0,2.6,2.1s,2.3,3.7,2.6,2.r,2.3,2.4,2.0,4.6,2.9f,3.o,2.o,2.u,2.o,2.u,2.o,2.u,2.o,2.u,2.o,2.7,3.1d,1dt.u,6a.6,2.g,3.6,2.1,2.4,5y.18,b.6,3.9,5.0,8y.t,j.17,5.9,yv.6,2.3,2.1,2.e,2.5g,1o.1v,4.0,4.0,5.9,x3.3,2.q,2.1,2.0,3.0,2.9,2.3,2.0,2.0,7.0,5.0,2.0,2.0,2.2,2.1,2.0,3.0,2.0,2.0,2.0,2.0,2.1,2.0,3.3,2.6,2.3,2.3,2.0,2.9,2.g,6.2,2.4,2.g,hh.p,7.p,7.p,21z.9,sn.wyn,x.37c,8.65,3.4g1,f.5rk,2e8.f1,15v.3t6';
const LOWER_RUNS = '1t.q.1.w,3j.n.1.w,o.7.1.w,14.o.2.1,1c.1.1.-5j,2.3.2.1,7.8.2.1,h.n.2.1,1a.1.1.-3d,1.3.2.1,8.1.1.5u,1.2.2.1,4.1.1.5q,1.1.1.1,2.2.1.5p,2.1.1.1,3.1.1.27,1.1.1.5m,1.1.1.5n,1.1.1.1,2.1.1.5p,1.1.1.5r,2.1.1.5v,1.1.1.5t,1.1.1.1,4.1.1.5v,1.1.1.5x,2.1.1.5y,1.3.2.1,6.1.1.62,1.1.1.1,2.1.1.62,3.1.1.1,2.1.1.62,1.1.1.1,2.2.1.61,2.2.2.1,4.1.1.63,1.1.1.1,4.1.1.1,8.1.1.2,1.1.1.1,2.1.1.2,1.1.1.1,2.1.1.2,1.9.2.1,j.9.2.1,j.1.1.2,1.2.2.1,4.1.1.-2p,1.1.1.-1k,1.k.2.1,14.1.1.-3m,2.9.2.1,o.1.1.8bv,1.1.1.1,2.1.1.-4j,1.1.1.8bs,3.1.1.1,2.1.1.-5f,1.1.1.1x,1.1.1.1z,1.5.2.1,8a.2.2.1,6.1.1.1,9.1.1.38,7.1.1.12,2.3.1.11,4.1.1.1s,2.2.1.1r,3.h.1.w,i.9.1.w,18.1.1.8,9.c.2.1,s.1.1.-1o,3.1.1.1,2.1.1.-7,1.1.1.1,3.3.1.-3m,3.g.1.28,g.w.1.w,28.h.2.1,16.r.2.1,1i.1.1.f,1.7.2.1,f.1c.2.1,2p.12.1.1c,29b.12.1.5ls,13.1.1.5ls,6.1.1.5ls,k3.28.1.tzk,28.6.1.8,1pc.17.1.-2bk,19.3.1.-2bk,8z.23.2.1,4e.1.1.-5vj,2.1c.2.1,2w.8.1.-8,g.6.1.-8,g.8.1.-8,g.8.1.-8,g.6.1.-8,h.4.2.-8,f.8.1.-8,w.8.1.-8,g.8.1.-8,g.8.1.-8,g.2.1.-8,2.2.1.-22,2.1.1.-9,c.4.1.-2e,4.1.1.-9,c.2.1.-8,2.2.1.-2s,e.2.1.-8,2.2.1.-34,2.1.1.-7,c.2.1.-3k,2.2.1.-3i,2.1.1.-9,8a.1.1.-5st,4.1.1.-6gv,1.1.1.-6di,7.1.1.s,1a.g.1.g,z.1.1.1,mr.q.1.q,1fu.1c.1.1c,2o.1.1.1,2.1.1.-8af,1.1.1.-2xy,1.1.1.-89z,3.3.2.1,6.1.1.-8bg,1.1.1.-8al,1.1.1.-8bj,1.1.1.-8bi,2.1.1.1,3.1.1.1,9.2.1.-8cf,2.1e.2.1,2z.2.2.1,7.1.1.1,nym.n.2.1,1s.e.2.1,4i.7.2.1,g.v.2.1,1z.2.2.1,4.1.1.-r9g,1.5.2.1,d.1.1.1,2.1.1.-wmg,3.2.2.1,6.a.2.1,k.1.1.-wn8,1.1.1.-wnj,1.1.1.-wnf,1.1.1.-wn5,1.1.1.-wn8,2.1.1.-wlu,1.1.1.-wmi,1.1.1.-wlx,1.1.1.ps,1.8.2.1,g.1.1.-1c,1.1.1.-wn7,1.1.1.-raw,1.2.2.1,9.1.1.1,6.2.2.1,v.1.1.1,h7w.q.1.w,yn.14.1.14,4w.10.1.14,5c.b.1.13,c.f.1.13,g.7.1.13,8.2.1.13,1d8.1f.1.1s,2e8.w.1.w,gww.w.1.w,o8w.y.1.y';
// </ctype-tables>

const WORD_BMP = new Uint8Array(0x10000);
const LOWER_BMP = new Uint16Array(0x10000);
let wordAstral = new Int32Array(0); // [start, end] pairs, inclusive
const lowerAstral = new Map<number, number>();

(function decodeTables(): void {
  for (let cp = 0; cp < 0x10000; cp++) LOWER_BMP[cp] = cp;
  const astral: number[] = [];
  let end = 0;
  for (const item of WORD_RANGES.split(',')) {
    const [gap, length] = item.split('.').map((n) => parseInt(n, 36)) as [number, number];
    const start = end + gap;
    end = start + length;
    for (let cp = start; cp <= Math.min(end, 0xffff); cp++) WORD_BMP[cp] = 1;
    if (end > 0xffff) astral.push(Math.max(start, 0x10000), end);
  }
  wordAstral = Int32Array.from(astral);
  let start = 0;
  for (const item of LOWER_RUNS.split(',')) {
    const [gap, count, step, delta] = item.split('.').map((n) => parseInt(n, 36)) as [number, number, number, number];
    start += gap;
    for (let k = 0, cp = start; k < count; k++, cp += step) {
      if (cp < 0x10000) LOWER_BMP[cp] = cp + delta;
      else lowerAstral.set(cp, cp + delta);
    }
  }
})();

function isWordChar(cp: number): boolean {
  if (cp < 0x10000) return WORD_BMP[cp] === 1;
  let lo = 0;
  let hi = (wordAstral.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < wordAstral[2 * mid]!) hi = mid - 1;
    else if (cp > wordAstral[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

function lowerChar(cp: number): number {
  return cp < 0x10000 ? LOWER_BMP[cp]! : (lowerAstral.get(cp) ?? cp);
}

// PostgreSQL's pg_crc32_table (the reflected CRC-32 table), applied MSB-first: the "legacy"
// CRC of pg_crc.h that compact_trigram() uses.
const CRC_TABLE = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[i] = c >>> 0;
}

const tripleBytes = new Uint8Array(12);

function putUtf8(cp: number, at: number): number {
  if (cp < 0x80) {
    tripleBytes[at] = cp;
    return at + 1;
  }
  if (cp < 0x800) {
    tripleBytes[at] = 0xc0 | (cp >> 6);
    tripleBytes[at + 1] = 0x80 | (cp & 0x3f);
    return at + 2;
  }
  if (cp < 0x10000) {
    tripleBytes[at] = 0xe0 | (cp >> 12);
    tripleBytes[at + 1] = 0x80 | ((cp >> 6) & 0x3f);
    tripleBytes[at + 2] = 0x80 | (cp & 0x3f);
    return at + 3;
  }
  tripleBytes[at] = 0xf0 | (cp >> 18);
  tripleBytes[at + 1] = 0x80 | ((cp >> 12) & 0x3f);
  tripleBytes[at + 2] = 0x80 | ((cp >> 6) & 0x3f);
  tripleBytes[at + 3] = 0x80 | (cp & 0x3f);
  return at + 4;
}

/** The trigram code of three (already lower-cased) code points. */
function trigramCode(a: number, b: number, c: number): number {
  if ((a | b | c) < 0x80) return (a << 16) | (b << 8) | c;
  let n = putUtf8(a, 0);
  n = putUtf8(b, n);
  n = putUtf8(c, n);
  let crc = 0xffffffff;
  for (let i = 0; i < n; i++) crc = (CRC_TABLE[((crc >>> 24) ^ tripleBytes[i]!) & 0xff]! ^ (crc << 8)) >>> 0;
  crc = (crc ^ 0xffffffff) >>> 0;
  // PostgreSQL copies the CRC's first 3 bytes in memory (little-endian: the low ones).
  return ((crc & 0xff) << 16) | (crc & 0xff00) | ((crc >>> 16) & 0xff);
}

// Scratch reused across calls: padded lower-cased code points of one word, trigram codes.
let wordScratch = new Int32Array(128);
let codeScratch = new Int32Array(256);

/** Writes the (not yet deduplicated) trigram codes of `text` into codeScratch; returns the count. */
function collectTrigrams(text: string): number {
  let count = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    let cp = text.codePointAt(i)!;
    if (!isWordChar(cp)) {
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    let w = 2;
    wordScratch[0] = 32;
    wordScratch[1] = 32;
    while (i < length) {
      cp = text.codePointAt(i)!;
      if (!isWordChar(cp)) break;
      if (w + 2 > wordScratch.length) {
        const grown = new Int32Array(wordScratch.length * 2);
        grown.set(wordScratch);
        wordScratch = grown;
      }
      wordScratch[w++] = lowerChar(cp);
      i += cp > 0xffff ? 2 : 1;
    }
    wordScratch[w++] = 32;
    if (count + w > codeScratch.length) {
      const grown = new Int32Array(Math.max(codeScratch.length * 2, count + w));
      grown.set(codeScratch.subarray(0, count));
      codeScratch = grown;
    }
    for (let k = 0; k + 2 < w; k++) codeScratch[count++] = trigramCode(wordScratch[k]!, wordScratch[k + 1]!, wordScratch[k + 2]!);
  }
  return count;
}

/**
 * Whether all three bytes of a trigram code are below 0x80: the codes of three ASCII characters,
 * which is all a query of ASCII characters holds (a hashed code can land there too).
 */
export function isAsciiRangeCode(code: number): boolean {
  return (code & 0x808080) === 0;
}

/** The distinct trigram codes of `text`, ascending. */
export function trigramsOf(text: string): Int32Array {
  const count = collectTrigrams(text);
  if (count === 0) return new Int32Array(0);
  const sorted = codeScratch.subarray(0, count).sort();
  let unique = 1;
  for (let i = 1; i < count; i++) if (sorted[i] !== sorted[unique - 1]) sorted[unique++] = sorted[i]!;
  return sorted.slice(0, unique);
}

/** How many codes two ascending, duplicate-free code arrays share. */
export function commonTrigramCount(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      common++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return common;
}

/** pg_trgm's cnt_sml(): float4(common) / float4(countA + countB − common), 0 when a side is empty. */
export function similarityFromCounts(common: number, countA: number, countB: number): number {
  if (countA <= 0 || countB <= 0) return 0;
  // float4 ÷ float4 rounds the exact quotient to single precision; rounding through double
  // first gives the same float4 (53 ≥ 2·24 + 2), so this is PostgreSQL's value bit for bit.
  return Math.fround(common / (countA + countB - common));
}

/** PostgreSQL's `similarity(a, b)` (a float4, returned as the double of equal value). */
export function similarity(a: string, b: string): number {
  const ta = trigramsOf(a);
  const tb = trigramsOf(b);
  return similarityFromCounts(commonTrigramCount(ta, tb), ta.length, tb.length);
}

/**
 * roundScoreByText's answers to the scores that miss the fast path, by score: similarities of
 * small trigram counts land there often (1/8, 3/8, 7/40…) but they are few values, and the text
 * path costs ~1 µs each time. Bounded, so odd scores cannot grow it.
 */
const nearHalves = new Map<number, number>();
const NEAR_HALF_SCORES = 4096;

/**
 * PostgreSQL's `round(similarity(a, b)::numeric, 2)`: float4 → numeric keeps 6 significant
 * digits (`%.6g`), then numeric rounds half away from zero. Scores are in [0, 1].
 */
export function roundScore(score: number): number {
  // Fast path: %.6g moves a score in [0, 1] by at most 5e-7, so unless score × 100 lies within
  // 1e-4 of a half the textual rounding below gives the nearest hundredth, computed directly.
  const x = score * 100;
  const fraction = x - Math.floor(x);
  if (Math.abs(fraction - 0.5) > 1e-4 && x >= 0 && x <= 100) return Math.round(x) / 100;
  let rounded = nearHalves.get(score);
  if (rounded === undefined) {
    rounded = roundScoreByText(score);
    if (nearHalves.size < NEAR_HALF_SCORES) nearHalves.set(score, rounded);
  }
  return rounded;
}

/** roundScore step by step, as PostgreSQL does it (the fast path's reference, and its fallback near halves). */
export function roundScoreByText(score: number): number {
  const text = score.toPrecision(6);
  if (text.includes('e')) return 0; // below 1e-6
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  const digits = (fraction + '000').slice(0, 3);
  let hundredths = Number(whole) * 100 + Number(digits.slice(0, 2));
  if (digits.charCodeAt(2) >= 53 /* '5' */) hundredths++;
  return hundredths / 100;
}

function isPrintableTrigramByte(byte: number): boolean {
  return byte === 32 || (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122);
}

/** PostgreSQL's `show_trgm(text)`: the trigrams as text (hashed ones as 0x……), in its order. */
export function showTrgm(text: string): string[] {
  // PostgreSQL sorts the 3 bytes as signed chars.
  const signedKey = (code: number): number => code ^ 0x808080;
  const codes = Array.from(trigramsOf(text)).sort((x, y) => signedKey(x) - signedKey(y));
  return codes.map((code) => {
    const bytes = [code >>> 16, (code >>> 8) & 0xff, code & 0xff];
    return bytes.every(isPrintableTrigramByte) ? String.fromCharCode(...bytes) : `0x${code.toString(16).padStart(6, '0')}`;
  });
}
