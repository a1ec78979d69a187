// Postcode filter columns (`postcodes.filters`): per-row typed filter columns, so that the postcode
// search never decodes a FlatBuffers record to test a filter, and the matchKey() forms of the
// locality names, deduplicated per country, so a `q` "contains" test scans each distinct locality
// of a country once (one byte search of its UTF-8 over the country's joined text, never decoded whole).
// Built with `new PostcodeFilterIndexBuilder().add(record, countryRow)….finish()`, read with
// `PostcodeFilterIndex.from(buffer, postcodeCount)`.
//
// ArrayPack, arrays in this order:
//   0 header            Int32Array [layoutVersion]
//   1 localityByRow     Int32Array (postcodes): global locality index, -1 = no locality name
//   2 stateCodeByRow    Int32Array (postcodes): index into stateCodeNames, -1 = null
//   3 cityIdByRow       Int32Array (postcodes): dataset city id, -1 = null
//   4 typeByRow         Uint16Array (postcodes): 1 + index into typeNames, 0 = null
//   5 groupRowStart     Int32Array (groups + 1): first postcode row of each country group
//                       (a group = the consecutive rows of one country); last = postcode count
//   6 groupLocalityStart Int32Array (groups + 1): first global locality index of each group
//   7 groupTextStart    Int32Array (groups + 1): byte offset of each group's text in localityText
//   8 localityCharStart Int32Array (localities): UTF-16 offset of the locality inside its group's
//                       decoded text
//   9 localityText      Uint8Array: per group, UTF-8 of each locality's matchKey followed by "\n"
//  10 stateCodeNames    Uint8Array: UTF-8 JSON array of the distinct state codes, upper-cased
//  11 typeNames         Uint8Array: UTF-8 JSON array of the distinct types, lower-cased
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import type { PostcodeRecord } from '../format/model.js';
import { SnapshotFormatError } from '../format/section.js';
import { POSTCODE_FILTERS_SECTION } from '../format/sections.js';
import { matchKey, postcodeTypeKey, stateCodeKey } from '../text/normalise.js';
import { bytesContain } from './byte-search.js';
import { BLOCK_LOCALITIES, buildLocalityBlocksPack, LocalityBlocks, MIN_BLOCKED_BYTES, readLocalityBlocksPack } from './locality-blocks.js';

const LAYOUT_VERSION = 1;
/** Separator after each locality key; matchKey() turns every whitespace run into one space, so no key holds it. */
const LOCALITY_TERMINATOR = '\n';
const MAX_TYPES = 0xffff;
const what = POSTCODE_FILTERS_SECTION;
const decoder = new TextDecoder();

/** The fields of a postcode record the filters read. */
export type PostcodeFilterFields = Pick<PostcodeRecord, 'id' | 'country_id' | 'locality_name' | 'state_code' | 'city_id' | 'type'>;

/**
 * Add the postcode records in snapshot row order, grouped by country row; `countryRow` is the
 * record's country row (-1 when its country_id is dangling: those rows come last).
 */
export class PostcodeFilterIndexBuilder {
  private readonly localityByRow: number[] = [];
  private readonly stateCodeByRow: number[] = [];
  private readonly cityIdByRow: number[] = [];
  private readonly typeByRow: number[] = [];

  private readonly stateCodeNames: string[] = [];
  private readonly stateCodeIndex = new Map<string, number>();
  private readonly typeNames: string[] = [];
  private readonly typeIndex = new Map<string, number>();

  private readonly groupRowStart: number[] = [];
  private readonly groupLocalityStart: number[] = [];
  private readonly groupTextStart: number[] = [];
  private readonly localityCharStart: number[] = [];
  private readonly textChunks: Buffer[] = [];
  private textBytes = 0;

  private groupCountry: number | null = null;
  private readonly seenCountries = new Set<number>();
  private groupLocalities = new Map<string, number>();
  private groupChars = 0;
  private groupText: string[] = [];

  add(record: PostcodeFilterFields, countryRow: number): this {
    const row = this.localityByRow.length;
    if (countryRow !== this.groupCountry) {
      if (this.seenCountries.has(countryRow)) {
        throw new Error(`${what}: expected postcode rows grouped by country row, found country_id ${record.country_id} again at row ${row} (id ${record.id})`);
      }
      this.closeGroup();
      this.groupCountry = countryRow;
      this.seenCountries.add(countryRow);
      this.groupRowStart.push(row);
      this.groupLocalityStart.push(this.localityCharStart.length);
      this.groupTextStart.push(this.textBytes);
      this.groupLocalities = new Map();
      this.groupChars = 0;
      this.groupText = [];
    }

    let locality = -1;
    if (record.locality_name !== null) {
      const key = matchKey(record.locality_name);
      if (key !== '') {
        let index = this.groupLocalities.get(key);
        if (index === undefined) {
          index = this.localityCharStart.length;
          this.groupLocalities.set(key, index);
          this.localityCharStart.push(this.groupChars);
          this.groupText.push(key, LOCALITY_TERMINATOR);
          this.groupChars += key.length + LOCALITY_TERMINATOR.length;
        }
        locality = index;
      }
    }
    this.localityByRow.push(locality);

    let stateCode = -1;
    if (record.state_code !== null && record.state_code !== '') {
      const key = stateCodeKey(record.state_code);
      let index = this.stateCodeIndex.get(key);
      if (index === undefined) {
        index = this.stateCodeNames.length;
        this.stateCodeIndex.set(key, index);
        this.stateCodeNames.push(key);
      }
      stateCode = index;
    }
    this.stateCodeByRow.push(stateCode);

    this.cityIdByRow.push(record.city_id ?? -1);

    let type = 0;
    if (record.type !== null && record.type !== '') {
      const key = postcodeTypeKey(record.type);
      let index = this.typeIndex.get(key);
      if (index === undefined) {
        if (this.typeNames.length >= MAX_TYPES) throw new Error(`${what}: expected at most ${MAX_TYPES} distinct postcode types, found more`);
        index = this.typeNames.length;
        this.typeIndex.set(key, index);
        this.typeNames.push(key);
      }
      type = index + 1;
    }
    this.typeByRow.push(type);
    return this;
  }

  private closeGroup(): void {
    if (this.groupCountry === null) return;
    const chunk = Buffer.from(this.groupText.join(''), 'utf8');
    this.textChunks.push(chunk);
    this.textBytes += chunk.byteLength;
  }

  finish(): Uint8Array {
    this.closeGroup();
    this.groupCountry = null;
    const count = this.localityByRow.length;
    const groupRowStart = [...this.groupRowStart, count];
    const groupLocalityStart = [...this.groupLocalityStart, this.localityCharStart.length];
    const groupTextStart = [...this.groupTextStart, this.textBytes];
    const localityText = new Uint8Array(this.textBytes);
    let offset = 0;
    for (const chunk of this.textChunks) {
      localityText.set(chunk, offset);
      offset += chunk.byteLength;
    }
    const utf8Json = (value: unknown): Uint8Array => new Uint8Array(Buffer.from(JSON.stringify(value), 'utf8'));
    return new ArrayPackBuilder()
      .add(Int32Array.of(LAYOUT_VERSION))
      .add(Int32Array.from(this.localityByRow))
      .add(Int32Array.from(this.stateCodeByRow))
      .add(Int32Array.from(this.cityIdByRow))
      .add(Uint16Array.from(this.typeByRow))
      .add(Int32Array.from(groupRowStart))
      .add(Int32Array.from(groupLocalityStart))
      .add(Int32Array.from(groupTextStart))
      .add(Int32Array.from(this.localityCharStart))
      .add(localityText)
      .add(utf8Json(this.stateCodeNames))
      .add(utf8Json(this.typeNames))
      .finish();
  }
}

/** One country's localities: global indexes [localityStart, localityEnd), their joined keys. */
export interface CountryLocalities {
  localityStart: number;
  localityEnd: number;
  /**
   * UTF-8 of every locality's matchKey, each followed by LOCALITY_TERMINATOR: a view of the
   * section's bytes. Searched as bytes, never decoded whole: decoded texts were ~9 MiB of
   * strings in every thread's heap.
   */
  bytes: Buffer;
  /** Byte offset in `bytes` of each locality (index − localityStart). */
  byteStart: Int32Array;
  /** UTF-16 offset of each locality in the decoded text (index − localityStart). */
  charStart: Int32Array;
  /** Which blocks of localities hold which trigrams (locality-blocks.ts), or null for a text under MIN_BLOCKED_BYTES. */
  blocks: LocalityBlocks | null;
}

/** The matchKey of the i-th locality of `localities` (i = index − localityStart). */
export function localityKeyAt(localities: CountryLocalities, i: number): string {
  const start = localities.byteStart[i]!;
  const end = i + 1 < localities.byteStart.length ? localities.byteStart[i + 1]! : localities.bytes.length;
  return decoder.decode(localities.bytes.subarray(start, end - LOCALITY_TERMINATOR_BYTES));
}

/** Layout version of sharedLocalityByteStarts()'s buffer. */
const BYTE_STARTS_LAYOUT = 1;
const LOCALITY_TERMINATOR_BYTE = 0x0a;
const LOCALITY_TERMINATOR_BYTES = 1;

export class PostcodeFilterIndex {
  private readonly localitiesByGroup = new Map<number, CountryLocalities>();
  /** Every group's locality blocks, when adopted from the main thread (useLocalityBlocks); else each group's are built on first use. */
  private adoptedBlocks: (LocalityBlocks | null)[] | null = null;
  /** Per locality: its byte offset in its group's text (shared by the main thread, or built here on first use). */
  private byteStarts: Int32Array | null = null;
  private readonly stateCodeIndex: Map<string, number>;
  private readonly typeIndex: Map<string, number>;

  private constructor(
    readonly localityByRow: Int32Array,
    readonly stateCodeByRow: Int32Array,
    readonly cityIdByRow: Int32Array,
    readonly typeByRow: Uint16Array,
    private readonly groupRowStart: Int32Array,
    private readonly groupLocalityStart: Int32Array,
    private readonly groupTextStart: Int32Array,
    private readonly localityCharStart: Int32Array,
    private readonly localityText: Uint8Array,
    stateCodeNames: string[],
    typeNames: string[],
  ) {
    this.stateCodeIndex = new Map(stateCodeNames.map((name, i) => [name, i]));
    this.typeIndex = new Map(typeNames.map((name, i) => [name, i + 1]));
  }

  static from(buffer: ArrayBufferLike, postcodeCount: number): PostcodeFilterIndex {
    const pack = ArrayPack.from(buffer, 0, what);
    const header = pack.get(0, Int32Array, what);
    if (header[0] !== LAYOUT_VERSION) {
      throw new SnapshotFormatError(`${what}: expected layout version ${LAYOUT_VERSION}, found ${header[0]} (rebuild the snapshot)`);
    }
    const perRow = [pack.get(1, Int32Array, what), pack.get(2, Int32Array, what), pack.get(3, Int32Array, what), pack.get(4, Uint16Array, what)] as const;
    for (const column of perRow) {
      if (column.length !== postcodeCount) throw new SnapshotFormatError(`${what}: expected ${postcodeCount} rows per column, found ${column.length}`);
    }
    const json = (i: number): string[] => {
      const value: unknown = JSON.parse(decoder.decode(pack.get(i, Uint8Array, what)));
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new SnapshotFormatError(`${what}: array ${i}: expected a JSON array of strings`);
      return value as string[];
    };
    return new PostcodeFilterIndex(
      perRow[0],
      perRow[1],
      perRow[2],
      perRow[3],
      pack.get(5, Int32Array, what),
      pack.get(6, Int32Array, what),
      pack.get(7, Int32Array, what),
      pack.get(8, Int32Array, what),
      pack.get(9, Uint8Array, what),
      json(10),
      json(11),
    );
  }

  /** Distinct localities over every country (localityByRow's values are 0 … localityCount − 1, or -1). */
  get localityCount(): number {
    return this.localityCharStart.length;
  }

  /** Distinct state codes (stateCodeByRow's values are 0 … stateCodeCount − 1, or -1). */
  get stateCodeCount(): number {
    return this.stateCodeIndex.size;
  }

  /** Column value of an upper-cased state code, or -1 when no row has it. */
  stateCodeValue(stateCodeKey: string): number {
    return this.stateCodeIndex.get(stateCodeKey) ?? -1;
  }

  /** Column value of a lower-cased type, or -1 when no row has it. */
  typeValue(typeKey: string): number {
    return this.typeIndex.get(typeKey) ?? -1;
  }

  /** The localities of the country whose postcode rows start at `rowStart` (a non-empty range). */
  localitiesOfRange(rowStart: number): CountryLocalities {
    const group = this.groupOf(rowStart);
    let localities = this.localitiesByGroup.get(group);
    if (localities === undefined) {
      const localityStart = this.groupLocalityStart[group]!;
      const localityEnd = this.groupLocalityStart[group + 1]!;
      const text = this.localityText.subarray(this.groupTextStart[group]!, this.groupTextStart[group + 1]!);
      const byteStart = this.localityByteStarts().subarray(localityStart, localityEnd);
      localities = {
        localityStart,
        localityEnd,
        bytes: Buffer.from(text.buffer, text.byteOffset, text.byteLength),
        byteStart,
        charStart: this.localityCharStart.subarray(localityStart, localityEnd),
        blocks: this.adoptedBlocks !== null ? this.adoptedBlocks[group]! : blocksOf(text, byteStart),
      };
      this.localitiesByGroup.set(group, localities);
    }
    return localities;
  }

  /**
   * Per locality, its byte offset in its group's text: each group's text is its localities'
   * keys in order, each ended by the terminator. Built on first use unless adopted from the
   * main thread (useLocalityByteStarts).
   */
  localityByteStarts(): Int32Array {
    if (this.byteStarts === null) {
      const starts = new Int32Array(this.localityCharStart.length);
      const text = this.localityText;
      for (let group = 0; group + 1 < this.groupTextStart.length; group++) {
        const base = this.groupTextStart[group]!;
        const end = this.groupTextStart[group + 1]!;
        let locality = this.groupLocalityStart[group]!;
        const last = this.groupLocalityStart[group + 1]!;
        let at = base;
        while (locality < last && at < end) {
          starts[locality++] = at - base;
          const terminator = text.indexOf(LOCALITY_TERMINATOR_BYTE, at);
          at = terminator < 0 || terminator >= end ? end : terminator + 1;
        }
        if (locality !== last || at !== end) {
          throw new SnapshotFormatError(`${what}: group ${group}: expected ${last - this.groupLocalityStart[group]!} localities ending at byte ${end}, found ${locality - this.groupLocalityStart[group]!} ending at ${at}`);
        }
      }
      this.byteStarts = starts;
    }
    return this.byteStarts;
  }

  /** localityByteStarts() in a SharedArrayBuffer (ArrayPack: header [layout, localities, text bytes], starts) for every thread. */
  sharedLocalityByteStarts(): SharedArrayBuffer {
    return new ArrayPackBuilder().add(Int32Array.of(BYTE_STARTS_LAYOUT, this.localityCharStart.length, this.localityText.length)).add(this.localityByteStarts()).finishShared();
  }

  /** Reads localityByteStarts() from sharedLocalityByteStarts()'s buffer; refuses one built for another index. */
  useLocalityByteStarts(buffer: ArrayBufferLike, name = 'locality byte starts'): void {
    const pack = ArrayPack.from(buffer, 0, name);
    const header = pack.get(0, Int32Array, name);
    const starts = pack.get(1, Int32Array, name);
    const expected = [BYTE_STARTS_LAYOUT, this.localityCharStart.length, this.localityText.length];
    if (header.length !== 3 || header.some((value, i) => value !== expected[i]) || starts.length !== expected[1]) {
      throw new SnapshotFormatError(`${name}: expected header [layout, localities, text bytes] ${JSON.stringify(expected)} and ${expected[1]} starts, found ${JSON.stringify([...header])} and ${starts.length}`);
    }
    this.byteStarts = starts;
  }

  /** Every country group's locality blocks (null for a short text) in a SharedArrayBuffer for every thread (locality-blocks.ts). */
  sharedLocalityBlocks(): SharedArrayBuffer {
    const byteStarts = this.localityByteStarts();
    const groups: (LocalityBlocks | null)[] = [];
    for (let group = 0; group + 1 < this.groupTextStart.length; group++) {
      const text = this.localityText.subarray(this.groupTextStart[group]!, this.groupTextStart[group + 1]!);
      groups.push(blocksOf(text, byteStarts.subarray(this.groupLocalityStart[group]!, this.groupLocalityStart[group + 1]!)));
    }
    return buildLocalityBlocksPack(groups, this.localityText.length);
  }

  /** Reads sharedLocalityBlocks()'s buffer, before any country's localities are read; refuses one built for another index. */
  useLocalityBlocks(buffer: ArrayBufferLike, name = 'locality blocks'): void {
    this.adoptedBlocks = readLocalityBlocksPack(buffer, this.groupTextStart.length - 1, this.localityText.length, name);
    this.localitiesByGroup.clear();
  }

  private groupOf(rowStart: number): number {
    const starts = this.groupRowStart;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! < rowStart) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= starts.length - 1 || starts[lo] !== rowStart) {
      throw new SnapshotFormatError(`${what}: expected a country group starting at postcode row ${rowStart}, found none (snapshot sections disagree)`);
    }
    return lo;
  }
}

/** A lone surrogate: such a needle is searched in the decoded text (its UTF-8 form would be U+FFFD's). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The localities of one country whose key contains `needle` (a matchKey form without the
 * terminator): their indexes − localityStart, ascending, or null when none matches. A list, not a
 * mark per locality: a needle matches a few localities of thousands (a median of 2 over the
 * postcode requests of bench:report), so memos of them stay small. The needle's UTF-8 is
 * searched in the text's UTF-8: for well-formed strings a byte match is a code-unit match (UTF-8
 * lead bytes never occur inside a character), so the matches are those of String#indexOf over
 * the decoded text, which a needle holding a lone surrogate still gets.
 */
export function matchLocalities(localities: CountryLocalities, needle: string): Int32Array | null {
  const needleBytes = localityNeedle(needle);
  if (needleBytes === null) return matchDecoded(localities, needle);
  const { bytes, byteStart, blocks } = localities;
  const matched: number[] = [];
  const candidates = blocks === null ? null : blocks.candidates(needleBytes);
  if (candidates === null) {
    searchText(bytes, 0, needleBytes, byteStart, matched);
  } else {
    // Only the blocks that may hold the needle, each run of consecutive ones in one search.
    const blockCount = blocks!.blockCount;
    for (let block = 0; block < blockCount; block++) {
      if ((candidates[block >>> 5]! & (1 << (block & 31))) === 0) continue;
      let last = block;
      while (last + 1 < blockCount && (candidates[(last + 1) >>> 5]! & (1 << ((last + 1) & 31))) !== 0) last++;
      const start = byteStart[block * BLOCK_LOCALITIES]!;
      const next = (last + 1) * BLOCK_LOCALITIES;
      const end = next < byteStart.length ? byteStart[next]! : bytes.length;
      searchText(bytes.subarray(start, end), start, needleBytes, byteStart, matched);
      block = last;
    }
  }
  return matched.length === 0 ? null : Int32Array.from(matched);
}

/** Appends to `matched` the localities holding `needle` in `text`, which starts at byte `offset` of their group's text. */
function searchText(text: Buffer, offset: number, needle: Buffer, byteStart: Int32Array, matched: number[]): void {
  let from = 0;
  for (;;) {
    const hit = text.indexOf(needle, from);
    if (hit < 0) return;
    const locality = lastAtOrBefore(byteStart, offset + hit);
    matched.push(locality);
    // Continue after this locality: one hit per locality is enough.
    from = (locality + 1 < byteStart.length ? byteStart[locality + 1]! : offset + text.length) - offset;
  }
}

/**
 * matchLocalities among `among` alone (localities, as indexes − localityStart, ascending): for a
 * needle holding another needle whose matches `among` are, only they can hold it. Each one's key
 * is compared in place; a needle whose UTF-8 differs from its text goes to matchLocalities.
 */
export function matchLocalitiesAmong(localities: CountryLocalities, needle: string, among: Int32Array): Int32Array | null {
  const needleBytes = localityNeedle(needle);
  if (needleBytes === null) return matchLocalities(localities, needle);
  const matched: number[] = [];
  for (let i = 0; i < among.length; i++) {
    if (localityContains(localities, among[i]!, needleBytes)) matched.push(among[i]!);
  }
  return matched.length === 0 ? null : Int32Array.from(matched);
}

/**
 * The UTF-8 of `needle` (a matchKey form) for localityContains, or null when a byte search would
 * not give String#indexOf's answer (an empty needle, or one holding a lone surrogate).
 */
export function localityNeedle(needle: string): Buffer | null {
  return needle === '' || LONE_SURROGATE.test(needle) ? null : Buffer.from(needle, 'utf8');
}

/** Whether locality `locality` (index − localityStart) holds `needleBytes` (localityNeedle's): matchLocalities' test, for one locality. */
export function localityContains(localities: CountryLocalities, locality: number, needleBytes: Uint8Array): boolean {
  const { bytes, byteStart } = localities;
  const end = (locality + 1 < byteStart.length ? byteStart[locality + 1]! : bytes.length) - LOCALITY_TERMINATOR_BYTES;
  return bytesContain(bytes, byteStart[locality]!, end, needleBytes, needleBytes.length);
}

/** mayMatchMany's share of a country's locality blocks: at most one in this many may hold a needle that few localities hold. */
const FEW_BLOCKS_SHARE = 4;

/**
 * False when the locality blocks show that few of the country's localities can hold `needleBytes`
 * (under one block in FEW_BLOCKS_SHARE holds all its trigrams and byte pairs): matchLocalities
 * then searches only those blocks, at a small share of a pass over the text. True otherwise: a
 * needle under 2 bytes, a country without blocks, or a needle in many blocks.
 */
export function mayMatchMany(localities: CountryLocalities, needleBytes: Uint8Array): boolean {
  const blocks = localities.blocks;
  return blocks === null || FEW_BLOCKS_SHARE * blocks.candidateCount(needleBytes) >= blocks.blockCount;
}

/** matchLocalities over the decoded text (UTF-16 offsets), for needles whose UTF-8 form differs. */
function matchDecoded(localities: CountryLocalities, needle: string): Int32Array | null {
  const text = decoder.decode(localities.bytes);
  const { charStart } = localities;
  const matched: number[] = [];
  let from = 0;
  while (from <= text.length) {
    const hit = text.indexOf(needle, from);
    if (hit < 0) break;
    const locality = lastAtOrBefore(charStart, hit);
    matched.push(locality);
    // An empty needle is in every locality: step past the text's end rather than find it there again.
    from = locality + 1 < charStart.length ? charStart[locality + 1]! : text.length + 1;
  }
  return matched.length === 0 ? null : Int32Array.from(matched);
}

/** A group's locality blocks, or null when its text is too short to need them. */
function blocksOf(text: Uint8Array, byteStart: Int32Array): LocalityBlocks | null {
  return text.length >= MIN_BLOCKED_BYTES ? LocalityBlocks.build(text, byteStart) : null;
}

/** The last index i of an ascending array with starts[i] ≤ at (starts[0] ≤ at). */
function lastAtOrBefore(starts: Int32Array, at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
