// EntityTable over one FlatBuffers record table and its ids section. Reading a field decodes
// only that field; `record(row)` decodes a whole row into a plain object (strings through
// RecordByteBuffer's fast path, record-byte-buffer.ts).
import * as flatbuffers from 'flatbuffers';
import { ArrayPack } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';
import type { EntityName } from '../format/model.js';
import { IDS_MODE_DENSE, IDS_MODE_SORTED, idsSection } from '../format/sections.js';
import { RecordByteBuffer } from './record-byte-buffer.js';
import type { EntityTable, FieldLayout, RowBytes } from './types.js';

/** What a generated FlatBuffers row accessor must offer; `init` points it at a row. */
export interface RowCursor {
  __init(position: number, bb: flatbuffers.ByteBuffer): unknown;
}

export interface TableCodec<R, C extends RowCursor> {
  /** Position of row `row`'s table, via the root table's `rows` vector. */
  newCursor(): C;
  decode(cursor: C): R;
  name(cursor: C): string;
  /** Where decode() reads each field (for writers that copy fields without decoding), if described. */
  layout?: readonly FieldLayout[];
}

/** Row → id and id → row, from an `ids.<entity>` payload. */
export class IdIndex {
  readonly idsByRow: Int32Array;
  private readonly mode: number;
  private readonly minId: number;
  private readonly a: Int32Array;
  private readonly b: Int32Array;

  constructor(buffer: ArrayBufferLike, what: string) {
    const pack = ArrayPack.from(buffer, 0, what);
    this.idsByRow = pack.get(0, Int32Array, what);
    const header = pack.get(1, Int32Array, what);
    this.mode = header[0]!;
    this.minId = header[1]!;
    this.a = pack.get(2, Int32Array, what);
    this.b = pack.get(3, Int32Array, what);
    if (this.mode !== IDS_MODE_DENSE && this.mode !== IDS_MODE_SORTED) throw new SnapshotFormatError(`${what}: expected id mode ${IDS_MODE_DENSE} or ${IDS_MODE_SORTED}, found ${this.mode}`);
  }

  rowById(id: number): number {
    if (this.mode === IDS_MODE_DENSE) {
      const slot = id - this.minId;
      return Number.isInteger(slot) && slot >= 0 && slot < this.a.length ? this.a[slot]! : -1;
    }
    const ids = this.a;
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < ids.length && ids[lo] === id ? this.b[lo]! : -1;
  }
}

export class FlatEntityTable<R, C extends RowCursor> implements EntityTable<R> {
  readonly count: number;
  private readonly bb: flatbuffers.ByteBuffer;
  private readonly vectorStart: number;
  private readonly cursor: C;

  constructor(
    readonly entity: EntityName,
    records: ArrayBufferLike,
    private readonly ids: IdIndex,
    private readonly codec: TableCodec<R, C>,
  ) {
    this.bb = new RecordByteBuffer(new Uint8Array(records));
    // Every root table is `{ rows: [Row] }` (field 0), see schemas/snapshot/geoapi.fbs.
    const root = this.bb.readInt32(0);
    const field = this.bb.__offset(root, 4);
    this.vectorStart = field ? this.bb.__vector(root + field) : 0;
    this.count = field ? this.bb.__vector_len(root + field) : 0;
    this.cursor = codec.newCursor();
    if (ids.idsByRow.length !== this.count) {
      throw new SnapshotFormatError(`${idsSection(entity)}: expected ${this.count} ids (one per record), found ${ids.idsByRow.length}`);
    }
  }

  /** Raw row access when the codec describes its layout, else null. */
  get rowBytes(): RowBytes | null {
    const layout = this.codec.layout;
    if (!layout) return null;
    return (this.rowBytesView ??= { bytes: this.bb.bytes(), layout, count: this.count, tablePosition: (row) => this.tablePosition(row) });
  }

  private rowBytesView: RowBytes | undefined;

  tablePosition(row: number): number {
    if (!(row >= 0 && row < this.count)) throw new RangeError(`${this.entity}: row ${row} out of range 0..${this.count - 1}`);
    return this.bb.__indirect(this.vectorStart + row * 4);
  }

  private at(row: number): C {
    if (!(row >= 0 && row < this.count)) throw new RangeError(`${this.entity}: row ${row} out of range 0..${this.count - 1}`);
    this.cursor.__init(this.bb.__indirect(this.vectorStart + row * 4), this.bb);
    return this.cursor;
  }

  record(row: number): R {
    return this.codec.decode(this.at(row));
  }

  rowById(id: number): number {
    return this.ids.rowById(id);
  }

  idAt(row: number): number {
    if (!(row >= 0 && row < this.count)) throw new RangeError(`${this.entity}: row ${row} out of range 0..${this.count - 1}`);
    return this.ids.idsByRow[row]!;
  }

  nameAt(row: number): string {
    return this.codec.name(this.at(row));
  }
}
