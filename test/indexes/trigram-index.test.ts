import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArrayPackBuilder } from '../../runtime/format/array-pack.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { TrigramIndex, TrigramIndexBuilder, type TrigramField } from '../../runtime/indexes/trigram-index.js';
import { commonTrigramCount, similarity, similarityFromCounts, trigramsOf } from '../../runtime/text/trigram.js';
import { fullDatasetCities, ownBuffer, pick, prng, typo } from './helpers.js';

interface Doc {
  row: number;
  field: TrigramField;
  text: string;
}

function build(docs: Doc[]): TrigramIndex {
  const builder = new TrigramIndexBuilder();
  for (const d of docs) builder.add(d.row, d.field, d.text);
  return TrigramIndex.from(ownBuffer(builder.finish()));
}

/** Brute force: score every doc (with precomputed trigrams) and keep those ≥ threshold. */
function bruteForce(docs: { row: number; field: number; trigrams: Int32Array }[], query: string, threshold: number, rowStart = 0, rowEnd = Infinity): Map<string, number> {
  const q = trigramsOf(query);
  const out = new Map<string, number>();
  for (const d of docs) {
    if (d.row < rowStart || d.row >= rowEnd) continue;
    const score = similarityFromCounts(commonTrigramCount(q, d.trigrams), q.length, d.trigrams.length);
    if (score >= threshold && score > 0) out.set(`${d.row}/${d.field}`, score);
  }
  return out;
}

function searched(index: TrigramIndex, query: string, threshold: number, rowStart?: number, rowEnd?: number): Map<string, number> {
  const { docs, scores } = index.search(query, threshold, { ...(rowStart !== undefined ? { rowStart } : {}), ...(rowEnd !== undefined ? { rowEnd } : {}) });
  assert.equal(docs.length, scores.length);
  const out = new Map<string, number>();
  docs.forEach((doc, i) => {
    const key = `${index.docRow(doc)}/${index.docField(doc)}`;
    assert.ok(!out.has(key), `doc ${key} returned twice`);
    out.set(key, scores[i]!);
  });
  return out;
}

function assertSameAsBruteForce(index: TrigramIndex, docs: { row: number; field: number; trigrams: Int32Array }[], query: string, threshold: number, rowStart?: number, rowEnd?: number): void {
  const found = searched(index, query, threshold, rowStart, rowEnd);
  const expected = bruteForce(docs, query, threshold, rowStart, rowEnd);
  const where = `search(${JSON.stringify(query)}, ${threshold}${rowStart !== undefined ? `, rows ${rowStart}..${rowEnd}` : ''})`;
  const missing = [...expected.keys()].filter((k) => !found.has(k)).slice(0, 5);
  const extra = [...found.keys()].filter((k) => !expected.has(k)).slice(0, 5);
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, where);
  for (const [key, score] of expected) assert.equal(found.get(key), score, `${where}: score of ${key}`);
}

/**
 * What searchTop() must return, from brute force: every doc scoring ≥ s, where s is the k-th best
 * row score (a row scores its best doc) when at least k rows reach the threshold, else the threshold.
 */
function bruteForceTop(docs: { row: number; field: number; trigrams: Int32Array }[], query: string, threshold: number, k: number, rowStart = 0, rowEnd = Infinity): Map<string, number> {
  const all = bruteForce(docs, query, threshold, rowStart, rowEnd);
  const rowBest = new Map<number, number>();
  for (const [key, score] of all) {
    const row = Number(key.split('/')[0]);
    rowBest.set(row, Math.max(rowBest.get(row) ?? 0, score));
  }
  const rowScores = [...rowBest.values()].sort((a, b) => b - a);
  const bar = rowScores.length >= k ? rowScores[k - 1]! : threshold;
  return new Map([...all].filter(([, score]) => score >= bar));
}

function searchedTop(index: TrigramIndex, query: string, threshold: number, k: number, rowStart?: number, rowEnd?: number): Map<string, number> {
  const { docs, scores } = index.searchTop(query, threshold, k, { ...(rowStart !== undefined ? { rowStart } : {}), ...(rowEnd !== undefined ? { rowEnd } : {}) });
  assert.equal(docs.length, scores.length);
  const out = new Map<string, number>();
  docs.forEach((doc, i) => {
    const key = `${index.docRow(doc)}/${index.docField(doc)}`;
    assert.ok(!out.has(key), `doc ${key} returned twice`);
    out.set(key, scores[i]!);
  });
  return out;
}

function assertTopSameAsBruteForce(index: TrigramIndex, docs: { row: number; field: number; trigrams: Int32Array }[], query: string, threshold: number, k: number, rowStart?: number, rowEnd?: number): void {
  const found = searchedTop(index, query, threshold, k, rowStart, rowEnd);
  const expected = bruteForceTop(docs, query, threshold, k, rowStart, rowEnd);
  // The floor it reports: the bar brute force finds (every doc at or above it is returned).
  const { floor } = index.searchTop(query, threshold, k, { ...(rowStart !== undefined ? { rowStart } : {}), ...(rowEnd !== undefined ? { rowEnd } : {}) });
  const all = bruteForce(docs, query, threshold, rowStart, rowEnd);
  assert.ok(floor >= threshold, `floor ${floor} below the threshold ${threshold}`);
  for (const [key, score] of all) if (score >= floor) assert.ok(found.has(key), `searchTop(${JSON.stringify(query)}, ${threshold}, k=${k}): ${key} scores ${score} ≥ its floor ${floor} but is missing`);
  const where = `searchTop(${JSON.stringify(query)}, ${threshold}, k=${k}${rowStart !== undefined ? `, rows ${rowStart}..${rowEnd}` : ''})`;
  const missing = [...expected.keys()].filter((key) => !found.has(key)).slice(0, 5);
  const extra = [...found.keys()].filter((key) => !expected.has(key)).slice(0, 5);
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, where);
  for (const [key, score] of expected) assert.equal(found.get(key), score, `${where}: score of ${key}`);
}

/** `rows` names of 1 to 3 of `words`, and for about 30 % of them a native name with a typo. */
function randomDocs(random: () => number, words: readonly string[], rows: number): Doc[] {
  const docs: Doc[] = [];
  for (let row = 0; row < rows; row++) {
    const text = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, words)).join(' ');
    docs.push({ row, field: 0, text });
    if (random() < 0.3) docs.push({ row, field: 1, text: typo(random, text) });
  }
  return docs;
}

/** Five random lowercase letters: a word whose trigrams few other docs share. */
function randomWord(random: () => number): string {
  return Array.from({ length: 5 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
}

/** Flags each doc with probability `share`: the flags (excludedDocs) and the (row/field) keys flagged. */
function randomExclusion(random: () => number, index: TrigramIndex, share: number): { excludedDocs: Uint8Array; excludedKeys: Set<string> } {
  const excludedDocs = new Uint8Array(index.docCount);
  const excludedKeys = new Set<string>();
  for (let doc = 0; doc < index.docCount; doc++) {
    if (random() < share) {
      excludedDocs[doc] = 1;
      excludedKeys.add(`${index.docRow(doc)}/${index.docField(doc)}`);
    }
  }
  return { excludedDocs, excludedKeys };
}

function withTrigramsOf(docs: Doc[]): { row: number; field: number; trigrams: Int32Array }[] {
  return docs.map((d) => ({ row: d.row, field: d.field, trigrams: trigramsOf(d.text) })).filter((d) => d.trigrams.length > 0);
}

const NAMES = ['London', 'Londonderry', 'New London', 'Lyon', 'Londrina', 'São Paulo', 'Sao Paulo', 'Paulo Afonso', 'Saint-Paul', 'San Pablo', 'Москва', 'Моска', 'Zürich', 'Zurich', 'Zug', '東京', '京都', 'القاهرة', "Côte d'Ivoire", 'Ivory Coast', 'New York', 'York', 'Yorkshire', 'Newark', 'A', '--', 'St. Louis', 'Saint Louis'];

describe('TrigramIndex', () => {
  it('round-trips: the read index holds every doc with its row, field and trigram count', () => {
    const docs: Doc[] = NAMES.map((text, i) => ({ row: i >> 1, field: (i & 1) as TrigramField, text }));
    const builder = new TrigramIndexBuilder();
    for (const d of docs) builder.add(d.row, d.field, d.text);
    const bytes = builder.finish();
    const a = TrigramIndex.from(ownBuffer(bytes));
    const b = TrigramIndex.from(ownBuffer(bytes, true));
    // Numbered by trigram count (the posting's group), then in (row, field) order.
    const trigramCount = (d: Doc): number => trigramsOf(d.text).length;
    const withTrigrams = docs.filter((d) => trigramCount(d) > 0).sort((x, y) => trigramCount(x) - trigramCount(y) || x.row - y.row || x.field - y.field);
    assert.equal(a.docCount, withTrigrams.length);
    withTrigrams.forEach((d, doc) => {
      assert.equal(a.docRow(doc), d.row);
      assert.equal(a.docField(doc), d.field);
      assert.equal(a.docTrigramCount(doc), trigramsOf(d.text).length);
    });
    assert.deepEqual(searched(a, 'londn', 0.2), searched(b, 'londn', 0.2));
  });

  it('scores with pg_trgm similarity() of query and doc text', () => {
    const index = build(NAMES.map((text, row) => ({ row, field: 0, text })));
    const found = searched(index, 'Londn', 0.1);
    assert.equal(found.get('0/0'), similarity('Londn', 'London'));
    assert.ok(found.get('0/0')! > found.get('1/0')!);
  });

  it('skips docs without trigrams and returns nothing for a query without trigrams', () => {
    const index = build([{ row: 0, field: 0, text: '--' }, { row: 1, field: 0, text: 'Lima' }]);
    assert.equal(index.docCount, 1);
    assert.equal(index.search('!!', 0.1).docs.length, 0);
  });

  it('refuses thresholds outside (0, 1] and a payload that is not a trigram index', () => {
    const index = build([{ row: 0, field: 0, text: 'Lima' }]);
    for (const bad of [0, -0.5, 1.5, NaN]) assert.throws(() => index.search('lima', bad), RangeError);
    assert.throws(() => TrigramIndex.from(new ArrayBuffer(8)), SnapshotFormatError);
    assert.throws(() => new TrigramIndexBuilder().add(0, 0, 'a').add(0, 0, 'b').finish(), /one document per/);
  });

  it('refuses docs numbered in row order alone (snapshot format 4), naming the first doc out of order', () => {
    // Row 0 "Lima" (5 trigrams) before row 1 "Li" (3): format 4's order; format 5 puts "Li" first.
    const codes = Int32Array.of(1);
    const pack = new ArrayPackBuilder().add(codes).add(Int32Array.of(0, 2)).add(Int32Array.of((3 << 24) | 1, (5 << 24) | 0));
    const bytes = pack.add(Int32Array.of(0, 1)).add(Uint8Array.of(0, 0)).add(Uint16Array.of(5, 3)).finish();
    assert.throws(() => TrigramIndex.from(ownBuffer(bytes), 0, 'trigram.cities'), (error: Error) => {
      assert.ok(error instanceof SnapshotFormatError);
      assert.match(error.message, /^trigram\.cities: expected docs by trigram count \(up to 127\) then row, found doc 1 \(row 1, group 3\) after row 0 of group 5$/);
      return true;
    });
  });

  it('finds exactly the docs brute force finds, with the same scores, for random typo queries and thresholds 0.1–1', () => {
    const random = prng(21);
    const words = ['san', 'santa', 'maria', 'new', 'york', 'port', 'saint', 'louis', 'london', 'lyon', 'paulo', 'são', 'del', 'rio', 'de', 'la', 'москва', 'ново', 'город', '東京', '市', 'el', 'al', 'qahira', 'zurich', 'zürich', 'o’higgins'];
    const docs: Doc[] = [];
    for (let row = 0; row < 1500; row++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, words)).join(pick(random, [' ', '-', ' ']));
      docs.push({ row, field: 0, text });
      if (random() < 0.3) docs.push({ row, field: 1, text: typo(random, text) });
    }
    const index = build(docs);
    const withTrigrams = docs.map((d) => ({ row: d.row, field: d.field, trigrams: trigramsOf(d.text) }));
    for (let i = 0; i < 150; i++) {
      const query = random() < 0.8 ? typo(random, pick(random, docs).text) : pick(random, words).slice(0, 2);
      const threshold = pick(random, [0.1, 0.2, 0.3, 0.3, 0.45, 0.5, 0.7, 0.9, 1]);
      assertSameAsBruteForce(index, withTrigrams, query, threshold);
    }
  });

  it('restricts to a row range exactly as filtering brute force by row does', () => {
    const random = prng(22);
    const docs: Doc[] = Array.from({ length: 800 }, (_, row) => ({ row, field: 0, text: pick(random, NAMES) }));
    const index = build(docs);
    const withTrigrams = docs.map((d) => ({ row: d.row, field: d.field, trigrams: trigramsOf(d.text) }));
    for (const [start, end] of [[0, 800], [0, 1], [100, 300], [799, 800], [400, 400], [-5, 10_000]] as const) {
      assertSameAsBruteForce(index, withTrigrams, 'londn', 0.2, start, end);
      assertSameAsBruteForce(index, withTrigrams, 'san paolo', 0.1, start, end);
    }
  });

  it('adopts the long lists’ bitmaps and group starts built by another instance (shared round trip) and still finds exactly what brute force finds', () => {
    const random = prng(23);
    const words = ['san', 'santa', 'maria', 'new', 'york', 'port', 'saint', 'louis', 'london', 'paulo', 'são', 'del', 'rio', 'москва', '東京'];
    const docs = randomDocs(random, words, 6000);
    const builder = new TrigramIndexBuilder();
    for (const d of docs) builder.add(d.row, d.field, d.text);
    const payload = ownBuffer(builder.finish());
    const shared = TrigramIndex.from(payload).sharedLongLists();
    assert.ok(shared instanceof SharedArrayBuffer);
    const adopting = TrigramIndex.from(payload);
    adopting.useLongLists(shared);
    const withTrigrams = docs.map((d) => ({ row: d.row, field: d.field, trigrams: trigramsOf(d.text) }));
    for (let i = 0; i < 60; i++) {
      const query = random() < 0.8 ? typo(random, pick(random, docs).text) : pick(random, words);
      const threshold = pick(random, [0.1, 0.2, 0.3, 0.5, 0.9]);
      assertSameAsBruteForce(adopting, withTrigrams, query, threshold);
      assertTopSameAsBruteForce(adopting, withTrigrams, query, threshold, pick(random, [1, 10]));
    }
    // Those of another index (other docs, other long lists) are refused, naming what differs.
    const other = build(docs.slice(0, 5000));
    assert.throws(() => other.useLongLists(shared), {
      name: SnapshotFormatError.name,
      message: /^trigram long lists: expected header \[layout, docs, bitmap min postings, group starts min postings\] \[3,\d+,2048,64\], found \[3,\d+,2048,64\]$/,
    });
  });

  it('finds each query trigram’s list through its code directory (4,096 codes or more), its own or another instance’s, exactly as brute force', () => {
    const random = prng(31);
    // Random five-letter words: 6,000 rows of 1–3 of them hold far more than 4,096 distinct codes.
    const words = Array.from({ length: 2500 }, () => randomWord(random));
    const docs = randomDocs(random, words, 6000);
    const index = build(docs);
    assert.ok(index.codeCount >= 4096, `${index.codeCount} codes`);
    const adopting = build(docs);
    adopting.useLongLists(index.sharedLongLists());
    const withTrigrams = withTrigramsOf(docs);
    for (let i = 0; i < 80; i++) {
      const query = random() < 0.8 ? typo(random, pick(random, docs).text) : `${pick(random, words)} ${randomWord(random)}`;
      const threshold = pick(random, [0.1, 0.3, 0.5, 0.9]);
      const searched = i % 2 === 0 ? index : adopting;
      assertSameAsBruteForce(searched, withTrigrams, query, threshold);
      assertTopSameAsBruteForce(searched, withTrigrams, query, threshold, pick(random, [1, 10]));
    }
    // An index of as many docs, no long lists either, but other codes refuses that directory.
    const other = build(docs.map((d) => ({ ...d, text: d.text.slice(0, -1) })));
    assert.equal(other.docCount, index.docCount);
    assert.throws(() => other.useLongLists(index.sharedLongLists()), {
      name: SnapshotFormatError.name,
      message: new RegExp(`^trigram long lists: expected a code directory of 16385 entries ending at ${other.codeCount} codes, found 16385 ending at ${index.codeCount}$`),
    });
  });

  it('refuses trigram codes that are not distinct, ascending and 24-bit, naming the first one out of place', () => {
    for (const [codes, found] of [
      [Int32Array.of(5, 5), 'found 5 at slot 1 after 5'],
      [Int32Array.of(7, 3), 'found 3 at slot 1 after 7'],
      [Int32Array.of(1 << 24), `found ${1 << 24} at slot 0`],
    ] as const) {
      // One doc (3 trigrams) in every list: only the codes are wrong.
      const postingStarts = Int32Array.from({ length: codes.length + 1 }, (_, slot) => slot);
      const postings = new Int32Array(codes.length).fill((3 << 24) | 0);
      const bytes = new ArrayPackBuilder().add(codes).add(postingStarts).add(postings).add(Int32Array.of(0)).add(Uint8Array.of(0)).add(Uint16Array.of(3)).finish();
      assert.throws(() => TrigramIndex.from(ownBuffer(bytes), 0, 'trigram.cities'), {
        name: SnapshotFormatError.name,
        message: `trigram.cities: expected distinct 24-bit trigram codes, ascending, ${found}`,
      });
    }
  });

  it('reuses its scratch between calls without leaking counts', () => {
    const index = build(NAMES.map((text, row) => ({ row, field: 0, text })));
    const first = searched(index, 'new york', 0.3);
    searched(index, 'york', 0.1);
    searched(index, 'saint louis', 0.9);
    assert.deepEqual(searched(index, 'new york', 0.3), first);
  });

  it('shares its per-doc scratch with the thread\'s other indexes, smaller and larger, without leaking counts', () => {
    const small = build(NAMES.map((text, row) => ({ row, field: 0, text })));
    const large = build(Array.from({ length: 5000 }, (_, row) => ({ row, field: 0 as const, text: `${NAMES[row % NAMES.length]} ${row}` })));
    const first = { small: searched(small, 'new york', 0.3), large: searched(large, 'new york 12', 0.3), low: searched(large, 'saint', 0.1) };
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(searched(small, 'new york', 0.3), first.small);
      assert.deepEqual(searched(large, 'new york 12', 0.3), first.large);
      assert.deepEqual(searched(large, 'saint', 0.1), first.low);
      searched(small, 'york', 0.1);
    }
  });

  it('searchInPlace leaves what search and searchTop return in its result arrays, until the next search', () => {
    const index = build(NAMES.map((text, row) => ({ row, field: 0, text })));
    const inPlace = (k: number) => {
      const count = index.searchInPlace('saint paulo', 0.1, k, {});
      return { docs: index.resultDocs.slice(0, count), scores: Float64Array.from(index.resultScores.subarray(0, count)), floor: index.resultFloor };
    };
    assert.deepEqual(inPlace(0), index.search('saint paulo', 0.1));
    assert.deepEqual(inPlace(2), index.searchTop('saint paulo', 0.1, 2));
    assert.ok(inPlace(2).floor > 0.1, 'a top-2 search raises its floor here');
    assert.equal(index.searchInPlace('qqqq', 0.5, 0, {}), 0);
    assert.equal(index.resultFloor, 0.5);
  });

  it('searchTop returns exactly the docs that can rank among the first k rows, for random queries, thresholds, k and row ranges', () => {
    const random = prng(31);
    const words = ['san', 'santa', 'maria', 'new', 'york', 'port', 'saint', 'louis', 'london', 'lyon', 'paulo', 'são', 'del', 'rio', 'de', 'la', 'москва', 'ново', 'город', '東京', '市', 'el', 'al', 'zurich', 'zürich'];
    const docs: Doc[] = [];
    for (let row = 0; row < 6000; row++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, words)).join(pick(random, [' ', '-']));
      docs.push({ row, field: 0, text });
      if (random() < 0.3) docs.push({ row, field: 1, text: random() < 0.5 ? text : typo(random, text) });
    }
    const index = build(docs);
    const withTrigrams = withTrigramsOf(docs);
    // Common trigrams' lists are long enough (≥ 2048 docs) to be checked through their bitmaps.
    const docFrequency = new Map<number, number>();
    for (const d of withTrigrams) for (const code of d.trigrams) docFrequency.set(code, (docFrequency.get(code) ?? 0) + 1);
    assert.ok(Math.max(...docFrequency.values()) >= 2048, 'some posting list holds 2048 docs or more');
    for (let i = 0; i < 200; i++) {
      const query = random() < 0.8 ? typo(random, pick(random, docs).text) : pick(random, words).slice(0, 3);
      const threshold = pick(random, [0.1, 0.2, 0.3, 0.3, 0.45, 0.6, 1]);
      const k = pick(random, [1, 2, 5, 10, 10, 50, 5000]);
      if (random() < 0.3) {
        const start = Math.floor(random() * 6000);
        assertTopSameAsBruteForce(index, withTrigrams, query, threshold, k, start, start + Math.floor(random() * 2000));
      } else {
        assertTopSameAsBruteForce(index, withTrigrams, query, threshold, k);
      }
    }
  });

  it('search and searchTop with excludedDocs answer as if the excluded docs were not indexed', () => {
    const random = prng(37);
    const words = ['san', 'santa', 'maria', 'new', 'york', 'port', 'saint', 'louis', 'london', 'lyon', 'são', 'del', 'rio', 'zurich', 'zürich'];
    const docs = randomDocs(random, words, 3000);
    const index = build(docs);
    const withTrigrams = withTrigramsOf(docs);
    const { excludedDocs, excludedKeys } = randomExclusion(random, index, 0.4);
    const kept = withTrigrams.filter((d) => !excludedKeys.has(`${d.row}/${d.field}`));
    for (let i = 0; i < 100; i++) {
      const query = typo(random, pick(random, docs).text);
      const threshold = pick(random, [0.1, 0.2, 0.3, 0.6]);
      const k = pick(random, [1, 5, 10, 100]);
      const top = index.searchTop(query, threshold, k, { excludedDocs });
      const found = new Map<string, number>();
      top.docs.forEach((doc, j) => found.set(`${index.docRow(doc)}/${index.docField(doc)}`, top.scores[j]!));
      assert.deepEqual(found, bruteForceTop(kept, query, threshold, k), `searchTop(${JSON.stringify(query)}, ${threshold}, k=${k}) without the excluded docs`);
      const all = index.search(query, threshold, { excludedDocs });
      const foundAll = new Map<string, number>();
      all.docs.forEach((doc, j) => foundAll.set(`${index.docRow(doc)}/${index.docField(doc)}`, all.scores[j]!));
      assert.deepEqual(foundAll, bruteForce(kept, query, threshold), `search(${JSON.stringify(query)}, ${threshold}) without the excluded docs`);
    }
    assert.throws(() => index.search('york', 0.3, { excludedDocs: new Uint8Array(1) }), /expected excludedDocs of \d+ docs, found 1/);
  });

  it('subset() is the index finish() builds from the kept docs alone: same docs, same answers as brute force over them, row ranges and searchTop included', () => {
    const random = prng(41);
    const words = ['san', 'santa', 'maria', 'new', 'york', 'port', 'saint', 'louis', 'são', 'zürich', 'zurich', 'köln', randomWord(random), randomWord(random)];
    const docs = randomDocs(random, words, 3000);
    const index = build(docs);
    const { excludedDocs: dropped, excludedKeys: droppedKeys } = randomExclusion(random, index, 0.7);
    const kept = dropped.map((flag) => flag ^ 1);
    const subset = TrigramIndex.from(index.subset(kept));
    const keptDocs = withTrigramsOf(docs).filter((d) => !droppedKeys.has(`${d.row}/${d.field}`));
    // The same docs, numbered by trigram count (127 or more together), then in (row, field) order,
    // with their trigram counts; and the same bytes finish() makes of them.
    assert.equal(subset.docCount, keptDocs.length);
    const numbered = [...keptDocs].sort((a, b) => Math.min(a.trigrams.length, 127) - Math.min(b.trigrams.length, 127) || a.row - b.row || a.field - b.field);
    numbered.forEach((d, doc) => assert.deepEqual([subset.docRow(doc), subset.docField(doc), subset.docTrigramCount(doc)], [d.row, d.field, d.trigrams.length], `doc ${doc}`));
    const rebuilt = new TrigramIndexBuilder();
    for (const d of keptDocs) rebuilt.addTrigrams(d.row, d.field as TrigramField, d.trigrams);
    assert.deepEqual(new Uint8Array(index.subset(kept)), rebuilt.finish());
    for (let i = 0; i < 60; i++) {
      const query = typo(random, pick(random, docs).text);
      const threshold = pick(random, [0.1, 0.2, 0.3, 0.6]);
      assertSameAsBruteForce(subset, keptDocs, query, threshold);
      const rowStart = Math.floor(random() * 3000);
      assertSameAsBruteForce(subset, keptDocs, query, threshold, rowStart, rowStart + 1 + Math.floor(random() * 400));
      assertTopSameAsBruteForce(subset, keptDocs, query, threshold, pick(random, [1, 5, 10]));
    }
    // Every doc or none kept.
    assert.equal(TrigramIndex.from(index.subset(new Uint8Array(index.docCount).fill(1))).docCount, index.docCount);
    const empty = TrigramIndex.from(index.subset(new Uint8Array(index.docCount)));
    assert.equal(empty.docCount, 0);
    assert.equal(empty.search('york', 0.1).docs.length, 0);
    assert.throws(() => index.subset(new Uint8Array(1)), /expected \d+ doc flags, found 1/);
  });

  it('codesOutside() lists exactly the trigram codes that some doc not kept holds, ascending', () => {
    const random = prng(43);
    const docs = randomDocs(random, ['são', 'paulo', 'zürich', 'zurich', 'köln', 'koln', 'москва', 'new', 'york', randomWord(random)], 800);
    const index = build(docs);
    const { excludedDocs: notKept, excludedKeys } = randomExclusion(random, index, 0.5);
    const expected = new Set<number>();
    for (const d of withTrigramsOf(docs)) if (excludedKeys.has(`${d.row}/${d.field}`)) for (const code of d.trigrams) expected.add(code);
    assert.deepEqual([...index.codesOutside(notKept.map((flag) => flag ^ 1))], [...expected].sort((a, b) => a - b));
    assert.deepEqual([...index.codesOutside(new Uint8Array(index.docCount).fill(1))], []);
    assert.throws(() => index.codesOutside(new Uint8Array(2)), /expected \d+ doc flags, found 2/);
  });

  it('searchTop keeps every doc tied with the k-th best row, and a row’s other doc only when it reaches that score', () => {
    // 40 rows named exactly "Santa Maria" tie at 1; k = 5 must return all 40 (the caller breaks ties).
    const docs: Doc[] = [];
    for (let row = 0; row < 40; row++) docs.push({ row, field: 0, text: 'Santa Maria' });
    for (let row = 40; row < 60; row++) docs.push({ row, field: 0, text: 'Santa Mariana' }, { row, field: 1, text: 'Santa Maria' });
    for (let row = 60; row < 300; row++) docs.push({ row, field: 0, text: `Santa ${['Marta', 'Rosa', 'Ana', 'Maria del Mar'][row % 4]}` });
    const index = build(docs);
    const withTrigrams = withTrigramsOf(docs);
    const top5 = searchedTop(index, 'Santa Maria', 0.3, 5);
    assert.equal([...top5.values()].filter((s) => s === 1).length, 60); // 40 names + 20 natives scoring 1
    assert.ok(!top5.has('40/0'), 'a name below the k-th score is left out even though its native is in');
    for (const k of [1, 5, 59, 60, 61, 100, 290]) {
      assertTopSameAsBruteForce(index, withTrigrams, 'Santa Maria', 0.3, k);
      assertTopSameAsBruteForce(index, withTrigrams, 'santa marta', 0.2, k);
      assertTopSameAsBruteForce(index, withTrigrams, 'Santa Maria', 0.3, k, 30, 70);
    }
  });

  it('answers queries with more posting lists than it counts per doc (over 255 distinct trigrams) exactly', () => {
    const random = prng(32);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const word = () => Array.from({ length: 3 + Math.floor(random() * 6) }, () => pick(random, [...letters])).join('');
    const long = Array.from({ length: 120 }, word).join(' ');
    const docs: Doc[] = [{ row: 0, field: 0, text: long }];
    for (let row = 1; row < 300; row++) docs.push({ row, field: 0, text: random() < 0.5 ? typo(random, long) : Array.from({ length: 1 + Math.floor(random() * 40) }, word).join(' ') });
    const index = build(docs);
    const withTrigrams = withTrigramsOf(docs);
    assert.ok(trigramsOf(long).length > 255, `expected a query of more than 255 trigrams, found ${trigramsOf(long).length}`);
    for (const threshold of [0.1, 0.3, 0.9]) {
      assertSameAsBruteForce(index, withTrigrams, long, threshold);
      for (const k of [1, 3, 50]) assertTopSameAsBruteForce(index, withTrigrams, long, threshold, k);
      // Over a row range too (runWide reads each group's doc range).
      assertSameAsBruteForce(index, withTrigrams, long, threshold, 0, 150);
      assertSameAsBruteForce(index, withTrigrams, long, threshold, 40, 220);
      assertTopSameAsBruteForce(index, withTrigrams, long, threshold, 3, 40, 220);
    }
  });

  it('finds exactly what brute force finds when docs of every length share the common trigrams (postings grouped by trigram count, longest docs in one group)', () => {
    const random = prng(41);
    const words = ['san', 'sant', 'santa', 'saint', 'sa', 'salt', 'maria', 'mar', 'del', 'de', 'la', 'rio', 'porto', 'nova', 'nuevo', 'ost', 'west', 'cruz', 'jose', 'anna'];
    const docs: Doc[] = [];
    for (let row = 0; row < 9000; row++) {
      // Mostly 1–4 words; some very long names of common and random words (many over 127
      // distinct trigrams: the last group holds them all).
      const text = random() < 0.03
        ? Array.from({ length: 10 + Math.floor(random() * 30) }, () => (random() < 0.3 ? pick(random, words) : randomWord(random))).join(' ')
        : Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(random, words)).join(' ');
      docs.push({ row, field: 0, text });
      if (random() < 0.2) docs.push({ row, field: 1, text: typo(random, text) });
    }
    const index = build(docs);
    const withTrigrams = withTrigramsOf(docs);
    assert.ok(withTrigrams.some((d) => d.trigrams.length > 127), 'some doc has more than 127 trigrams');
    const docFrequency = new Map<number, number>();
    for (const d of withTrigrams) for (const code of d.trigrams) docFrequency.set(code, (docFrequency.get(code) ?? 0) + 1);
    assert.ok([...docFrequency.values()].filter((n) => n >= 2048).length >= 3, 'several posting lists hold 2048 docs or more');
    const long = withTrigrams.find((d) => d.trigrams.length > 127)!;
    const longText = docs.find((d) => d.row === long.row && d.field === long.field)!.text;
    const queries = ['sa', 'san', 'sant', 'santa m', 'san jose', 'maria del rio', longText, typo(random, longText)];
    for (let i = 0; i < 60; i++) queries.push(random() < 0.7 ? typo(random, pick(random, docs).text) : pick(random, words));
    for (const query of queries) {
      const threshold = pick(random, [0.1, 0.2, 0.2, 0.3, 0.5, 0.8]);
      assertSameAsBruteForce(index, withTrigrams, query, threshold);
      assertTopSameAsBruteForce(index, withTrigrams, query, threshold, pick(random, [1, 10, 10, 50]));
      const start = Math.floor(random() * 9000);
      assertTopSameAsBruteForce(index, withTrigrams, query, threshold, 10, start, start + Math.floor(random() * 3000));
      assertSameAsBruteForce(index, withTrigrams, query, threshold, start, start + Math.floor(random() * 3000));
    }
  });

  it('searchTop over every doc of a large index, group by group for queries of any length below threshold 0.25, up to 28 trigrams below 0.4 and 18 from it, answers as brute force, with its own long lists or another instance’s: thresholds from 0.05 to 1, rounded tie floors, excluded docs, docs of every length', () => {
    const random = prng(43);
    const words = ['san', 'sant', 'santa', 'saint', 'sa', 'maria', 'mar', 'del', 'de', 'la', 'rio', 'nova', 'cruz', 'são', 'zürich', 'москва'];
    const docs: Doc[] = [];
    // Over 65,536 docs (GROUPED_MIN_DOCS): smaller indexes keep the single pass.
    for (let row = 0; row < 52_000; row++) {
      // Some names over 127 distinct trigrams (the last group): at 0.05 a short query can reach them.
      const long = random() < 0.02;
      const parts = long ? [...Array.from({ length: 30 + Math.floor(random() * 20) }, () => randomWord(random)), 'santa', 'maria'] : Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, words));
      docs.push({ row, field: 0, text: parts.join(' ') });
      if (random() < 0.3) docs.push({ row, field: 1, text: typo(random, parts.join(' ')) });
    }
    const index = build(docs);
    const withTrigrams = withTrigramsOf(docs);
    assert.ok(withTrigrams.some((d) => d.trigrams.length > 127), 'some doc has more than 127 trigrams');
    assert.ok(index.docCount >= 65_536, `${index.docCount} docs`);
    // Half the queries go to an instance that adopted the first one's bitmaps and group starts.
    const adopting = build(docs);
    adopting.useLongLists(index.sharedLongLists());
    const { excludedDocs, excludedKeys } = randomExclusion(random, index, 0.2);
    // Rounded to 2 decimals, as autocomplete ranks: every doc whose rounded score ties the k-th row's.
    const roundedTieFloor = (kth: number): number => Math.round(kth * 100) / 100 - 0.005;
    const shortDocs = docs.filter((d) => d.text.length < 40);
    // Over 127 trigrams, and at most 255 lists (more take runWide()).
    const longDocs = docs.filter((d) => d.text.length >= 150 && d.text.length < 230);
    // [trigrams, threshold] of each query.
    const asked: [number, number][] = [];
    for (let i = 0; i < 150; i++) {
      const draw = random();
      // Mostly a typo'd name, some single words, some two or three names run together (19–40
      // trigrams), and some long names (over 127 trigrams: the last group holds their docs).
      const query =
        draw < 0.5
          ? typo(random, pick(random, shortDocs).text)
          : draw < 0.7
            ? pick(random, words)
            : draw < 0.9
              ? typo(random, Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(random, shortDocs).text).join(' '))
              : typo(random, pick(random, longDocs).text);
      const threshold = pick(random, [0.05, 0.1, 0.2, 0.2, 0.2, 0.3, 0.3, 0.35, 0.45, 0.7, 1]);
      asked.push([trigramsOf(query).length, threshold]);
      const k = pick(random, [1, 3, 10, 10, 100]);
      const excluded = random() < 0.3;
      const tieFloor = random() < 0.5 ? roundedTieFloor : undefined;
      const top = (i % 2 === 0 ? index : adopting).searchTop(query, threshold, k, { excludedDocs: excluded ? excludedDocs : undefined, tieFloor });
      const kept = excluded ? withTrigrams.filter((d) => !excludedKeys.has(`${d.row}/${d.field}`)) : withTrigrams;
      const all = bruteForce(kept, query, threshold);
      const rowBest = new Map<number, number>();
      for (const [key, score] of all) rowBest.set(Number(key.split('/')[0]), Math.max(rowBest.get(Number(key.split('/')[0])) ?? 0, score));
      const rowScores = [...rowBest.values()].sort((a, b) => b - a);
      const bar = rowScores.length >= k ? Math.max(threshold, tieFloor ? tieFloor(rowScores[k - 1]!) : rowScores[k - 1]!) : threshold;
      const found = new Map<string, number>();
      top.docs.forEach((doc, j) => found.set(`${index.docRow(doc)}/${index.docField(doc)}`, top.scores[j]!));
      const where = `searchTop(${JSON.stringify(query)}, ${threshold}, k=${k}${tieFloor ? ', rounded ties' : ''}${excluded ? ', excluded docs' : ''})`;
      assert.deepEqual(found, new Map([...all].filter(([, score]) => score >= bar)), where);
      assert.equal(top.floor, bar, `${where}: floor`);
    }
    // Both ways (groupedMaxTrigrams): group by group for long queries below 0.25, over 127
    // trigrams too, and for 19–28 trigrams below 0.4; the single pass beyond those lengths.
    const seen = (test: (n: number, threshold: number) => boolean): boolean => asked.some(([n, threshold]) => test(n, threshold));
    const summary = asked.map(([n, threshold]) => `${n}@${threshold}`).join(' ');
    assert.ok(seen((n, t) => t < 0.25 && n > 28 && n <= 127), summary);
    assert.ok(seen((n, t) => t < 0.25 && n > 127 && n <= 255), summary);
    assert.ok(seen((n, t) => t >= 0.25 && t < 0.4 && n > 18 && n <= 28), summary);
    assert.ok(seen((n, t) => t >= 0.25 && t < 0.4 && n > 28), summary);
    assert.ok(seen((n, t) => t >= 0.4 && n > 18), summary);
  });

  it('searchTop refuses a k that is not a positive integer', () => {
    const index = build([{ row: 0, field: 0, text: 'Lima' }]);
    for (const bad of [0, -1, 1.5, NaN]) assert.throws(() => index.searchTop('lima', 0.3, bad), RangeError);
    assert.throws(() => index.searchTop('lima', 0, 1), RangeError);
  });

  it('finds exactly what brute force finds over the full dataset’s city names and natives', (t) => {
    const cities = fullDatasetCities();
    if (!cities) return t.skip('full dataset absent');
    const builder = new TrigramIndexBuilder();
    const docs: { row: number; field: number; trigrams: Int32Array }[] = [];
    cities.forEach((c, row) => {
      const name = trigramsOf(c.name);
      builder.addTrigrams(row, 0, name);
      if (name.length > 0) docs.push({ row, field: 0, trigrams: name });
      if (c.native) {
        const native = trigramsOf(c.native);
        builder.addTrigrams(row, 1, native);
        if (native.length > 0) docs.push({ row, field: 1, trigrams: native });
      }
    });
    const index = TrigramIndex.from(ownBuffer(builder.finish()));
    const random = prng(23);
    for (let i = 0; i < 30; i++) {
      const city = pick(random, cities);
      const query = typo(random, random() < 0.8 || !city.native ? city.name : city.native);
      assertSameAsBruteForce(index, docs, query, pick(random, [0.1, 0.3, 0.3, 0.5, 0.8]));
    }
    assertSameAsBruteForce(index, docs, 'san', 0.1);
    assertSameAsBruteForce(index, docs, 'londn', 0.3, 40_000, 60_000);
    // searchTop as the API uses it (k = the page size), ties at the k-th row included.
    for (let i = 0; i < 30; i++) {
      const city = pick(random, cities);
      const query = typo(random, random() < 0.8 || !city.native ? city.name : city.native);
      assertTopSameAsBruteForce(index, docs, query, pick(random, [0.1, 0.3, 0.3, 0.5]), pick(random, [1, 10, 10, 50]));
    }
    assertTopSameAsBruteForce(index, docs, 'San Jose', 0.3, 10);
    assertTopSameAsBruteForce(index, docs, 'santa', 0.3, 10, 40_000, 60_000);
    // As autocomplete's fills ask: typed prefixes at 0.2 (short ones go group by group).
    for (let i = 0; i < 20; i++) {
      const name = pick(random, cities).name;
      assertTopSameAsBruteForce(index, docs, name.slice(0, 3 + Math.floor(random() * 6)), 0.2, 10);
    }
  });
});
