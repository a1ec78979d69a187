// A row writer's steps (row-json.ts) as straight-line JavaScript, made once per (table,
// projection, extra names) with `new Function`, as Ajv compiles a schema. Why: interpreting the
// steps per row costs a loop turn, a kind switch, a key copy loop and a vtable read per field;
// compiled, each key is a run of constant byte stores, each slot and kind a constant, and the
// vtable is read once per row: 1.4× (full tier, with translations) to 1.8× (coordinates tier)
// faster on 60-row city lists (bench: `npm run bench -- render`). Only numbers go into the source
// (key bytes, slots, extras' indexes), never a name or a value. Strings, doubles and extras go
// through the writer's own methods, so escaping and number formatting exist once. (Projections
// compile their copy function the same way: render/projection.ts.)
import { FIELD_DOUBLE_OR_NULL, FIELD_INT, FIELD_INT_OR_NULL, FIELD_JSON_STRING, FIELD_STRING_OR_EMPTY, type FieldLayout } from '../store/types.js';

/** The output the compiled code stores into (row-json.ts's JsonBytes). */
export interface ByteSink {
  buffer: Uint8Array;
  length: number;
  reserve(more: number): void;
}

/** What the compiled code reads of a writer's step (row-json.ts). */
export interface CompiledStep {
  /** `,"name":` */
  readonly key: Uint8Array;
  /** The stored field, or null: take extras[extraIndex]. */
  readonly field: FieldLayout | null;
  readonly extraIndex: number;
}

/** Writes one row's object: the table at `position`, computed names from `extras`. */
export type RowWrite<Out extends ByteSink> = (out: Out, position: number, extras: readonly unknown[] | null) => void;

/** What compiled code calls back for values of variable size. */
export interface RowWriterCalls<Out extends ByteSink> {
  writeStringAt(out: Out, at: number): void;
  writeDoubleAt(out: Out, at: number): void;
  writeJsonStringAt(out: Out, at: number): void;
  writeExtra(out: Out, position: number, extra: unknown): void;
}

const NULL = [0x6e, 0x75, 0x6c, 0x6c];
const EMPTY_STRING = [0x22, 0x22];
const COMMA = 0x2c;
/** The most bytes a fixed-size value takes: an int32 in decimal. */
const MAX_FIXED_VALUE = 11;

/** Stores `bytes` at `at` and moves past them. */
function storeBytes(bytes: ArrayLike<number>): string {
  let code = '';
  for (let i = 0; i < bytes.length; i++) code += `buf[at + ${i}] = ${bytes[i]}; `;
  return `${code}at += ${bytes.length};`;
}

/** Makes room for `n` bytes; the buffer may move. */
function room(n: number): string {
  return `if (at + ${n} > buf.length) { out.length = at; out.reserve(${n}); buf = out.buffer; }`;
}

/** After a call that wrote through `out`. */
const RELOAD = 'buf = out.buffer; at = out.length;';

/** The compiled writer of `steps`, reading rows through `view`. */
export function compileRowWrite<Out extends ByteSink>(steps: readonly CompiledStep[], view: DataView, calls: RowWriterCalls<Out>, writeIntAt: (buffer: Uint8Array, at: number, value: number) => number): RowWrite<Out> {
  const code: string[] = ['let buf = out.buffer;', 'let at = out.length;', 'let first = true;', 'let offset = 0;', 'let extra;'];
  if (steps.some((step) => step.field !== null)) code.push('const vtable = position - view.getInt32(position, true);', 'const vtableBytes = view.getUint16(vtable, true);');
  code.push(room(1), 'buf[at++] = 123;');
  // Whether a key has been written before this step: no, yes, or known only at run time (`first`),
  // after extras that may be left out.
  let written: 'no' | 'yes' | 'maybe' = 'no';
  const separator = (): string => (written === 'yes' ? `buf[at++] = ${COMMA};` : written === 'maybe' ? `if (!first) buf[at++] = ${COMMA};` : '');
  for (const step of steps) {
    const key = step.key.subarray(1); // `"name":` without its comma
    const field = step.field;
    if (field === null) {
      code.push(
        `extra = extras[${step.extraIndex}];`,
        'if (extra !== undefined) {',
        room(1 + key.length),
        separator(),
        'first = false;',
        storeBytes(key),
        'out.length = at; calls.writeExtra(out, position, extra);',
        RELOAD,
        '}',
      );
      if (written === 'no') written = 'maybe';
      continue;
    }
    code.push(room(1 + key.length + MAX_FIXED_VALUE), separator(), storeBytes(key));
    code.push(`offset = ${field.slot} < vtableBytes ? view.getUint16(vtable + ${field.slot}, true) : 0;`);
    switch (field.kind) {
      case FIELD_INT:
        code.push('at = writeIntAt(buf, at, offset === 0 ? 0 : view.getInt32(position + offset, true));');
        break;
      case FIELD_INT_OR_NULL:
        code.push(`if (offset === 0) { ${storeBytes(NULL)} } else at = writeIntAt(buf, at, view.getInt32(position + offset, true));`);
        break;
      case FIELD_DOUBLE_OR_NULL:
        code.push(`if (offset === 0) { ${storeBytes(NULL)} } else { out.length = at; calls.writeDoubleAt(out, position + offset); ${RELOAD} }`);
        break;
      case FIELD_JSON_STRING:
        code.push(`if (offset === 0) { ${storeBytes(NULL)} } else { out.length = at; calls.writeJsonStringAt(out, position + offset); ${RELOAD} }`);
        break;
      default:
        code.push(`if (offset === 0) { ${storeBytes(field.kind === FIELD_STRING_OR_EMPTY ? EMPTY_STRING : NULL)} } else { out.length = at; calls.writeStringAt(out, position + offset); ${RELOAD} }`);
    }
    written = 'yes';
  }
  code.push(room(1), 'buf[at++] = 125;', 'out.length = at;');
  const source = `return function writeRow(out, position, extras) {\n${code.join('\n')}\n};`;
  return new Function('view', 'calls', 'writeIntAt', source)(view, calls, writeIntAt) as RowWrite<Out>;
}
