// Block filters over one country's locality keys, for the postcode search's `q` (matchLocalities in
// postcode-filter-index.ts). The country's localities are cut into blocks of BLOCK_LOCALITIES
// consecutive ones; each byte trigram of their keys is hashed to one of TRIGRAM_HASHES values, each
// byte pair to one of PAIR_HASHES more, and each hash keeps the set of blocks holding such a
// trigram or pair, as a bitset over the blocks (the rows of a hash × block matrix). A needle of 2
// bytes or more can only occur in a block holding every one of its trigrams and pairs: its
// candidate blocks are the AND of its hashes' rows (a few dozen words), and only their text is
// searched. Exact: a false positive costs a search of its block, never a wrong answer, and a
// needle never spans two localities (no key holds the terminator).
// Why: a `q` over Japan's 120,673 localities (3.0 MB of UTF-8) searched all of it for each new
// needle, ~1.6–1.9 ms for a kanji name even with a few hundred matches (kanji lead bytes are
// everywhere, so the byte search skips little); through the blocks, 16–27 µs on average for a
// name as a user types it (`npm run bench -- postcodes`, three runs: 50–69× faster in Japan;
// 1.2–2.4× in Mexico and Myanmar, where common Latin trigrams leave more blocks to search and
// needles match more keys).
// The pairs: a 2-byte q (two Latin letters) has no trigram, and a 3-byte one a single trigram,
// found in over half of Mexico's blocks when it is a common one, and in a fifth to a quarter of
// them by collision otherwise (a block's 64 names set 23 % of the trigram hashes, 10 % of the
// pairs'); so such a q searched the whole 2.9 MB text, ~2.5–4 ms for a rare one ("aq", "alf"),
// where its pairs leave a few blocks.
// Only countries whose text reaches MIN_BLOCKED_BYTES get blocks (JP, MX and MM on the full
// dataset, ~1.9 MiB of bitsets).
//
// One group's blocks: LocalityBlocks.build(text, byteStarts). Every group's, for the threads to
// share: buildLocalityBlocksPack, read back by readLocalityBlocksPack (an ArrayPack of
//   0 header       Int32Array [layoutVersion, groups, BLOCK_LOCALITIES, TRIGRAM_HASHES, PAIR_HASHES, text bytes]
//   1 blockCounts  Int32Array(groups)      blocks of each group, 0: none (text under the minimum)
//   2 rowStarts    Int32Array(groups + 1)  where each group's rows start in `rows` (in words)
//   3 rows         Int32Array              per group, TRIGRAM_HASHES + PAIR_HASHES rows of ceil(blocks / 32) words
// ).
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';

const LAYOUT_VERSION = 2;
/** Localities per block: small enough that a rare needle's blocks are a sliver of the text, large enough that a block's trigrams fill ~15–25 % of its bits (JP 15 %, MX 23 %). */
export const BLOCK_LOCALITIES = 64;
/** Hashed trigram values (11 bits). */
export const TRIGRAM_HASHES = 2048;
const HASH_SHIFT = 32 - 11;
/** Hashed byte-pair values (11 bits), the rows after the trigrams'. */
export const PAIR_HASHES = 2048;
/** Rows of a group's matrix: the trigrams', then the pairs'. */
const HASH_ROWS = TRIGRAM_HASHES + PAIR_HASHES;
/** Countries whose locality text is shorter are searched whole: a pass over it costs < ~0.15 ms. */
export const MIN_BLOCKED_BYTES = 256 * 1024;
/** A key's terminator (postcode-filter-index.ts LOCALITY_TERMINATOR): trigrams across it are not a key's. */
const TERMINATOR = 0x0a;

function trigramHash(a: number, b: number, c: number): number {
  return Math.imul((a << 16) | (b << 8) | c, 0x9e3779b1) >>> HASH_SHIFT;
}

/** A byte pair's row: after the trigrams' (a different multiplier, so a pair and a trigram do not collide alike). */
function pairRow(a: number, b: number): number {
  return TRIGRAM_HASHES + (Math.imul((a << 8) | b, 0x85ebca6b) >>> HASH_SHIFT);
}

/** The rows of the needle's distinct trigram and pair hashes, reused between calls (requests run one at a time per thread). */
let needleHashes = new Int32Array(64);
let candidateScratch = new Int32Array(64);

/** Adds `row` to needleHashes[0, count) unless it is there; returns the new count. */
function addNeedleRow(count: number, row: number): number {
  for (let j = 0; j < count; j++) if (needleHashes[j] === row) return count;
  needleHashes[count] = row;
  return count + 1;
}

export class LocalityBlocks {
  private constructor(
    /** Blocks of BLOCK_LOCALITIES localities (the last one may hold fewer). */
    readonly blockCount: number,
    /** HASH_ROWS rows of blockWords words: bit b of row h is set when block b holds a trigram hashing to h (h < TRIGRAM_HASHES) or a byte pair whose row is h. */
    private readonly rows: Int32Array,
  ) {}

  private get blockWords(): number {
    return (this.blockCount + 31) >>> 5;
  }

  /** The blocks of one group: its text (keys each ended by the terminator) and each locality's byte offset in it. */
  static build(text: Uint8Array, byteStarts: Int32Array): LocalityBlocks {
    const blockCount = Math.ceil(byteStarts.length / BLOCK_LOCALITIES);
    const blockWords = (blockCount + 31) >>> 5;
    const rows = new Int32Array(HASH_ROWS * blockWords);
    for (let block = 0; block < blockCount; block++) {
      const next = (block + 1) * BLOCK_LOCALITIES;
      const start = byteStarts[block * BLOCK_LOCALITIES]!;
      const end = next < byteStarts.length ? byteStarts[next]! : text.length;
      const word = block >>> 5;
      const bit = 1 << (block & 31);
      for (let i = start; i + 1 < end; i++) {
        const a = text[i]!;
        const b = text[i + 1]!;
        if (a === TERMINATOR || b === TERMINATOR) continue;
        rows[pairRow(a, b) * blockWords + word]! |= bit;
        if (i + 2 < end) {
          const c = text[i + 2]!;
          if (c !== TERMINATOR) rows[trigramHash(a, b, c) * blockWords + word]! |= bit;
        }
      }
    }
    return new LocalityBlocks(blockCount, rows);
  }

  /** Blocks read from a pack's rows. */
  static of(blockCount: number, rows: Int32Array): LocalityBlocks {
    return new LocalityBlocks(blockCount, rows);
  }

  /** The rows' words, for a pack. */
  get words(): Int32Array {
    return this.rows;
  }

  /**
   * The blocks that may hold `needle` (its UTF-8): a bitset over the blocks, valid until the next
   * call; or null when every block is to be searched — a needle under 2 bytes, or one whose
   * candidates are at least 7/8 of the blocks (a run of searches then costs about one pass). A
   * common-looking needle held by a few hundred of Mexico's localities ("los co", "anac") has
   * half to three quarters of its blocks as candidates: 13 such needles took 29–32 ms searched
   * whole when candidates were used under half of the blocks, 19–20 ms under 7/8.
   */
  candidates(needle: Uint8Array): Int32Array | null {
    return 8 * this.candidateCount(needle) >= 7 * this.blockCount ? null : candidateScratch;
  }

  /**
   * How many blocks may hold `needle` (every block for a needle under 2 bytes); those blocks are
   * then the set bits of the module's scratch bitset, which candidates() returns.
   */
  candidateCount(needle: Uint8Array): number {
    if (needle.length < 2) return this.blockCount;
    let hashCount = 0;
    if (needleHashes.length < 2 * needle.length) needleHashes = new Int32Array(2 * needle.length);
    for (let i = 0; i + 1 < needle.length; i++) {
      hashCount = addNeedleRow(hashCount, pairRow(needle[i]!, needle[i + 1]!));
      if (i + 2 < needle.length) hashCount = addNeedleRow(hashCount, trigramHash(needle[i]!, needle[i + 1]!, needle[i + 2]!));
    }
    const blockWords = this.blockWords;
    if (candidateScratch.length < blockWords) candidateScratch = new Int32Array(blockWords);
    const candidates = candidateScratch;
    const rows = this.rows;
    let set = 0;
    for (let w = 0; w < blockWords; w++) {
      let bits = -1;
      for (let j = 0; j < hashCount && bits !== 0; j++) bits &= rows[needleHashes[j]! * blockWords + w]!;
      candidates[w] = bits;
      set += popcount(bits);
    }
    // The last word's bits past the last block are never set (the rows' are not).
    return set;
  }
}

function popcount(bits: number): number {
  bits -= (bits >>> 1) & 0x55555555;
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return (Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Every group's blocks (null where a group has none), as one buffer for every thread. */
export function buildLocalityBlocksPack(groups: readonly (LocalityBlocks | null)[], textBytes: number): SharedArrayBuffer {
  const blockCounts = Int32Array.from(groups, (blocks) => blocks?.blockCount ?? 0);
  const rowStarts = new Int32Array(groups.length + 1);
  groups.forEach((blocks, i) => (rowStarts[i + 1] = rowStarts[i]! + (blocks?.words.length ?? 0)));
  const rows = new Int32Array(rowStarts[groups.length]!);
  groups.forEach((blocks, i) => {
    if (blocks !== null) rows.set(blocks.words, rowStarts[i]!);
  });
  return new ArrayPackBuilder()
    .add(Int32Array.of(LAYOUT_VERSION, groups.length, BLOCK_LOCALITIES, TRIGRAM_HASHES, PAIR_HASHES, textBytes))
    .add(blockCounts)
    .add(rowStarts)
    .add(rows)
    .finishShared();
}

/**
 * The blocks of every group from buildLocalityBlocksPack's buffer, refused when it was built for
 * another index (`groups` groups over `textBytes` bytes of text) or with other constants.
 */
export function readLocalityBlocksPack(buffer: ArrayBufferLike, groups: number, textBytes: number, what: string): (LocalityBlocks | null)[] {
  const pack = ArrayPack.from(buffer, 0, what);
  const header = pack.get(0, Int32Array, what);
  const expected = [LAYOUT_VERSION, groups, BLOCK_LOCALITIES, TRIGRAM_HASHES, PAIR_HASHES, textBytes];
  if (header.length !== expected.length || header.some((value, i) => value !== expected[i])) {
    throw new SnapshotFormatError(`${what}: expected header [layout, groups, localities per block, trigram hashes, pair hashes, text bytes] ${JSON.stringify(expected)}, found ${JSON.stringify([...header])}`);
  }
  const blockCounts = pack.get(1, Int32Array, what);
  const rowStarts = pack.get(2, Int32Array, what);
  const rows = pack.get(3, Int32Array, what);
  if (blockCounts.length !== groups || rowStarts.length !== groups + 1 || rowStarts[groups] !== rows.length) {
    throw new SnapshotFormatError(`${what}: expected ${groups} block counts, ${groups + 1} row starts ending at ${rows.length} words, found ${blockCounts.length}, ${rowStarts.length} ending at ${rowStarts[rowStarts.length - 1]}`);
  }
  return Array.from(blockCounts, (blockCount, group) => {
    const words = rowStarts[group + 1]! - rowStarts[group]!;
    if (words !== HASH_ROWS * ((blockCount + 31) >>> 5)) throw new SnapshotFormatError(`${what}: group ${group}: expected ${HASH_ROWS * ((blockCount + 31) >>> 5)} words for ${blockCount} blocks, found ${words}`);
    return blockCount === 0 ? null : LocalityBlocks.of(blockCount, rows.subarray(rowStarts[group]!, rowStarts[group + 1]!));
  });
}
