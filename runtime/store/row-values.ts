// One field of a row, read from the table's bytes as the codec's decode() reads it (the same
// value as `table.record(row)[name]`), without decoding the rest of the row: what a list sorted
// on one or two fields needs of each of its rows (routes/reference/common.ts).
import { jsonTextFromStored } from '../format/json-text.js';
import { decodeUtf8 } from './record-byte-buffer.js';
import { FIELD_DOUBLE_OR_NULL, FIELD_INT, FIELD_INT_OR_NULL, FIELD_JSON_STRING, FIELD_STRING, FIELD_STRING_OR_EMPTY, type FieldLayout, type RowBytes } from './types.js';

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

  /**
   * value(), or for a plain string field that holds a simple decimal (simpleDecimalAt), its
   * Number(): what a sort that compares the field as a number needs, without decoding the text.
   */
  numericValue(row: number, field: FieldLayout): number | string | null {
    if (field.kind === FIELD_STRING || field.kind === FIELD_STRING_OR_EMPTY) {
      const start = this.stringStart(row, field);
      if (start >= 0) {
        const number = simpleDecimalAt(this.bytes, start, this.stringLength(start));
        if (number === number) return number; // not NaN
      }
    }
    return this.value(row, field);
  }

  /** Where the bytes of string `field` of `row` start in the table's bytes (stringLength: how many), or -1 when it is absent. */
  stringStart(row: number, field: FieldLayout): number {
    const view = this.view;
    const position = this.rows.tablePosition(row);
    const offset = fieldOffset(view, position, field);
    return offset === 0 ? -1 : position + offset + view.getInt32(position + offset, true) + 4;
  }

  /** The byte length of the string stringStart() located. */
  stringLength(start: number): number {
    return this.view.getInt32(start - 4, true);
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

/** 10^k for k = 0..22: each exact as a double. */
const POWERS_OF_TEN = (() => {
  const powers = [1];
  for (let k = 1; k <= 22; k++) powers.push(powers[k - 1]! * 10);
  return powers;
})();

/** Decimal digits whose integer is below 2^53, so that digits / 10^k is one exactly rounded division. */
const MAX_EXACT_DIGITS = 15;

/**
 * Number(text) of the UTF-8 bytes [start, start + length) when they are `-?digits(.digits)?` with
 * at most MAX_EXACT_DIGITS digits (stored coordinates): the digits' integer and 10^k are exact
 * doubles, so their quotient is the correctly rounded value, as Number() gives. NaN for any other
 * text (the caller then decodes it and calls Number()).
 */
export function simpleDecimalAt(bytes: Uint8Array, start: number, length: number): number {
  const end = start + length;
  let i = start;
  const negative = i < end && bytes[i] === 0x2d;
  if (negative) i++;
  let digits = 0;
  let fractionDigits = -1;
  let integer = 0;
  for (; i < end; i++) {
    const b = bytes[i]!;
    if (b >= 0x30 && b <= 0x39) {
      integer = integer * 10 + (b - 0x30);
      digits++;
      if (fractionDigits >= 0) fractionDigits++;
    } else if (b === 0x2e && fractionDigits < 0 && digits > 0) {
      fractionDigits = 0;
    } else {
      return NaN;
    }
  }
  if (digits === 0 || digits > MAX_EXACT_DIGITS || fractionDigits === 0) return NaN;
  const value = fractionDigits > 0 ? integer / POWERS_OF_TEN[fractionDigits]! : integer;
  return negative ? -value : value;
}

/** Per table, the reader of single fields of its rows, made once (list sort keys, `locale`'s names, the state lookups). */
const readers = new WeakMap<RowBytes, RowValues>();

export function rowValuesOf(rows: RowBytes): RowValues {
  let reader = readers.get(rows);
  if (reader === undefined) readers.set(rows, (reader = new RowValues(rows)));
  return reader;
}
