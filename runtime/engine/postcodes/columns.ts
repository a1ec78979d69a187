// Reader of the `postcodes.filters` section (layout: runtime/format/postcode-sections.ts): typed
// filter columns by postcode row and each country's locality keys, decoded to one JS string per
// country on first use so a `q` "contains" test is a String#indexOf pass over that string.
import { ArrayPack } from '../../format/array-pack.js';
import { POSTCODE_FILTERS_LAYOUT_VERSION, POSTCODE_FILTERS_SECTION } from '../../format/postcode-sections.js';
import { SnapshotFormatError } from '../../format/section.js';

const decoder = new TextDecoder();
const what = POSTCODE_FILTERS_SECTION;

/** One country's localities: global indexes [localityStart, localityEnd), their joined keys. */
export interface CountryLocalities {
  localityStart: number;
  localityEnd: number;
  /** matchKey of every locality, each followed by LOCALITY_TERMINATOR. */
  text: string;
  /** UTF-16 offset in `text` of each locality (index − localityStart). */
  charStart: Int32Array;
}

export class PostcodeColumns {
  private readonly localitiesByGroup = new Map<number, CountryLocalities>();
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

  static from(buffer: ArrayBufferLike, postcodeCount: number): PostcodeColumns {
    const pack = ArrayPack.from(buffer, 0, what);
    const header = pack.get(0, Int32Array, what);
    if (header[0] !== POSTCODE_FILTERS_LAYOUT_VERSION) {
      throw new SnapshotFormatError(`${what}: expected layout version ${POSTCODE_FILTERS_LAYOUT_VERSION}, found ${header[0]} (rebuild the snapshot)`);
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
    return new PostcodeColumns(
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
      localities = {
        localityStart,
        localityEnd,
        text: decoder.decode(this.localityText.subarray(this.groupTextStart[group]!, this.groupTextStart[group + 1]!)),
        charStart: this.localityCharStart.subarray(localityStart, localityEnd),
      };
      this.localitiesByGroup.set(group, localities);
    }
    return localities;
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

/**
 * Marks the localities of one country whose key contains `needle` (a matchKey form without the
 * terminator). Returns a byte per locality (index − localityStart), or null when none matches.
 */
export function matchLocalities(localities: CountryLocalities, needle: string): Uint8Array | null {
  const { text, charStart } = localities;
  let marks: Uint8Array | null = null;
  let from = 0;
  for (;;) {
    const hit = text.indexOf(needle, from);
    if (hit < 0) break;
    // The locality holding the hit: last charStart ≤ hit.
    let lo = 0;
    let hi = charStart.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (charStart[mid]! <= hit) lo = mid;
      else hi = mid - 1;
    }
    marks ??= new Uint8Array(charStart.length);
    marks[lo] = 1;
    // Continue after this locality: one hit per locality is enough.
    from = lo + 1 < charStart.length ? charStart[lo + 1]! : text.length;
  }
  return marks;
}
