// One field of a row, read from the table's bytes as the codec's decode() reads it (the same
// value as `table.record(row)[name]`), without decoding the rest of the row: what a list sorted
// on one or two fields needs of each of its rows (routes/reference/common.ts).
import { jsonTextFromStored } from '../format/json-text.js';
import { decodeUtf8 } from './record-byte-buffer.js';
import { FIELD_DOUBLE_OR_NULL, FIELD_INT, FIELD_INT_OR_NULL, FIELD_JSON_STRING, FIELD_STRING_OR_EMPTY, type FieldLayout, type RowBytes } from './types.js';

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
    const vtable = position - view.getInt32(position, true);
    const offset = field.slot < view.getUint16(vtable, true) ? view.getUint16(vtable + field.slot, true) : 0;
    switch (field.kind) {
      case FIELD_INT:
        return offset === 0 ? 0 : view.getInt32(position + offset, true);
      case FIELD_INT_OR_NULL:
        return offset === 0 ? null : view.getInt32(position + offset, true);
      case FIELD_DOUBLE_OR_NULL:
        return offset === 0 ? null : view.getFloat64(position + offset, true);
      default: {
        if (offset === 0) return field.kind === FIELD_STRING_OR_EMPTY ? '' : null;
        const at = position + offset;
        const start = at + view.getInt32(at, true);
        const text = decodeUtf8(this.bytes, start + 4, view.getInt32(start, true));
        return field.kind === FIELD_JSON_STRING ? jsonTextFromStored(text) : text;
      }
    }
  }
}
