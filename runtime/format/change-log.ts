// The `changes` section: every change between the dataset versions a server has built, oldest
// first (build-index/changes.ts appends one version's events to the previous snapshot's log).
// Size is proportional to the number of events, never to the dataset. Layout (ArrayPack):
//   0 Uint32Array  [LOG_VERSION, eventCount, versionCount]
//   1 Float64Array changedAtMs        (one per event)
//   2 Int32Array   placeId            (dataset id)
//   3 Uint8Array   placeType          (index into PLACE_TYPES)
//   4 Uint8Array   changeType         (index into CHANGE_TYPES)
//   5 Int32Array   versionIndex       (index into the versions list)
//   6 Uint16Array  countryCodes       (two per event: the place's alpha-2 code before and after,
//                                      two ASCII bytes packed; 0 = none) for the country_code filter
//   7 Uint32Array  valueOffsets       (eventCount + 1)
//   8 Uint8Array   valueBytes         UTF-8 JSON `[old_values, new_values]` per event
//   9 Uint8Array   versions           UTF-8 JSON array of data versions
// Built with `new ChangeLogBuilder().add(event)….finish()`, read with `ChangeLog.from(buffer)`.
import { ArrayPack, ArrayPackBuilder } from './array-pack.js';
import { SnapshotFormatError } from './section.js';

export const CHANGE_LOG_VERSION = 1;
export const PLACE_TYPES = ['country', 'state', 'city'] as const;
export const CHANGE_TYPES = ['added', 'removed', 'renamed', 'place_group_changed', 'parent_changed', 'coordinates_changed', 'other_fields_changed'] as const;
export type PlaceType = (typeof PLACE_TYPES)[number];
export type ChangeType = (typeof CHANGE_TYPES)[number];
export type ChangeValues = Record<string, unknown>;

export interface ChangeEvent {
  dataVersion: string;
  changedAtMs: number;
  placeType: PlaceType;
  placeId: number;
  changeType: ChangeType;
  /** Upper-case alpha-2 codes of the place before and after (equal unless it moved; null when unknown). */
  countryBefore: string | null;
  countryAfter: string | null;
  /** Only the changed fields; null for `added`. */
  oldValues: ChangeValues | null;
  /** Only the changed fields; null for `removed`. */
  newValues: ChangeValues | null;
}

function packCode(code: string | null): number {
  if (code === null || !/^[A-Z]{2}$/.test(code)) return 0;
  return (code.charCodeAt(0) << 8) | code.charCodeAt(1);
}

function unpackCode(packed: number): string | null {
  return packed === 0 ? null : String.fromCharCode(packed >> 8, packed & 0xff);
}

export class ChangeLogBuilder {
  private readonly events: ChangeEvent[] = [];

  add(event: ChangeEvent): this {
    this.events.push(event);
    return this;
  }

  get count(): number {
    return this.events.length;
  }

  finish(): Uint8Array {
    const n = this.events.length;
    const versions: string[] = [];
    const versionIndex = new Map<string, number>();
    const changedAt = new Float64Array(n);
    const placeId = new Int32Array(n);
    const placeType = new Uint8Array(n);
    const changeType = new Uint8Array(n);
    const versionOf = new Int32Array(n);
    const codes = new Uint16Array(2 * n);
    const offsets = new Uint32Array(n + 1);
    const chunks: Buffer[] = [];
    let total = 0;
    this.events.forEach((e, i) => {
      let v = versionIndex.get(e.dataVersion);
      if (v === undefined) {
        v = versions.push(e.dataVersion) - 1;
        versionIndex.set(e.dataVersion, v);
      }
      changedAt[i] = e.changedAtMs;
      placeId[i] = e.placeId;
      placeType[i] = PLACE_TYPES.indexOf(e.placeType);
      changeType[i] = CHANGE_TYPES.indexOf(e.changeType);
      versionOf[i] = v;
      codes[2 * i] = packCode(e.countryBefore);
      codes[2 * i + 1] = packCode(e.countryAfter);
      const bytes = Buffer.from(JSON.stringify([e.oldValues, e.newValues]), 'utf8');
      offsets[i] = total;
      total += bytes.byteLength;
      chunks.push(bytes);
    });
    offsets[n] = total;
    const valueBytes = new Uint8Array(total);
    chunks.forEach((chunk, i) => valueBytes.set(chunk, offsets[i]!));
    return new ArrayPackBuilder()
      .add(new Uint32Array([CHANGE_LOG_VERSION, n, versions.length]))
      .add(changedAt).add(placeId).add(placeType).add(changeType).add(versionOf).add(codes)
      .add(offsets).add(valueBytes)
      .add(new Uint8Array(Buffer.from(JSON.stringify(versions), 'utf8')))
      .finish();
  }
}

export class ChangeLog {
  private constructor(
    readonly count: number,
    readonly versions: readonly string[],
    readonly changedAtMs: Float64Array,
    readonly placeIds: Int32Array,
    readonly placeTypes: Uint8Array,
    readonly changeTypes: Uint8Array,
    readonly versionIndex: Int32Array,
    readonly countryCodes: Uint16Array,
    private readonly valueOffsets: Uint32Array,
    private readonly valueBytes: Uint8Array,
  ) {}

  static empty(): ChangeLog {
    return ChangeLog.from(new ChangeLogBuilder().finish().buffer);
  }

  /** `what` names the section in errors. */
  static from(buffer: ArrayBufferLike, what = 'changes'): ChangeLog {
    const pack = ArrayPack.from(buffer, 0, what);
    const meta = pack.get(0, Uint32Array, what);
    if (meta[0] !== CHANGE_LOG_VERSION) throw new SnapshotFormatError(`${what}: expected change log version ${CHANGE_LOG_VERSION}, found ${meta[0]}`);
    const n = meta[1]!;
    const versionCount = meta[2]!;
    const arrays = {
      changedAt: pack.get(1, Float64Array, what),
      placeId: pack.get(2, Int32Array, what),
      placeType: pack.get(3, Uint8Array, what),
      changeType: pack.get(4, Uint8Array, what),
      versionOf: pack.get(5, Int32Array, what),
    };
    for (const [name, array] of Object.entries(arrays)) {
      if (array.length !== n) throw new SnapshotFormatError(`${what}: ${name}: expected ${n} entries, found ${array.length}`);
    }
    const codes = pack.get(6, Uint16Array, what);
    if (codes.length !== 2 * n) throw new SnapshotFormatError(`${what}: countryCodes: expected ${2 * n} entries, found ${codes.length}`);
    const offsets = pack.get(7, Uint32Array, what);
    if (offsets.length !== n + 1) throw new SnapshotFormatError(`${what}: valueOffsets: expected ${n + 1} entries, found ${offsets.length}`);
    const valueBytes = pack.get(8, Uint8Array, what);
    if (offsets[n] !== valueBytes.length) throw new SnapshotFormatError(`${what}: valueBytes: expected ${offsets[n]} bytes, found ${valueBytes.length}`);
    const versions = JSON.parse(Buffer.from(pack.get(9, Uint8Array, what)).toString('utf8')) as unknown;
    if (!Array.isArray(versions) || versions.length !== versionCount || versions.some((v) => typeof v !== 'string')) {
      throw new SnapshotFormatError(`${what}: expected ${versionCount} data versions, found ${JSON.stringify(versions).slice(0, 80)}`);
    }
    for (let i = 0; i < n; i++) {
      if (arrays.placeType[i]! >= PLACE_TYPES.length || arrays.changeType[i]! >= CHANGE_TYPES.length || arrays.versionOf[i]! < 0 || arrays.versionOf[i]! >= versionCount) {
        throw new SnapshotFormatError(`${what}: event ${i}: place type, change type or version index out of range`);
      }
    }
    return new ChangeLog(n, versions as string[], arrays.changedAt, arrays.placeId, arrays.placeType, arrays.changeType, arrays.versionOf, codes, offsets, valueBytes);
  }

  placeType(i: number): PlaceType {
    return PLACE_TYPES[this.placeTypes[i]!]!;
  }

  changeType(i: number): ChangeType {
    return CHANGE_TYPES[this.changeTypes[i]!]!;
  }

  dataVersion(i: number): string {
    return this.versions[this.versionIndex[i]!]!;
  }

  countryBefore(i: number): string | null {
    return unpackCode(this.countryCodes[2 * i]!);
  }

  countryAfter(i: number): string | null {
    return unpackCode(this.countryCodes[2 * i + 1]!);
  }

  /** [old_values, new_values] of event i, decoded. */
  values(i: number): [ChangeValues | null, ChangeValues | null] {
    const bytes = this.valueBytes.subarray(this.valueOffsets[i]!, this.valueOffsets[i + 1]!);
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as [ChangeValues | null, ChangeValues | null];
  }

  event(i: number): ChangeEvent {
    const [oldValues, newValues] = this.values(i);
    return {
      dataVersion: this.dataVersion(i),
      changedAtMs: this.changedAtMs[i]!,
      placeType: this.placeType(i),
      placeId: this.placeIds[i]!,
      changeType: this.changeType(i),
      countryBefore: this.countryBefore(i),
      countryAfter: this.countryAfter(i),
      oldValues,
      newValues,
    };
  }
}
