// Answers the two postcode questions over a Store without HTTP:
// - exact lookup: binary search of postcodeKey(code) within the country's row range
//   (`keys.postcodes`), so any spacing or case finds a code;
// - filtered listing: the country's rows in snapshot order (= code, then id), resuming right
//   after a given row, filters tested on typed columns only. The rows walked are the smallest
//   set that holds every answer: the country's range, the group of the state code or city id
//   (RowGroups), or for q the code-prefix range merged with the groups of the localities q
//   matches; so a filter matching few rows late in a large country costs those rows, not the
//   country (a scan of Mexico's 144,600 rows for a locality near its end took ~0.5 ms). A q
//   matching many localities is tested per row against its memoised bitset of them. The
//   localities a q matches are memoised per country; a q one character longer than a memoised
//   one is searched among that one's matches (localityMatchesFor). Before any of that, a q not
//   memoised first walks rows testing each one's locality (walkTestingLocalities), within a
//   budget: a q that many localities hold fills its page at once instead of costing their number.
import { POSTCODE_FILTERS_SECTION, POSTCODE_KEYS_SECTION } from '../../format/sections.js';
import { localityContains, localityNeedle, matchLocalities, matchLocalitiesAmong, mayMatchMany, PostcodeFilterIndex, type CountryLocalities } from '../../indexes/postcode-filter-index.js';
import { RowGroups } from '../../indexes/row-groups.js';
import { StringTable } from '../../indexes/string-table.js';
import type { Store } from '../../store/types.js';
import { postcodeDisplayQuery, postcodeKey } from '../../text/normalise.js';
import { countryRowByIso2 } from '../countries.js';
import { perStore } from '../per-store.js';
import { SHARED } from '../shared-names.js';
import { LocalityMatchMemo } from './match-memo.js';

/** Filters in their normalised forms (what two equivalent requests have in common). */
export interface PostcodeFilters {
  /** matchKey(q), or null. */
  q: string | null;
  /** Upper-cased state code, or null. */
  stateCode: string | null;
  /** City id, or null. */
  cityId: number | null;
  /** Lower-cased type, or null. */
  type: string | null;
}

export function sameFilters(a: PostcodeFilters, b: PostcodeFilters): boolean {
  return a.q === b.q && a.stateCode === b.stateCode && a.cityId === b.cityId && a.type === b.type;
}

export type LookupOutcome =
  | { kind: 'found'; rows: number[] }
  | { kind: 'country_not_found' }
  | { kind: 'postcode_coverage_unavailable' }
  | { kind: 'postcode_not_found' };

export interface SearchRequest {
  countryRow: number;
  filters: PostcodeFilters;
  /** Resume after this row (from a cursor), or null for the first page. */
  afterRow: number | null;
  limit: number;
}

export interface SearchPage {
  rows: number[];
  /** True when at least one more row matches after the last one returned. */
  hasMore: boolean;
}

/**
 * Bounded memo of the localities matching q per (country, q), per thread: pages of one search,
 * and the same search from other clients, reuse them. Lists of matched localities (4 bytes per
 * match; a few per q): the 3,315 distinct (country, q) of bench:report's postcode pages hold 26 KB
 * of them, where marks of a bit per locality took 5.6 MB and kept this memo churning. Only a q
 * matching more than MERGE_MAX_LOCALITIES is held as a bitset (LocalityMatches), where that is
 * at most ~4× the list's bytes on the full dataset (Japan: 15 KB for its 120,673 localities).
 */
const LOCALITY_MATCHES_MAX_BYTES = 1024 * 1024;
const NO_MATCH = new Int32Array(0);

/**
 * The localities a q matches (indexes − the country's localityStart): an ascending list, or, when
 * there are more than MERGE_MAX_LOCALITIES, a bitset over the country's localities, memoised as
 * such: a page then tests its rows' localities without marking thousands of them first (marking
 * and clearing Mexico's 98,198 for "a" took ~0.25 ms a page).
 */
type LocalityMatches = Int32Array | Uint8Array;

/** Whether bit `i` of `bits` is set. */
const hasBit = (bits: Uint8Array, i: number): boolean => ((bits[i >> 3]! >> (i & 7)) & 1) === 1;

/** The locality memo's key of q in a country. */
const memoKey = (countryRow: number, q: string): string => `${countryRow}\u0000${q}`;

/** q without its last character (a user's previous keystroke). */
const shorterQ = (q: string): string => [...q].slice(0, -1).join('');

/** A longer q is searched among a shorter one's matches when they are at most this share of the country's localities. */
const REFINE_MAX_SHARE = 0.25;

/** The indexes of the set bits of `bits`, ascending; null when there are more than `max`. */
function indexesOfBits(bits: Uint8Array, max: number): Int32Array | null {
  const indexes: number[] = [];
  for (let byte = 0; byte < bits.length; byte++) {
    let value = bits[byte]!;
    while (value !== 0) {
      const bit = 31 - Math.clz32(value & -value);
      indexes.push((byte << 3) + bit);
      value &= value - 1;
    }
    if (indexes.length > max) return null;
  }
  return Int32Array.from(indexes);
}

/** Sets the bits of `indexes` in `bits`; returns `bits`. */
function setBits(bits: Uint8Array, indexes: Int32Array): Uint8Array {
  for (let i = 0; i < indexes.length; i++) bits[indexes[i]! >> 3]! |= 1 << (indexes[i]! & 7);
  return bits;
}

/**
 * q drives the walk by merging its sources (the code-prefix range and each matched locality's
 * group) only up to this many localities: counting its rows and starting the merge take two
 * binary searches per locality. A q matching more is in a large share of the country's rows
 * (Mexico: "san" 18,662 localities, "a" 98,198), which the other walks find soon.
 */
const MERGE_MAX_LOCALITIES = 1024;

/**
 * How far a q's first walk (walkTestingLocalities) goes before it gives up for the search of the
 * country's localities, which costs a pass over their text (Mexico's 2.9 MB: 0.3–2 ms) and
 * ~0.2 µs a match: it byte-searches one locality per KiB of that text (WALK_MIN_TESTS to
 * WALK_MAX_TESTS of them, ~0.1 µs each) and walks at most WALK_ROWS_PER_TEST rows per test.
 * Mexico: 2,804 tests (~0.3 ms when q turns out rare), enough to fill a page of 10 when ~0.4 % of
 * its localities hold q. Over 150 first pages of 3–5 characters there, one test per 4 KiB gave a
 * p90 of 1.6 ms, per KiB 1.0 ms.
 */
const WALK_TEXT_BYTES_PER_TEST = 1024;
const WALK_MIN_TESTS = 32;
const WALK_MAX_TESTS = 4096;
const WALK_ROWS_PER_TEST = 16;
const UNTESTED = 0;
const HOLDS_Q = 1;
const LACKS_Q = 2;

/** The filter columns whose rows are grouped (RowGroups), by the name SHARED.postcodeRows takes. */
export const POSTCODE_GROUPED_COLUMNS = ['locality', 'state', 'city'] as const;
type GroupedColumn = (typeof POSTCODE_GROUPED_COLUMNS)[number];
type FilterGroups = Record<GroupedColumn, RowGroups>;

const engines = perStore((store) => new PostcodeEngine(store));

export class PostcodeEngine {
  private readonly keys: StringTable;
  private readonly columns: PostcodeFilterIndex;
  private readonly localityMatches = new LocalityMatchMemo(LOCALITY_MATCHES_MAX_BYTES);
  /** A bitset per locality of the country being walked: q's listed matches, set for one page and cleared after. */
  private localityScratch = new Uint8Array(0);
  /** walkTestingLocalities' test of each locality of the country being walked (UNTESTED, HOLDS_Q, LACKS_Q); reset after each walk. */
  private localityTests = new Uint8Array(0);
  /** The localities walkTestingLocalities tested (indexes − localityStart), to reset. */
  private readonly testedLocalities: Int32Array;
  /** The rows grouped by filter column (shared by the main thread, or built here on first use). */
  private groups: FilterGroups | null = null;
  /** q's merge (mergeQ), per source: the next and the end row, or index into a locality group's rows; and a min-heap of sources by their next row. */
  private readonly mergeNext = new Int32Array(MERGE_MAX_LOCALITIES + 1);
  private readonly mergeEnd = new Int32Array(MERGE_MAX_LOCALITIES + 1);
  private readonly heapRow = new Int32Array(MERGE_MAX_LOCALITIES + 1);
  private readonly heapSource = new Int32Array(MERGE_MAX_LOCALITIES + 1);

  /** `walkMaxTests`: the first walk's tests in every country, for tests that stop it part-way on small data (else set by each country's text). */
  constructor(
    readonly store: Store,
    private readonly walkMaxTests: number | null = null,
  ) {
    this.testedLocalities = new Int32Array(walkMaxTests ?? WALK_MAX_TESTS);
    const count = store.postcodes.count;
    this.keys = StringTable.from(store.section(POSTCODE_KEYS_SECTION), 0, POSTCODE_KEYS_SECTION);
    if (this.keys.count !== count) throw new Error(`${POSTCODE_KEYS_SECTION}: expected ${count} keys, found ${this.keys.count}`);
    this.columns = PostcodeFilterIndex.from(store.section(POSTCODE_FILTERS_SECTION), count);
    const byteStarts = store.derived(SHARED.localityByteStarts);
    if (byteStarts !== null) this.columns.useLocalityByteStarts(byteStarts, `${POSTCODE_FILTERS_SECTION} locality byte starts (shared)`);
    const blocks = store.derived(SHARED.localityBlocks);
    if (blocks !== null) this.columns.useLocalityBlocks(blocks, `${POSTCODE_FILTERS_SECTION} locality blocks (shared)`);
  }

  /** The locality offsets and blocks of every country and the row groups (shared by the main thread, else built here), ahead of the first filtered request. */
  prepare(): void {
    this.filterGroups();
    this.columns.localityByteStarts();
    const ranges = this.store.relations.countryPostcodes;
    for (let countryRow = 0; countryRow < ranges.start.length; countryRow++) {
      if (ranges.end[countryRow]! > ranges.start[countryRow]!) this.columns.localitiesOfRange(ranges.start[countryRow]!);
    }
  }

  /** The locality offsets in a SharedArrayBuffer, for the main thread to build once for every thread (shared.ts). */
  sharedLocalityByteStarts(): SharedArrayBuffer {
    return this.columns.sharedLocalityByteStarts();
  }

  /** The locality blocks in a SharedArrayBuffer, for the main thread to build once for every thread (shared.ts). */
  sharedLocalityBlocks(): SharedArrayBuffer {
    return this.columns.sharedLocalityBlocks();
  }

  /** The row groups in SharedArrayBuffers, by SHARED name, for the main thread to build once for every thread (shared.ts). */
  sharedRowGroups(): Record<string, SharedArrayBuffer> {
    const groups = this.filterGroups();
    return Object.fromEntries(POSTCODE_GROUPED_COLUMNS.map((column) => [SHARED.postcodeRows(column), groups[column].shared()]));
  }

  private filterGroups(): FilterGroups {
    if (this.groups === null) {
      const columns = this.columns;
      const adopt = (column: GroupedColumn, build: () => RowGroups): RowGroups => {
        const shared = this.store.derived(SHARED.postcodeRows(column));
        return shared !== null ? RowGroups.from(shared, `postcode rows by ${column} (shared)`) : build();
      };
      this.groups = {
        locality: adopt('locality', () => RowGroups.build(columns.localityByRow, columns.localityCount)),
        state: adopt('state', () => RowGroups.build(columns.stateCodeByRow, columns.stateCodeCount)),
        // Dataset city ids: a group per id up to the largest one a postcode names.
        city: adopt('city', () => RowGroups.build(columns.cityIdByRow, columns.cityIdByRow.reduce((max, id) => Math.max(max, id + 1), 0))),
      };
    }
    return this.groups;
  }

  /** An engine of its own over `store` whose first walk is off (walkMaxTests 0) or given; for benches and tests comparing the walk, sharing this one's row groups. */
  withWalk(walkMaxTests: number | null): PostcodeEngine {
    const engine = new PostcodeEngine(this.store, walkMaxTests);
    engine.groups = this.filterGroups();
    return engine;
  }

  /** Forgets every memoised match of q (benches measuring first pages). */
  forgetLocalityMatches(): void {
    this.localityMatches.clear();
  }

  /** One engine per store, built on first use. */
  static of(store: Store): PostcodeEngine {
    return engines.get(store);
  }

  get dataVersion(): string {
    return this.store.manifest.dataVersion;
  }

  /** Country row of an alpha-2 code (any case), or -1. */
  countryRow(iso2: string): number {
    return countryRowByIso2(this.store, iso2);
  }

  countryRange(countryRow: number): [number, number] {
    const ranges = this.store.relations.countryPostcodes;
    return [ranges.start[countryRow]!, ranges.end[countryRow]!];
  }

  /**
   * Rows for `code` in the country, ascending id. Codes match on postcodeKey (spaces removed,
   * upper case). When some of those rows spell the code exactly as the query (outer spaces
   * trimmed, inner runs collapsed, case ignored), only those are returned: `AB 12` then does not
   * also return a distinct code `AB12`; a query spelled like neither returns both.
   */
  lookup(iso2: string, code: string): LookupOutcome {
    const countryRow = this.countryRow(iso2);
    if (countryRow < 0) return { kind: 'country_not_found' };
    const [start, end] = this.countryRange(countryRow);
    if (start >= end) return { kind: 'postcode_coverage_unavailable' };
    const key = postcodeKey(code);
    if (key === '') return { kind: 'postcode_not_found' };
    const [first, last] = this.keys.equalRange(key, start, end);
    if (first >= last) return { kind: 'postcode_not_found' };
    const display = postcodeDisplayQuery(code);
    const all: number[] = [];
    const exact: number[] = [];
    for (let row = first; row < last; row++) {
      all.push(row);
      if (postcodeDisplayQuery(this.store.postcodes.nameAt(row)) === display) exact.push(row);
    }
    const rows = exact.length > 0 ? exact : all;
    const ids = this.store.postcodes;
    rows.sort((a, b) => ids.idAt(a) - ids.idAt(b));
    return { kind: 'found', rows };
  }

  /** One page of the country's rows matching `filters`, in snapshot order, after `afterRow`. */
  search(request: SearchRequest): SearchPage {
    const { filters, limit } = request;
    const [countryStart, countryEnd] = this.countryRange(request.countryRow);
    let start = request.afterRow === null ? countryStart : Math.max(countryStart, request.afterRow + 1);
    let end = countryEnd;
    const empty: SearchPage = { rows: [], hasMore: false };
    if (start >= end) return empty;

    const columns = this.columns;
    const stateValue = filters.stateCode === null ? -1 : columns.stateCodeValue(filters.stateCode);
    if (filters.stateCode !== null && stateValue < 0) return empty;
    const typeValue = filters.type === null ? -1 : columns.typeValue(filters.type);
    if (filters.type !== null && typeValue < 0) return empty;
    const cityId = filters.cityId ?? -1;
    if (filters.cityId !== null && filters.cityId > 0x7fffffff) return empty;

    // q: rows whose key starts with the q key form one contiguous range; locality matches are
    // marked per distinct locality of the country.
    let prefixStart = 0;
    let prefixEnd = 0;
    let matched: LocalityMatches | null = null;
    let localityBase = 0;
    if (filters.q !== null) {
      const prefix = postcodeKey(filters.q);
      if (prefix !== '') {
        prefixStart = this.keys.lowerBound(prefix, countryStart, countryEnd);
        prefixEnd = prefixStart;
        const prefixBytes = Buffer.from(prefix, 'utf8');
        // Rows in [prefixStart, countryEnd) starting with the prefix are contiguous.
        let lo = prefixStart;
        let hi = countryEnd;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (this.keys.startsWithAt(mid, prefixBytes)) lo = mid + 1;
          else hi = mid;
        }
        prefixEnd = lo;
      }
      const localities = columns.localitiesOfRange(countryStart);
      localityBase = localities.localityStart;
      const walked = this.walkTestingLocalities(request.countryRow, filters.q, localities, start, end, prefixStart, prefixEnd, stateValue, cityId, typeValue, limit);
      if (walked !== null) return walked;
      matched = this.localityMatchesFor(request.countryRow, filters.q, localities);
      if (matched === null) {
        // Only code matches are possible: walk just their range.
        start = Math.max(start, prefixStart);
        end = Math.min(end, prefixEnd);
        if (start >= end) return empty;
      }
    }

    // The walk: the fewest rows in [start, end) that hold every answer.
    const groups = this.filterGroups();
    const narrowest = this.narrowestWalk(stateValue, cityId, start, end);
    if (narrowest === null) return empty;
    let { rows: walkRows, group: walkGroup } = narrowest;
    const walkValue = narrowest.value;
    let mergeQ = false;
    if (matched instanceof Int32Array) {
      let count = Math.max(0, Math.min(prefixEnd, end) - Math.max(prefixStart, start));
      for (let i = 0; i < matched.length; i++) count += groups.locality.countIn(localityBase + matched[i]!, start, end);
      if (count < walkRows) [walkRows, walkGroup, mergeQ] = [count, null, true];
    }
    if (walkRows === 0) return empty;

    const marks = matched === null || mergeQ ? null : matched instanceof Uint8Array ? matched : this.marksOf(matched);
    const rows: number[] = [];
    const wanted = limit + 1;
    if (mergeQ) {
      this.mergeQ(this.otherFilters(stateValue, cityId, typeValue), matched as Int32Array, localityBase, Math.max(prefixStart, start), Math.min(prefixEnd, end), start, end, rows, wanted);
    } else {
      // The range's rows, or the group's; the filters tested inline: this loop is the hot one.
      const { stateCodeByRow, cityIdByRow, typeByRow, localityByRow } = columns;
      const groupRows = walkGroup === null ? null : walkGroup.rows;
      const last = walkGroup === null ? end : walkGroup.lowerBound(walkValue, end);
      for (let i = walkGroup === null ? start : walkGroup.lowerBound(walkValue, start); i < last; i++) {
        const row = groupRows === null ? i : groupRows[i]!;
        if (stateValue >= 0 && stateCodeByRow[row] !== stateValue) continue;
        if (cityId >= 0 && cityIdByRow[row] !== cityId) continue;
        if (typeValue >= 0 && typeByRow[row] !== typeValue) continue;
        if (marks !== null && (row < prefixStart || row >= prefixEnd)) {
          const locality = localityByRow[row]!;
          if (locality < 0 || !hasBit(marks, locality - localityBase)) continue;
        }
        if (rows.push(row) === wanted) break;
      }
    }
    if (marks !== null && matched instanceof Int32Array) for (let i = 0; i < matched.length; i++) marks[matched[i]! >> 3] = 0;
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    return { rows, hasMore };
  }

  /**
   * The fewest rows of [start, end) holding every row of the state and the city asked for (-1:
   * none): the range itself, or a group's rows (value: the group's value); null when no row can
   * hold the city (an id past every postcode's).
   */
  private narrowestWalk(stateValue: number, cityId: number, start: number, end: number): { rows: number; group: RowGroups | null; value: number } | null {
    const groups = this.filterGroups();
    let walk: { rows: number; group: RowGroups | null; value: number } = { rows: end - start, group: null, value: -1 };
    if (stateValue >= 0) {
      const count = groups.state.countIn(stateValue, start, end);
      if (count < walk.rows) walk = { rows: count, group: groups.state, value: stateValue };
    }
    if (cityId >= 0) {
      if (cityId >= groups.city.valueCount) return null;
      const count = groups.city.countIn(cityId, start, end);
      if (count < walk.rows) walk = { rows: count, group: groups.city, value: cityId };
    }
    return walk;
  }

  /**
   * A page of q's rows found before any search of the country's localities: the narrowest walk's
   * rows in order, each row's locality tested for q by a byte search the first time the page meets
   * it (remembered for the page in localityTests). A q that many localities hold fills its page
   * within a few hundred rows, where finding all its localities first cost their number: Mexico's
   * "an" (42,936 of 104,062 localities) took ~8 ms a first page, Japan's 山 (14,298) ~5 ms. Null,
   * having answered nothing, when q's localities are memoised (their walk is cheaper), when the
   * country has no localities, when the locality blocks show few localities can hold q (their
   * search is cheap: mayMatchMany), or when its budget leaves the page unfilled (q is rare there:
   * search, then merge or scan).
   */
  private walkTestingLocalities(countryRow: number, q: string, localities: CountryLocalities, start: number, end: number, prefixStart: number, prefixEnd: number, stateValue: number, cityId: number, typeValue: number, limit: number): SearchPage | null {
    // A memoised shorter q (a user typing) narrows the search to its matches: those of a q this
    // walk found too rare (q is rarer still), or a q it was not tried for.
    if (this.localityMatches.peek(memoKey(countryRow, q)) !== undefined || this.localityMatches.peek(memoKey(countryRow, shorterQ(q))) !== undefined) return null;
    // A country without localities (the US's postcodes name none) leaves q its code prefixes: their range is walked instead.
    if (localities.localityEnd === localities.localityStart) return null;
    const needle = localityNeedle(q);
    if (needle === null || !mayMatchMany(localities, needle)) return null;
    const walk = this.narrowestWalk(stateValue, cityId, start, end);
    if (walk === null) return { rows: [], hasMore: false };
    const localityCount = localities.localityEnd - localities.localityStart;
    if (this.localityTests.length < localityCount) this.localityTests = new Uint8Array(localityCount);
    const tests = this.localityTests;
    const tested = this.testedLocalities;
    let testedCount = 0;
    const { stateCodeByRow, cityIdByRow, typeByRow, localityByRow } = this.columns;
    const localityBase = localities.localityStart;
    const group = walk.group;
    const groupRows = group === null ? null : group.rows;
    const first = group === null ? start : group.lowerBound(walk.value, start);
    const last = group === null ? end : group.lowerBound(walk.value, end);
    const maxTests = this.walkMaxTests ?? Math.min(WALK_MAX_TESTS, Math.max(WALK_MIN_TESTS, Math.floor(localities.bytes.length / WALK_TEXT_BYTES_PER_TEST)));
    // Past the budget the walk stops unfinished; it is complete when it reaches `last` or fills the page.
    const stop = Math.min(last, first + maxTests * WALK_ROWS_PER_TEST);
    const rows: number[] = [];
    const wanted = limit + 1;
    let i = first;
    for (; i < stop; i++) {
      const row = groupRows === null ? i : groupRows[i]!;
      if (stateValue >= 0 && stateCodeByRow[row] !== stateValue) continue;
      if (cityId >= 0 && cityIdByRow[row] !== cityId) continue;
      if (typeValue >= 0 && typeByRow[row] !== typeValue) continue;
      if (row < prefixStart || row >= prefixEnd) {
        const global = localityByRow[row]!;
        if (global < 0) continue;
        const locality = global - localityBase;
        let test = tests[locality]!;
        if (test === UNTESTED) {
          if (testedCount === maxTests) break;
          test = localityContains(localities, locality, needle) ? HOLDS_Q : LACKS_Q;
          tests[locality] = test;
          tested[testedCount++] = locality;
        }
        if (test !== HOLDS_Q) continue;
      }
      if (rows.push(row) === wanted) break;
    }
    for (let k = 0; k < testedCount; k++) tests[tested[k]!] = UNTESTED;
    if (rows.length < wanted && i < last) return null;
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    return { rows, hasMore };
  }

  /** The filters besides q as one row test, for mergeQ (search's own loop tests them inline; -1: no such filter). */
  private otherFilters(stateValue: number, cityId: number, typeValue: number): (row: number) => boolean {
    const { stateCodeByRow, cityIdByRow, typeByRow } = this.columns;
    return (row) => (stateValue < 0 || stateCodeByRow[row] === stateValue) && (cityId < 0 || cityIdByRow[row] === cityId) && (typeValue < 0 || typeByRow[row] === typeValue);
  }

  /**
   * q's rows in [start, end), ascending: the code-prefix range [prefixFrom, prefixTo) merged with
   * the groups of the `matched` localities through a min-heap of those sources (a row can be in
   * the range and in its locality's group: taken once), `accepts` (the other filters) tested on
   * each, until `wanted` rows pass.
   */
  private mergeQ(accepts: (row: number) => boolean, matched: Int32Array, localityBase: number, prefixFrom: number, prefixTo: number, start: number, end: number, rows: number[], wanted: number): void {
    const localityGroups = this.groups!.locality;
    const groupRows = localityGroups.rows;
    const next = this.mergeNext;
    const last = this.mergeEnd;
    const prefixSource = matched.length;
    let size = 0;
    for (let source = 0; source < matched.length; source++) {
      const locality = localityBase + matched[source]!;
      next[source] = localityGroups.lowerBound(locality, start);
      last[source] = localityGroups.lowerBound(locality, end);
      if (next[source]! < last[source]!) size = this.heapPush(size, source, groupRows[next[source]!]!);
    }
    if (prefixFrom < prefixTo) {
      next[prefixSource] = prefixFrom;
      last[prefixSource] = prefixTo;
      size = this.heapPush(size, prefixSource, prefixFrom);
    }
    let previous = -1;
    while (size > 0) {
      const row = this.heapRow[0]!;
      const source = this.heapSource[0]!;
      const following = ++next[source]!;
      if (following < last[source]!) this.heapReplaceTop(size, source, source === prefixSource ? following : groupRows[following]!);
      else if (--size > 0) this.heapReplaceTop(size, this.heapSource[size]!, this.heapRow[size]!);
      if (row === previous) continue;
      previous = row;
      if (accepts(row) && rows.push(row) === wanted) return;
    }
  }

  /** Adds a source at `row` to mergeQ's heap of `size` sources; returns the new size. */
  private heapPush(size: number, source: number, row: number): number {
    const heapRow = this.heapRow;
    const heapSource = this.heapSource;
    let at = size;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (heapRow[parent]! <= row) break;
      heapRow[at] = heapRow[parent]!;
      heapSource[at] = heapSource[parent]!;
      at = parent;
    }
    heapRow[at] = row;
    heapSource[at] = source;
    return size + 1;
  }

  /** Puts a source at `row` in place of mergeQ's heap top (of `size` sources) and sifts it down. */
  private heapReplaceTop(size: number, source: number, row: number): void {
    const heapRow = this.heapRow;
    const heapSource = this.heapSource;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && heapRow[child + 1]! < heapRow[child]!) child++;
      if (heapRow[child]! >= row) break;
      heapRow[at] = heapRow[child]!;
      heapSource[at] = heapSource[child]!;
      at = child;
    }
    heapRow[at] = row;
    heapSource[at] = source;
  }

  /** The scratch bitset with the listed `matched` localities (indexes − localityStart) set; the caller clears their bytes. */
  private marksOf(matched: Int32Array): Uint8Array {
    const needed = (matched[matched.length - 1]! >> 3) + 1; // ascending
    if (this.localityScratch.length < needed) this.localityScratch = new Uint8Array(Math.max(needed, this.localityScratch.length * 2));
    return setBits(this.localityScratch, matched);
  }

  /** The memoised matches of q among the country's localities (LocalityMatches), or null when none. */
  private localityMatchesFor(countryRow: number, q: string, localities: CountryLocalities): LocalityMatches | null {
    const key = memoKey(countryRow, q);
    const cached = this.localityMatches.get(key);
    if (cached !== undefined) return cached === NO_MATCH ? null : cached;
    // A q one character longer than a memoised one (a user typing) can only match among that
    // one's matches: they are searched alone, unless they are a large share of the country's
    // localities (a search of the whole text is then cheaper than comparing them one by one).
    const localityCount = localities.localityEnd - localities.localityStart;
    // (peek: that q's own requests alone decide how long it is kept)
    const shorter = q.length > 1 ? this.localityMatches.peek(memoKey(countryRow, shorterQ(q))) : undefined;
    const among = shorter === undefined || shorter === NO_MATCH ? null : shorter instanceof Int32Array ? shorter : indexesOfBits(shorter, localityCount * REFINE_MAX_SHARE);
    const list = shorter === NO_MATCH ? null : among !== null ? matchLocalitiesAmong(localities, q, among) : matchLocalities(localities, q);
    const matched: LocalityMatches = list === null ? NO_MATCH : list.length > MERGE_MAX_LOCALITIES ? setBits(new Uint8Array((localityCount + 7) >> 3), list) : list;
    this.localityMatches.set(key, matched);
    return matched === NO_MATCH ? null : matched;
  }
}
