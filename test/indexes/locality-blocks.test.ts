// Locality blocks (runtime/indexes/locality-blocks.ts): a country's postcode localities in blocks,
// with the blocks holding each hashed byte trigram and byte pair. matchLocalities searches only the blocks that
// may hold a needle: the same localities as a search of the whole text and as brute force.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { BLOCK_LOCALITIES, LocalityBlocks, MIN_BLOCKED_BYTES } from '../../runtime/indexes/locality-blocks.js';
import { localityKeyAt, matchLocalities, PostcodeFilterIndex, PostcodeFilterIndexBuilder, type CountryLocalities } from '../../runtime/indexes/postcode-filter-index.js';
import { POSTCODE_FILTERS_SECTION } from '../../runtime/format/sections.js';
import { fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';
import { ownBuffer, pick, prng } from './helpers.js';

const SYLLABLES = ['san', 'ta', 'ma', 'ri', 'a', 'de', 'la', 'lo', 'ville', 'burg', 'é', 'ü', 'ñ', '東', '京', '都', '市', '区', '町', 'ка', 'зань', '😀', ' ', '-', '1', '26'];

/** Enough distinct locality names for one country to pass MIN_BLOCKED_BYTES, and a small second country. */
function localityNames(seed: number, bytes: number): string[] {
  const random = prng(seed);
  const names = new Set<string>();
  let size = 0;
  while (size < bytes) {
    let name = '';
    const parts = 2 + Math.floor(random() * 6);
    for (let i = 0; i < parts; i++) name += pick(random, SYLLABLES);
    name = name.trim();
    if (name === '' || names.has(name)) continue;
    names.add(name);
    size += Buffer.byteLength(name) + 1;
  }
  return [...names];
}

function indexOf(countries: string[][]): PostcodeFilterIndex {
  const builder = new PostcodeFilterIndexBuilder();
  let id = 1;
  countries.forEach((names, countryRow) => {
    for (const name of names) builder.add({ id: id++, country_id: countryRow + 1, locality_name: name, state_code: null, city_id: null, type: null }, countryRow);
  });
  return PostcodeFilterIndex.from(ownBuffer(builder.finish(), true), id - 1);
}

function keysOf(localities: CountryLocalities): string[] {
  return Array.from(localities.byteStart, (_, i) => localityKeyAt(localities, i));
}

/** Needles as typed: parts of keys (across block boundaries too), a key's end and the next key's start, random syllables, short ones. */
function needlesFor(keys: readonly string[], seed: number): string[] {
  const random = prng(seed);
  const needles = ['', 'a', 'sa', 'san', '東京', '東京都', '😀', 'zzz', 'xq', '26', '126', 'ville-', 'ка-'];
  for (let i = 0; i < 300; i++) {
    const chars = [...pick(random, keys)];
    const at = Math.floor(random() * chars.length);
    needles.push(chars.slice(at, at + 1 + Math.floor(random() * 8)).join(''));
  }
  for (let block = 1; block * BLOCK_LOCALITIES < keys.length; block += 7) {
    // The last key of a block and the first of the next: no single key holds both parts.
    needles.push(`${keys[block * BLOCK_LOCALITIES - 1]!.slice(-2)}${keys[block * BLOCK_LOCALITIES]!.slice(0, 2)}`);
    needles.push(keys[block * BLOCK_LOCALITIES]!);
  }
  for (let i = 0; i < 100; i++) needles.push(pick(random, SYLLABLES) + pick(random, SYLLABLES) + pick(random, SYLLABLES));
  return needles;
}

function assertSameAsWholeText(localities: CountryLocalities, needles: readonly string[], keys: readonly string[] | null): void {
  const whole = { ...localities, blocks: null };
  for (const needle of needles) {
    const matched = matchLocalities(localities, needle);
    assert.deepEqual(matched && [...matched], matchLocalities(whole, needle) && [...matchLocalities(whole, needle)!], `"${needle}": as a search of the whole text`);
    if (keys !== null) {
      const expected = keys.flatMap((key, i) => (key.includes(needle) ? [i] : []));
      assert.deepEqual(matched === null ? [] : [...matched], expected, `"${needle}": brute force`);
    }
  }
}

describe('locality blocks', () => {
  const index = indexOf([localityNames(3, MIN_BLOCKED_BYTES + 20_000), localityNames(4, 5_000)]);
  const big = index.localitiesOfRange(0);
  const small = index.localitiesOfRange(big.localityEnd - big.localityStart);
  const keys = keysOf(big);

  it('are built for a country whose locality text reaches MIN_BLOCKED_BYTES, not for a shorter one', () => {
    assert.ok(big.bytes.length >= MIN_BLOCKED_BYTES);
    assert.ok(big.blocks !== null);
    assert.equal(big.blocks.blockCount, Math.ceil(keys.length / BLOCK_LOCALITIES));
    assert.equal(small.blocks, null);
  });

  it('let matchLocalities find exactly the localities a search of the whole text and brute force find', () => {
    assertSameAsWholeText(big, needlesFor(keys, 5), keys);
    assertSameAsWholeText(small, needlesFor(keysOf(small), 6), keysOf(small));
  });

  it('name as candidates every block holding a key with the needle, and only some blocks for a rare one', () => {
    const blocks = big.blocks!;
    let narrowed = 0;
    for (const needle of needlesFor(keys, 7)) {
      // A needle with a lone surrogate has no UTF-8 of its own: matchLocalities searches the decoded text for it.
      if (/[\uD800-\uDFFF]/u.test(needle)) continue;
      const bytes = Buffer.from(needle, 'utf8');
      const candidates = blocks.candidates(bytes);
      if (bytes.length < 2) assert.equal(candidates, null, `"${needle}": under 2 bytes, every block`);
      if (candidates === null) continue;
      narrowed++;
      keys.forEach((key, i) => {
        const block = Math.floor(i / BLOCK_LOCALITIES);
        if (key.includes(needle)) assert.ok((candidates[block >>> 5]! & (1 << (block & 31))) !== 0, `"${needle}" is in block ${block}`);
      });
    }
    assert.ok(narrowed > 100, `${narrowed} needles narrowed to some blocks`);
    // Two bytes no key holds side by side: their pair's row leaves only the blocks its hash collides in.
    assert.ok(blocks.candidates(Buffer.from('xq')) !== null, 'a rare 2-byte needle is narrowed too');
  });

  it('round-trip through the buffer the main thread shares, and refuse one built for another index', () => {
    const shared = index.sharedLocalityBlocks();
    assert.ok(shared instanceof SharedArrayBuffer);
    const fresh = indexOf([localityNames(3, MIN_BLOCKED_BYTES + 20_000), localityNames(4, 5_000)]);
    fresh.useLocalityBlocks(shared);
    const adopted = fresh.localitiesOfRange(0);
    assert.equal(adopted.blocks!.words.buffer, shared, 'views of the shared bytes, not a copy');
    assert.deepEqual([...adopted.blocks!.words], [...big.blocks!.words]);
    assert.equal(fresh.localitiesOfRange(adopted.localityEnd - adopted.localityStart).blocks, null);
    assertSameAsWholeText(adopted, needlesFor(keys, 8), null);
    const other = indexOf([localityNames(9, 1_000)]);
    assert.throws(() => other.useLocalityBlocks(shared), {
      name: SnapshotFormatError.name,
      message: /^locality blocks: expected header \[layout, groups, localities per block, trigram hashes, pair hashes, text bytes\] \[2,1,64,2048,2048,\d+\], found \[2,2,64,2048,2048,\d+\]$/,
    });
  });

  it('build from a text and its localities’ offsets alone (one block per BLOCK_LOCALITIES keys)', () => {
    const text = Buffer.from(`${Array.from({ length: 130 }, (_, i) => `k${i}x`).join('\n')}\n`);
    const starts = Int32Array.from({ length: 130 }, (_, i) => text.indexOf(`k${i}x\n`));
    const blocks = LocalityBlocks.build(text, starts);
    assert.equal(blocks.blockCount, 3);
    const candidates = blocks.candidates(Buffer.from('k129x'))!;
    assert.ok(candidates !== null && (candidates[0]! & 0b100) !== 0, 'the third block holds k129x');
  });

  it('find what a search of the whole text finds in the full dataset’s largest countries (JP, MX, MM)', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    const filters = PostcodeFilterIndex.from(store.section(POSTCODE_FILTERS_SECTION), store.postcodes.count);
    const ranges = store.relations.countryPostcodes;
    let blocked = 0;
    for (let countryRow = 0; countryRow < store.countries.count; countryRow++) {
      if (!['JP', 'MX', 'MM'].includes(store.countries.record(countryRow).iso2)) continue;
      const localities = filters.localitiesOfRange(ranges.start[countryRow]!);
      assert.ok(localities.blocks !== null);
      blocked++;
      assertSameAsWholeText(localities, needlesFor(keysOf(localities), 10 + countryRow).concat(['京都市', '北区', 'san', 'colonia', 'las flores', 'yangon', '260']), null);
    }
    assert.equal(blocked, 3);
  });
});
