// One field of a row, read from the table's bytes as the codec's decode() reads it (the same
// value as `table.record(row)[name]`), without decoding the rest of the row: what a list sorted
// on one or two fields needs of each of its rows (routes/reference/common.ts).
import { jsonTextFromStored } from '../format/json-text.js';
import { decodeUtf8 } from './record-byte-buffer.js';
import { FIELD_DOUBLE_OR_NULL, FIELD_INT, FIELD_INT_OR_NULL, FIELD_JSON_STRING, FIELD_STRING_OR_EMPTY, type FieldLayout, type RowBytes } from './types.js';

/** Where `field`'s value sits in the FlatBuffers table at `position` (relative to it), 0 when absent. */
export function fieldOffset(view: DataView, position: number, field: FieldLayout): number {
  const vtable = position - view.getInt32(position, true);
  return field.slot < view.getUint16(vtable, true) ? view.getUint16(vtable + field.slot, true) : 0;
}

/** The string whose offset is stored at `at` (a present string field), decoded as the codec decodes it. */
export function stringAt(view: DataView, bytes: Uint8Array, at: number): string {
  const start = at + view.getInt32(at, true);
  return decodeUtf8(bytes, start + 4, view.getInt32(start, true));
}

export class RowValues {
  private readonly view: DataView;
  private readonly bytes: Uint8Array;
  private readonly fieldByName: ReadonlyMap<string, FieldLayout>;

  constructor(private readonly rows: RowBytes) {
    this.bytes = rows.bytes;
    this.view = new DataView(rows.bytes.buffer, rows.bytes.byteOffset, rows.bytes.byteLength);
    this.fieldByName = new Map(rows.layout.map((field) => [field.name, field]));
  }

  /** The stored field called `name`, or undefined when the table has none (a record has no such key). */
  field(name: string): FieldLayout | undefined {
    return this.fieldByName.get(name);
  }

  /** `field` of `row`: 0, null or '' when absent, by the field's kind (store/types.ts). */
  value(row: number, field: FieldLayout): number | string | null {
    const view = this.view;
    const position = this.rows.tablePosition(row);
    const offset = fieldOffset(view, position, field);
    switch (field.kind) {
      case FIELD_INT:
        return offset === 0 ? 0 : view.getInt32(position + offset, true);
      case FIELD_INT_OR_NULL:
        return offset === 0 ? null : view.getInt32(position + offset, true);
      case FIELD_DOUBLE_OR_NULL:
        return offset === 0 ? null : view.getFloat64(position + offset, true);
      default: {
        if (offset === 0) return field.kind === FIELD_STRING_OR_EMPTY ? '' : null;
        const text = stringAt(view, this.bytes, position + offset);
        return field.kind === FIELD_JSON_STRING ? jsonTextFromStored(text) : text;
      }
    }
  }
}

/** Per table, the reader of single fields of its rows, made once (list sort keys, `locale`'s names, the state lookups). */
const readers = new WeakMap<RowBytes, RowValues>();

export function rowValuesOf(rows: RowBytes): RowValues {
  let reader = readers.get(rows);
  if (reader === undefined) readers.set(rows, (reader = new RowValues(rows)));
  return reader;
}
