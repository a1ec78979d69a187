// JSON straight from the snapshot's row bytes: a projected row is written field by field from
// its FlatBuffers table into one reused byte buffer — no record object, no string decoding, no
// JSON.stringify of the row. Strings are UTF-8 in the snapshot and UTF-8 on the wire, so they are
// copied with JSON's escapes applied to the bytes. The output is byte for byte what
// JSON.stringify(projection.project(table.record(row))) gives (test/render/row-json.test.ts):
// - strings escape `"`, `\` and U+0000–U+001F as JSON.stringify does (\b \t \n \f \r, else
//   \u00xx); a string that is not well-formed UTF-8 or starts with a byte-order mark (which the
//   record decoder replaces or drops) goes through the decoder and JSON.stringify instead;
//   a JSON-text field (`translations`) is stored escaped (format/json-text.ts) and copied as it is;
// - numbers print as JSON.stringify prints them (non-finite → null);
// - absent fields read as the codec reads them (0, null or '' by field kind).
// Values a caller computes per row (search additions, a `type` that replaces the stored one)
// come from `extras`: prepared texts and numbers as bytes, anything else with JSON.stringify
// (undefined leaves the key out, as it does). Each writer compiles its steps once
// (row-json-compile.ts): at once while the thread prepares, or, for a writer first needed while
// it serves (a new `fields` list, a `locale` list), once it has interpreted COMPILE_AFTER_ROWS
// rows in lists of COMPILE_MAX_AVERAGE_ROWS or fewer on average (rowWritersCompileAtOnce).
import { FIELD_DOUBLE_OR_NULL, FIELD_INT, FIELD_INT_OR_NULL, FIELD_JSON_STRING, FIELD_STRING, FIELD_STRING_OR_EMPTY, type FieldLayout, type RowBytes } from '../store/types.js';
import { decodeUtf8 } from '../store/record-byte-buffer.js';
import { fieldOffset, simpleDecimalAt, stringAt } from '../store/row-values.js';
import type { Projection } from './projection.js';
import { compileRowWrite, type RowWrite } from './row-json-compile.js';
import { DECIMAL_BYTES, INT_BYTES, writeDecimalAt, writeIntAt } from '../text/number-text.js';

const encoder = new TextEncoder();

/**
 * The output buffer's size, from the start and after a trim: bodies up to this size never grow it.
 * Why from the start: growing it midway through a body ran a compiled row writer's growth path
 * (row-json-compile.ts), which the warm-up's bodies had never run, so V8 deoptimized the writer at
 * the first list body over 64 KiB after ready (its first size) and ran the rest of that body, and
 * the next ones while recompiling, unoptimized: the largest states' city lists took 5.1–5.7 ms of
 * the server's time instead of 0.9–1.9. Its pages cost memory only once written.
 */
export const KEPT_JSON_BYTES = 1024 * 1024;

/** A growable byte buffer reused across requests (one per thread: requests run one at a time). */
export class JsonBytes {
  /** The bytes; [0, length) are written. Public for the compiled row writers, which store into it directly. */
  buffer = new Uint8Array(KEPT_JSON_BYTES);
  length = 0;

  reset(): this {
    this.length = 0;
    return this;
  }

  /** Empties it, and replaces its buffer by a new one of KEPT_JSON_BYTES when a body grew it past that. */
  trim(): void {
    this.length = 0;
    if (this.buffer.length > KEPT_JSON_BYTES) this.buffer = new Uint8Array(KEPT_JSON_BYTES);
  }

  /** Room for `more` bytes. */
  reserve(more: number): void {
    const needed = this.length + more;
    if (needed <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  bytes(source: Uint8Array): void {
    const n = source.length;
    this.reserve(n);
    if (n > 32) this.buffer.set(source, this.length);
    else {
      // Keys and short names: a loop beats TypedArray.prototype.set's call overhead.
      const buffer = this.buffer;
      let at = this.length;
      for (let i = 0; i < n; i++) buffer[at++] = source[i]!;
    }
    this.length += n;
  }

  /** An int32 in decimal, as String(value) writes it (no string made). */
  int(value: number): void {
    this.reserve(INT_BYTES);
    this.length = writeIntAt(this.buffer, this.length, value);
  }

  /**
   * A number as JSON.stringify writes it (non-finite → null). Without making a string for int32
   * integers (populations stored as doubles) and decimals of up to 8 places (match scores,
   * distances, coordinates): String() of a double costs ~0.1–0.2 µs, and its string is kept in
   * V8's number-string cache long enough to be promoted (runtime/text/number-text.ts).
   */
  number(value: number): void {
    if ((value | 0) === value) {
      this.int(value); // -0 too: "0", as String(-0)
      return;
    }
    this.reserve(DECIMAL_BYTES);
    const end = writeDecimalAt(this.buffer, this.length, value);
    if (end >= 0) this.length = end;
    else this.ascii(Number.isFinite(value) ? String(value) : 'null');
  }

  /** Text of ASCII characters only (numbers, literals). */
  ascii(text: string): void {
    const n = text.length;
    this.reserve(n);
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < n; i++) buffer[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    this.reserve(text.length * 3);
    this.length += encoder.encodeInto(text, this.buffer.subarray(this.length)).written;
  }

  /**
   * Copies the UTF-8 string bytes[start, start + length) as a JSON string literal. Returns false
   * (having written nothing) when the bytes are not well-formed UTF-8 or start with a byte-order
   * mark: the caller then writes the decoded string instead.
   */
  utf8String(bytes: Uint8Array, start: number, length: number): boolean {
    const end = start + length;
    if (length >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) return false;
    // Worst case every byte becomes \u00xx (6 bytes), plus the quotes.
    this.reserve(length * 6 + 2);
    const out = this.buffer;
    const mark = this.length;
    let at = mark;
    out[at++] = 0x22;
    let i = start;
    while (i < end) {
      const b = bytes[i]!;
      if (b >= 0x20 && b < 0x80) {
        if (b === 0x22 || b === 0x5c) out[at++] = 0x5c;
        out[at++] = b;
        i++;
        continue;
      }
      if (b < 0x20) {
        out[at++] = 0x5c;
        const short = SHORT_ESCAPES[b]!;
        if (short !== 0) out[at++] = short;
        else {
          out[at++] = 0x75; // u00xx, lower-case hex as JSON.stringify writes it
          out[at++] = 0x30;
          out[at++] = 0x30;
          out[at++] = HEX[b >>> 4]!;
          out[at++] = HEX[b & 15]!;
        }
        i++;
        continue;
      }
      // Multi-byte sequence: well-formed ones only (WHATWG's ranges, as the record decoder checks).
      let size = 0;
      if (b >= 0xc2 && b <= 0xdf) {
        if (i + 1 < end && (bytes[i + 1]! & 0xc0) === 0x80) size = 2;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (i + 2 < end) {
          const b1 = bytes[i + 1]!;
          if (b1 >= (b === 0xe0 ? 0xa0 : 0x80) && b1 <= (b === 0xed ? 0x9f : 0xbf) && (bytes[i + 2]! & 0xc0) === 0x80) size = 3;
        }
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (i + 3 < end) {
          const b1 = bytes[i + 1]!;
          if (b1 >= (b === 0xf0 ? 0x90 : 0x80) && b1 <= (b === 0xf4 ? 0x8f : 0xbf) && (bytes[i + 2]! & 0xc0) === 0x80 && (bytes[i + 3]! & 0xc0) === 0x80) size = 4;
        }
      }
      if (size === 0) {
        this.length = mark;
        return false;
      }
      for (let k = 0; k < size; k++) out[at++] = bytes[i + k]!;
      i += size;
    }
    out[at++] = 0x22;
    this.length = at;
    return true;
  }

  /**
   * The bytes written, borrowed: a view of the reused buffer, valid until the next reset(). What
   * renders answer with (the response cache copies them into its ring at once, a write sends them
   * at once): no ArrayBuffer per answer for V8 to count as external memory.
   */
  view(): Buffer {
    return Buffer.from(this.buffer.buffer, this.buffer.byteOffset, this.length);
  }
}

// A field V8 has only seen assigned once is "constant": optimised code embeds its value, and is
// thrown away at its first reassignment. The output buffer is reassigned when a body outgrows it:
// in a process where nothing had (the server's warm-up happens to, benches and tools do not),
// every compiled row writer was deoptimised in the middle of the first body over 1 MiB (all
// states at the Full tier, in process, first call: 49–62 ms, 20–27 without it). Reassigned here
// once, before any code is compiled.
{
  const unpinned = new JsonBytes();
  unpinned.buffer = new Uint8Array(0);
}

const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** JSON.stringify's two-character escapes by control byte (0: \u00xx). */
const SHORT_ESCAPES = new Uint8Array(32);
SHORT_ESCAPES[8] = 0x62; // \b
SHORT_ESCAPES[9] = 0x74; // \t
SHORT_ESCAPES[10] = 0x6e; // \n
SHORT_ESCAPES[12] = 0x66; // \f
SHORT_ESCAPES[13] = 0x72; // \r

/** A per-row value that copies one of the row's own fields (e.g. matched_alias = native). */
export class FieldCopy {
  constructor(readonly field: string) {}
}

/**
 * A string value already escaped for JSON: `inner` is the UTF-8 of JSON.stringify(text) without
 * its quotes. Made once for values that recur (a result type, a parent's name), written per row
 * as bytes.
 */
export class JsonText {
  readonly inner: Uint8Array;

  constructor(readonly text: string) {
    const literal = encoder.encode(JSON.stringify(text));
    this.inner = literal.subarray(1, literal.length - 1);
  }
}

const constantTexts = new Map<string, JsonText>();

/** The JsonText of a constant (result types, field names: a handful of values), made once. */
export function jsonTextOf(text: string): JsonText {
  let found = constantTexts.get(text);
  if (found === undefined) {
    found = new JsonText(text);
    if (constantTexts.size < 1024) constantTexts.set(text, found);
  }
  return found;
}

/**
 * A per-row value joining one of the row's own string fields with other texts by ', ', each part
 * only when it is not empty, a separator only between written parts: what
 * `[field, ...parts].filter(Boolean).join(', ')` gives, written without decoding the field.
 * Reused: set `count` and the first `count` parts per row.
 */
export class JoinedText {
  readonly parts: (JsonText | null)[] = [];
  count = 0;

  constructor(readonly field: string) {}
}

/** A stored int field written as a JSON string ("123"; null when a nullable one is absent): ids as postcode records serve them. */
export class IntAsText {
  constructor(readonly field: string) {}
}

/**
 * A stored decimal text written as a JSON number — Number(text) as JSON.stringify prints it; null
 * when absent, blank or not finite: coordinates as postcode records serve them.
 */
export class NumberFromText {
  constructor(readonly field: string) {}
}

/** One step of a row's object: a stored field or a caller's value, with its `"name":` bytes. */
interface Step {
  /** `,"name":` */
  readonly key: Uint8Array;
  /** `{"name":`: the key when it is the row's first, with the object's opening brace. */
  readonly firstKey: Uint8Array;
  /** The stored field, or null: take extras[extraIndex]. */
  readonly field: FieldLayout | null;
  readonly extraIndex: number;
}

/**
 * Rows branchRows looks through: the first BRANCH_DENSE_ROWS, then about BRANCH_SPREAD_ROWS spread
 * evenly over the rest. Rare fields come in runs (the cities' level and parent_id: 3,105 and
 * 2,721 rows of 152,970, none before row 18,415), which an even spread meets.
 */
const BRANCH_DENSE_ROWS = 1000;
const BRANCH_SPREAD_ROWS = 8000;
/** Passes over branchRows a writer's priming makes: enough calls for V8 to have allocated its feedback before the last. */
const PRIMING_ROUNDS = 9;

/**
 * Rows a writer made while the thread serves interprets before it compiles its steps. A compiled
 * writer is new code: V8 runs it unoptimized for its first few thousand rows, then optimizes it on
 * another thread, while `interpret` is one function for every writer, optimized by the warm-up
 * (warmRowJson). So a projection first asked for after ready (a `fields` selection, a `locale`
 * list with translations) ran its first list at a third to half the speed of its later ones: the
 * US's 19,824 cities with `fields=id,name` 5.7 ms the first time and 1.7 after, in process; on
 * the server (median of 6 fresh ones) 7.0 ms, and 3.1 interpreted; the 250 countries with `locale`
 * and `include_translations` 5.9 → 2.8 ms (README, Memory: Compiling after ready). Compiled code is
 * still the faster once optimized (1.15–1.5× on narrow projections, ~2× on whole rows), so a
 * writer used this much compiles, at the start of a list (COMPILE_MAX_AVERAGE_ROWS).
 */
export const COMPILE_AFTER_ROWS = 50_000;
/**
 * A writer compiles only at the start of a list, and only if its lists so far averaged at most
 * this many rows: its new code then runs unoptimized over few rows before V8 optimizes it. One
 * used for long lists (a whole country's cities) stays interpreted, 0.3–2 ms more per list of
 * the US's cities: compiled, one of its lists would run cold, 3–5 ms more, the slow answer again.
 */
export const COMPILE_MAX_AVERAGE_ROWS = 2_000;
/** Whether writers made from now on compile at once (rowWritersCompileAtOnce). */
let compileAtOnce = true;

/**
 * Whether row writers made from now on compile their steps at once (true: tools, tests, benches,
 * and a server thread's preparation, whose warm-up then optimizes them) or interpret their first
 * COMPILE_AFTER_ROWS rows (false: a server thread once it serves). Returns the setting before.
 */
export function rowWritersCompileAtOnce(atOnce: boolean): boolean {
  const before = compileAtOnce;
  compileAtOnce = atOnce;
  return before;
}
/** Where writers write their priming rows (RowJsonWriter.prime): not the thread's output buffer, which a caller may be filling. */
const primingBytes = new JsonBytes();
const branchRowsOf = new WeakMap<RowBytes, readonly number[]>();

/**
 * Rows of the table that between them hold each field of its layout and lack it, where the rows
 * it looks through (BRANCH_DENSE_ROWS, BRANCH_SPREAD_ROWS) have such rows: the first found of each,
 * ascending, once per table.
 */
export function branchRows(rows: RowBytes): readonly number[] {
  let found = branchRowsOf.get(rows);
  if (found !== undefined) return found;
  const view = new DataView(rows.bytes.buffer, rows.bytes.byteOffset, rows.bytes.byteLength);
  const layout = rows.layout;
  // Per field: 1 once a row lacking it was taken, 2 once a row holding it was.
  const seen = new Uint8Array(layout.length);
  const taken = new Set<number>();
  const stride = Math.max(1, Math.floor(rows.count / BRANCH_SPREAD_ROWS));
  for (let row = 0, missing = 2 * layout.length; row < rows.count && missing > 0; row += row < BRANCH_DENSE_ROWS ? 1 : stride) {
    const position = rows.tablePosition(row);
    for (let i = 0; i < layout.length; i++) {
      const bit = fieldOffset(view, position, layout[i]!) === 0 ? 1 : 2;
      if ((seen[i]! & bit) !== 0) continue;
      seen[i]! |= bit;
      missing--;
      taken.add(row);
    }
  }
  found = [...taken].sort((a, b) => a - b);
  branchRowsOf.set(rows, found);
  return found;
}

/** The most bytes of one record touchRecords reads (a city's is ~600 on the full dataset). */
const TOUCH_MAX_BYTES = 4096;
/** Where touchRecords leaves its loads' sum, so that they are not optimised away. */
let touchedBytesSum = 0;

/**
 * Writes rows of one table under one projection. Names listed in `extraNames` (in projection
 * order) come from the caller's per-row values; every other projected name must be a stored field.
 */
export class RowJsonWriter {
  private readonly steps: readonly Step[];
  private readonly fieldByName: ReadonlyMap<string, FieldLayout>;
  private readonly view: DataView;
  private readonly bytes: Uint8Array;
  /** The steps as straight-line code (row-json-compile.ts); null: interpret them (see write). */
  private compiled: RowWrite<JsonBytes> | null;
  /** Rows to interpret before compiling (Infinity: `interpreted`, never). */
  private readonly compileAfterRows: number;
  private interpretedRows = 0;
  /** Lists begun while interpreting (a row not after a comma begins one). */
  private interpretedLists = 0;

  constructor(
    private readonly rows: RowBytes,
    projection: Projection,
    /** Names written from the per-row extras array, in this order of indexes. */
    readonly extraNames: readonly string[],
    /**
     * interpreted: walk the steps per row instead of compiling them (the render bench's baseline,
     * the tests' second opinion); compileAfterRows: interpret that many rows first, whatever
     * rowWritersCompileAtOnce says (the warm-up runs the switch).
     */
    options: { interpreted?: boolean; compileAfterRows?: number } = {},
  ) {
    this.bytes = rows.bytes;
    this.view = new DataView(rows.bytes.buffer, rows.bytes.byteOffset, rows.bytes.byteLength);
    this.fieldByName = new Map(rows.layout.map((field) => [field.name, field]));
    this.steps = projection.names.map((name) => {
      const extraIndex = extraNames.indexOf(name);
      const field = extraIndex >= 0 ? null : (this.fieldByName.get(name) ?? null);
      if (extraIndex < 0 && field === null) throw new Error(`row writer: ${name} is neither a stored field nor an extra`);
      return { key: encoder.encode(`,${JSON.stringify(name)}:`), firstKey: encoder.encode(`{${JSON.stringify(name)}:`), field, extraIndex };
    });
    this.compiled = null;
    this.compileAfterRows = options.interpreted ? Infinity : (options.compileAfterRows ?? (compileAtOnce ? 0 : COMPILE_AFTER_ROWS));
    if (this.compileAfterRows === 0) this.compile();
  }

  /** Whether the steps run compiled (else interpreted). */
  get isCompiled(): boolean {
    return this.compiled !== null;
  }

  private compile(): void {
    this.compiled = compileRowWrite(this.steps, this.view, this, writeIntAt);
    if (this.extraNames.length === 0) this.prime();
  }

  /**
   * Writes, into a throwaway buffer, rows that take both branches of each stored field: absent
   * and present (branchRows). V8 keeps feedback per compiled writer, and optimizes it on the rows
   * it has written; a branch none of them took had none, and V8 deoptimized the writer the first
   * time a row took it: the full tier's city and state writers in each thread, at the first real
   * load after ready (fields the warm-up's rows never held). Writers with extras (search results)
   * are left out: their extras' kinds come from the caller.
   */
  private prime(): void {
    const primed = primingBytes.reset();
    const rows = branchRows(this.rows);
    // V8 allocates a function's feedback only after its first calls (8 in Node 20's V8): each row
    // is written again after that.
    for (let round = 0; round < PRIMING_ROUNDS; round++) {
      for (const row of rows) {
        this.write(primed, row, null);
        primed.reset();
      }
    }
  }

  /**
   * Reads one byte of each cache line of the items' records before they are written. Search
   * results are rows scattered over the records section, not in any cache; writing a row waits
   * for each line it reads in turn, while these loads are independent of one another, so the CPU
   * overlaps their misses. A record spans from its table to the next-lower row's table (the
   * builder writes rows back to front, each table before its own strings), at most
   * TOUCH_MAX_BYTES.
   */
  touchRecords(items: readonly { readonly row: number }[]): void {
    const rows = this.rows;
    const bytes = this.bytes;
    let sum = 0;
    for (let i = 0; i < items.length; i++) {
      const row = items[i]!.row;
      const start = rows.tablePosition(row);
      const next = row > 0 ? rows.tablePosition(row - 1) : start;
      const end = Math.min(next > start ? next : start + TOUCH_MAX_BYTES, start + TOUCH_MAX_BYTES, bytes.length);
      for (let at = start; at < end; at += 64) sum += bytes[at]!;
    }
    touchedBytesSum = sum;
  }

  /** The object of `row`, with `extras` (indexed as extraNames) for the computed names. */
  write(out: JsonBytes, row: number, extras: readonly unknown[] | null): void {
    const position = this.rows.tablePosition(row);
    if (this.compiled === null && (out.length === 0 || out.buffer[out.length - 1] !== 0x2c)) {
      // A list's first row (or a row alone): compile here once due (COMPILE_AFTER_ROWS, COMPILE_MAX_AVERAGE_ROWS).
      if (this.interpretedRows >= this.compileAfterRows && this.interpretedRows <= COMPILE_MAX_AVERAGE_ROWS * this.interpretedLists) this.compile();
      else this.interpretedLists++;
    }
    if (this.compiled !== null) this.compiled(out, position, extras);
    else {
      this.interpret(out, position, extras);
      this.interpretedRows++;
    }
  }

  /** What the compiled code does, step by step. */
  private interpret(out: JsonBytes, position: number, extras: readonly unknown[] | null): void {
    let first = true;
    for (const step of this.steps) {
      let extra: unknown;
      if (step.field === null) {
        extra = extras![step.extraIndex];
        if (extra === undefined) continue;
      }
      if (first) {
        out.bytes(step.firstKey);
        first = false;
      } else {
        out.bytes(step.key);
      }
      if (step.field !== null) this.writeField(out, position, step.field);
      else this.writeExtra(out, position, extra);
    }
    if (first) out.byte(0x7b); // no key written
    out.byte(0x7d);
  }

  /** A caller's per-row value (not undefined: its key is left out), after its key. */
  writeExtra(out: JsonBytes, position: number, extra: unknown): void {
    // The most frequent kinds first: result types, field names and parent names, scores, labels.
    if (extra === null) out.ascii('null');
    else if (extra instanceof JsonText) {
      out.byte(0x22);
      out.bytes(extra.inner);
      out.byte(0x22);
    } else if (typeof extra === 'number') out.number(extra);
    else if (extra instanceof JoinedText) this.writeJoined(out, position, extra);
    else if (extra instanceof FieldCopy) this.writeField(out, position, this.fieldByName.get(extra.field)!);
    else if (extra instanceof IntAsText) this.writeIntAsText(out, position, this.fieldByName.get(extra.field)!);
    else if (extra instanceof NumberFromText) this.writeNumberFromText(out, position, this.fieldByName.get(extra.field)!);
    else out.text(JSON.stringify(extra));
  }

  private writeJoined(out: JsonBytes, position: number, joined: JoinedText): void {
    const field = this.fieldByName.get(joined.field)!;
    if (field.kind !== FIELD_STRING_OR_EMPTY) throw new Error(`row writer: ${joined.field} is not a string field that reads '' when absent`);
    const start = out.length;
    this.writeField(out, position, field);
    out.length--; // reopen the string literal
    let written = out.length - start > 1;
    for (let i = 0; i < joined.count; i++) {
      const part = joined.parts[i];
      if (part == null || part.inner.length === 0) continue;
      if (written) out.ascii(', ');
      out.bytes(part.inner);
      written = true;
    }
    out.byte(0x22);
  }

  private writeIntAsText(out: JsonBytes, position: number, field: FieldLayout): void {
    if (field.kind !== FIELD_INT && field.kind !== FIELD_INT_OR_NULL) throw new Error(`row writer: ${field.name} is not an int field`);
    const offset = fieldOffset(this.view, position, field);
    if (offset === 0 && field.kind === FIELD_INT_OR_NULL) {
      out.ascii('null');
      return;
    }
    out.byte(0x22);
    out.int(offset === 0 ? 0 : this.view.getInt32(position + offset, true));
    out.byte(0x22);
  }

  private writeNumberFromText(out: JsonBytes, position: number, field: FieldLayout): void {
    if (field.kind !== FIELD_STRING) throw new Error(`row writer: ${field.name} is not a nullable string field`);
    const offset = fieldOffset(this.view, position, field);
    if (offset === 0) {
      out.ascii('null');
      return;
    }
    const at = position + offset;
    const start = at + this.view.getInt32(at, true);
    const simple = simpleDecimalAt(this.bytes, start + 4, this.view.getInt32(start, true));
    if (simple === simple) {
      out.number(simple); // not NaN: no string decoded
      return;
    }
    const text = stringAt(this.view, this.bytes, at);
    out.number(text.trim() === '' ? NaN : Number(text));
  }

  private writeField(out: JsonBytes, position: number, field: FieldLayout): void {
    const view = this.view;
    const offset = fieldOffset(this.view, position, field);
    switch (field.kind) {
      case FIELD_INT:
        out.int(offset === 0 ? 0 : view.getInt32(position + offset, true));
        return;
      case FIELD_INT_OR_NULL:
        if (offset === 0) out.ascii('null');
        else out.int(view.getInt32(position + offset, true));
        return;
      case FIELD_DOUBLE_OR_NULL:
        if (offset === 0) out.ascii('null');
        else this.writeDoubleAt(out, position + offset);
        return;
      case FIELD_JSON_STRING:
        if (offset === 0) out.ascii('null');
        else this.writeJsonStringAt(out, position + offset);
        return;
      default:
        if (offset === 0) out.ascii(field.kind === FIELD_STRING_OR_EMPTY ? '""' : 'null');
        else this.writeStringAt(out, position + offset);
    }
  }

  /** The float64 stored at `at` (a present field), as JSON.stringify prints it. */
  writeDoubleAt(out: JsonBytes, at: number): void {
    out.number(this.view.getFloat64(at, true));
  }

  /** A FIELD_JSON_STRING whose offset is stored at `at` (a present field): its stored bytes, quoted. */
  writeJsonStringAt(out: JsonBytes, at: number): void {
    const start = at + this.view.getInt32(at, true);
    const length = this.view.getInt32(start, true);
    out.byte(0x22);
    out.bytes(this.bytes.subarray(start + 4, start + 4 + length));
    out.byte(0x22);
  }

  /** The string whose offset is stored at `at` (a present field), as a JSON string literal. */
  writeStringAt(out: JsonBytes, at: number): void {
    const start = at + this.view.getInt32(at, true);
    const length = this.view.getInt32(start, true);
    if (!out.utf8String(this.bytes, start + 4, length)) out.text(JSON.stringify(decodeUtf8(this.bytes, start + 4, length)));
  }
}

const writers = new WeakMap<RowBytes, Map<string, RowJsonWriter>>();

/** The writer of (table, projection, extra names), compiled once and shared. */
export function rowJsonWriter(rows: RowBytes, projection: Projection, extraNames: readonly string[]): RowJsonWriter {
  let byKey = writers.get(rows);
  if (!byKey) writers.set(rows, (byKey = new Map()));
  const key = `${projection.id}|${extraNames.join(',')}`;
  let writer = byKey.get(key);
  if (!writer) {
    writer = new RowJsonWriter(rows, projection, extraNames);
    byKey.set(key, writer);
  }
  return writer;
}

/** The thread's reusable output buffer. */
export const sharedJsonBytes = new JsonBytes();

/**
 * Drops the thread's output buffer if one body grew it past KEPT_JSON_BYTES (it starts again at
 * that size): for a server that has just rendered lists of every size while warming up, and should
 * not keep the largest one's buffer for its whole life.
 */
export function trimSharedJsonBytes(): void {
  sharedJsonBytes.trim();
}

/** Rows of a long list written before the rest of its body is reserved (reserveForRest). */
const SIZING_ROWS = 64;

/**
 * Once SIZING_ROWS rows of a list are written: room for the other `remaining` rows at their
 * average size so far, plus a tenth. A body over the buffer's size then grows it once, instead
 * of doubling it step by step and copying what was written at each step (all states at the Full
 * tier, 4.3 MB: 1 → 2 → 4 → 8 MiB, ~7 MB copied and 14 MiB of fresh pages touched).
 */
function reserveForRest(out: JsonBytes, start: number, remaining: number): void {
  if (remaining > 0) out.reserve(Math.ceil(((out.length - start) / SIZING_ROWS) * remaining * 1.1));
}

/** JSON array of `count` rows (rowAt(i)) with no per-row extras, borrowed (JsonBytes.view). */
export function rowsJson(rows: RowBytes, projection: Projection, count: number, rowAt: (index: number) => number): Buffer {
  const writer = rowJsonWriter(rows, projection, []);
  const out = sharedJsonBytes.reset();
  out.byte(0x5b);
  for (let i = 0; i < count; i++) {
    if (i > 0) out.byte(0x2c);
    if (i === SIZING_ROWS) reserveForRest(out, 1, count - i);
    writer.write(out, rowAt(i), null);
  }
  out.byte(0x5d);
  return out.view();
}

/**
 * JSON array of `items` (each the object of row `item.row`), borrowed (JsonBytes.view). Before each
 * row, `fillExtras` stores that row's values of the writer's extraNames in `extras` (the caller's
 * reused array): nothing is allocated per row.
 */
export function writeRowsArray<T extends { readonly row: number }>(writer: RowJsonWriter, items: readonly T[], extras: unknown[], fillExtras: (extras: unknown[], item: T) => void): Buffer {
  const out = sharedJsonBytes.reset();
  writer.touchRecords(items);
  out.byte(0x5b);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    fillExtras(extras, item);
    if (i > 0) out.byte(0x2c);
    if (i === SIZING_ROWS) reserveForRest(out, 1, items.length - i);
    writer.write(out, item.row, extras);
  }
  out.byte(0x5d);
  return out.view();
}

/**
 * `prefix`, a JSON array of `rows` (each written with the same `extras`), then `suffix`: a whole
 * body with rows in it, borrowed (JsonBytes.view).
 */
export function rowsBody(prefix: string, writer: RowJsonWriter, rows: readonly number[], extras: readonly unknown[], suffix: string): Buffer {
  const out = sharedJsonBytes.reset();
  out.text(prefix);
  out.byte(0x5b);
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out.byte(0x2c);
    writer.write(out, rows[i]!, extras);
  }
  out.byte(0x5d);
  out.text(suffix);
  return out.view();
}

/** Rows per list of warmRowJson's second pass. */
const WARM_LIST_ROWS = 10;
/** The extra of warmRowJson's second pass (a locale list's and a search's writers have extras). */
const WARM_EXTRA = 'warm_extra';

/**
 * Writes (and drops) rows [from, to) of a table under a projection twice, so that the first real
 * list runs optimized code: with the projection's own writer, and, as lists of WARM_LIST_ROWS with
 * an extra (null, a JsonText, a string or left out), with one that interprets the first half of them and then
 * compiles, as a writer first made while serving does (COMPILE_AFTER_ROWS): `interpret`, its list
 * starts, its extras and the switch, which V8 would otherwise meet first after ready and
 * deoptimize interpret(), write() and the list code they are inlined into.
 */
export function warmRowJson(rows: RowBytes, projection: Projection, from: number, to: number): void {
  const out = sharedJsonBytes.reset();
  const compiled = rowJsonWriter(rows, projection, []);
  for (let row = from; row < to; row++) compiled.write(out.reset(), row, null);
  const withExtra = { ...projection, names: [...projection.names, WARM_EXTRA] };
  const switching = new RowJsonWriter(rows, withExtra, [WARM_EXTRA], { compileAfterRows: Math.max(1, (to - from) >> 1) });
  // Both kinds of extras array the handlers pass: literals (packed) and new Array(n) (holey).
  const extrasArrays: unknown[][] = [[null], new Array<unknown>(1)];
  for (let start = from; start < to; start += WARM_LIST_ROWS) {
    const extras = extrasArrays[(start / WARM_LIST_ROWS) & 1]!;
    out.reset().byte(0x5b);
    for (let row = start; row < Math.min(to, start + WARM_LIST_ROWS); row++) {
      if (row > start) out.byte(0x2c);
      const kind = row & 3;
      extras[0] = kind === 0 ? null : kind === 1 ? jsonTextOf(WARM_EXTRA) : kind === 2 ? WARM_EXTRA : undefined;
      switching.write(out, row, extras);
    }
    out.byte(0x5d);
  }
  out.reset();
}
