// The row writer (runtime/render/row-json.ts) writes exactly what JSON.stringify of the projected
// decoded record gives, for every row of the fixture's cities, states and countries at every tier, and
// escapes strings as JSON.stringify does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CITY_FIELDS, COUNTRY_FIELDS, STATE_FIELDS } from '../../runtime/render/fields.js';
import { projectionFor } from '../../runtime/render/projection.js';
import { branchRows, COMPILE_AFTER_ROWS, COMPILE_MAX_AVERAGE_ROWS, FieldCopy, JoinedText, JsonBytes, JsonText, KEPT_JSON_BYTES, RowJsonWriter, rowWritersCompileAtOnce, sharedJsonBytes, jsonTextOf, rowJsonWriter, rowsJson, writeRowsArray } from '../../runtime/render/row-json.js';
import { deoptsAfter, moduleLiteral, runWithNatives } from '../support/natives.js';
import { fixtureSnapshot } from '../support/snapshots.js';
import { join } from 'node:path';
import { loadSource, writeLoadedSnapshot } from '../../build-index/build.js';
import { loadStore } from '../../runtime/store/index.js';
import { fixtureDir, tempDir } from '../build-index/support.js';

const text = (out: JsonBytes) => out.view().toString('utf8');

describe('row JSON writer', () => {
  it('writes every city, state and country row as JSON.stringify of its projected record, at every tier', () => {
    const { store } = fixtureSnapshot();
    for (const [table, set] of [[store.cities, CITY_FIELDS], [store.states, STATE_FIELDS], [store.countries, COUNTRY_FIELDS]] as const) {
      const rowBytes = table.rowBytes;
      assert.ok(rowBytes, `${set.entity} has a row layout`);
      for (const tier of ['basic', 'coordinates', 'full'] as const) {
        for (const includeTranslations of [false, true]) {
          const projection = projectionFor(set, tier, { includeTranslations });
          const writer = rowJsonWriter(rowBytes, projection, []);
          const interpreted = new RowJsonWriter(rowBytes, projection, [], { interpreted: true });
          const out = new JsonBytes();
          for (let row = 0; row < table.count; row++) {
            const expected = JSON.stringify(projection.project(table.record(row)));
            writer.write(out.reset(), row, null);
            assert.equal(text(out), expected, `${set.entity} row ${row} at ${tier}`);
            interpreted.write(out.reset(), row, null);
            assert.equal(text(out), expected, `${set.entity} row ${row} at ${tier}, interpreted`);
          }
          const all = rowsJson(rowBytes, projection, table.count, (i) => i).toString('utf8');
          assert.equal(all, JSON.stringify(Array.from({ length: table.count }, (_, row) => projection.project(table.record(row)))));
        }
      }
    }
  });

  it('writes the same rows when its buffer has to grow at any step of a row, compiled or interpreted', () => {
    // A thread's buffer starts at KEPT_JSON_BYTES, so no fixture body grows it: a 1-byte buffer
    // makes the growth path run at the steps of every row, and at different ones as it doubles.
    const { store } = fixtureSnapshot();
    for (const [table, set] of [[store.cities, CITY_FIELDS], [store.countries, COUNTRY_FIELDS]] as const) {
      const projection = projectionFor(set, 'full', { includeTranslations: true });
      for (const writer of [rowJsonWriter(table.rowBytes!, projection, []), new RowJsonWriter(table.rowBytes!, projection, [], { interpreted: true })]) {
        for (let row = 0; row < table.count; row++) {
          const out = new JsonBytes();
          out.buffer = new Uint8Array(1);
          writer.write(out, row, null);
          writer.write(out, row, null);
          const one = JSON.stringify(projection.project(table.record(row)));
          assert.equal(text(out), one + one, `${set.entity} row ${row}`);
        }
      }
    }
  });

  it('primes each writer on rows that between them hold and lack every field any row holds and lacks', () => {
    const { store } = fixtureSnapshot();
    for (const table of [store.cities, store.states, store.countries]) {
      const rowBytes = table.rowBytes!;
      const view = new DataView(rowBytes.bytes.buffer, rowBytes.bytes.byteOffset, rowBytes.bytes.byteLength);
      const holds = (row: number, slot: number): boolean => {
        const position = rowBytes.tablePosition(row);
        const vtable = position - view.getInt32(position, true);
        return slot < view.getUint16(vtable, true) && view.getUint16(vtable + slot, true) !== 0;
      };
      const rows = branchRows(rowBytes);
      assert.deepEqual(rows, [...new Set(rows)].sort((a, b) => a - b));
      assert.equal(branchRows(rowBytes), rows, 'once per table');
      // The fixture's tables are smaller than the rows branchRows reads through: every row is read.
      for (const field of rowBytes.layout) {
        const all = Array.from({ length: table.count }, (_, row) => holds(row, field.slot));
        for (const held of [true, false]) {
          if (all.includes(held)) assert.ok(rows.some((row) => holds(row, field.slot) === held), `${field.name} ${held ? 'held' : 'lacked'} by no primed row`);
        }
      }
    }
  });

  it('leaves a primed writer nothing to deoptimize when it then writes every row, whatever rows it was first given', () => {
    // V8's own verdict (--trace-deopt) in a child: a writer made (and primed), used on its first
    // row only, optimized, then run over every row of the table. Unprimed, a field the first row
    // lacks (a city's population, a state's parent_id) deoptimizes it.
    const module = (path: string): string => moduleLiteral(path, import.meta.url);
    const script = `
      const { fixtureSnapshot } = await import(${module('../support/snapshots.js')});
      const { projectionFor } = await import(${module('../../runtime/render/projection.js')});
      const { CITY_FIELDS, STATE_FIELDS } = await import(${module('../../runtime/render/fields.js')});
      const { JsonBytes, RowJsonWriter } = await import(${module('../../runtime/render/row-json.js')});
      const { store } = fixtureSnapshot();
      const out = new JsonBytes();
      for (const [table, set] of [[store.cities, CITY_FIELDS], [store.states, STATE_FIELDS]]) {
        const writer = new RowJsonWriter(table.rowBytes, projectionFor(set, 'full', { includeTranslations: true }), []);
        for (let i = 0; i < 20; i++) writer.write(out.reset(), 0, null);
        const compiled = writer['compiled'];
        %PrepareFunctionForOptimization(compiled);
        %OptimizeFunctionOnNextCall(compiled);
        console.log('@@rows ' + set.entity);
        for (let row = 0; row < table.count; row++) writer.write(out.reset(), row, null);
      }
      console.log('@@done');
    `;
    const out = runWithNatives(script, ['--trace-deopt']);
    assert.ok(out.includes('@@done'), out.slice(-2000));
    assert.deepEqual(deoptsAfter(out, '@@rows').filter((deopt) => deopt.startsWith('writeRow:')), []);
  });

  it('interprets the first COMPILE_AFTER_ROWS rows of a writer made while serving, then compiles, writing the same bytes throughout', () => {
    const { store } = fixtureSnapshot();
    const table = store.cities;
    const full = projectionFor(CITY_FIELDS, 'full', { includeTranslations: true });
    // Also with an extra, as a search's or a locale list's writer (not primed when it compiles).
    for (const [projection, extraNames] of [[full, []], [{ ...full, names: [...full.names, 'extra'] }, ['extra']]] as const) {
      const extrasOf = (row: number): unknown[] | null => (extraNames.length > 0 ? [new JsonText(`row ${row}`)] : null);
      const expected = Array.from({ length: table.count }, (_, row) => {
        const out = new JsonBytes();
        new RowJsonWriter(table.rowBytes!, projection, extraNames, { interpreted: true }).write(out, row, extrasOf(row));
        return text(out);
      });
      const before = rowWritersCompileAtOnce(false);
      let writer: RowJsonWriter;
      try {
        writer = new RowJsonWriter(table.rowBytes!, projection, extraNames);
      } finally {
        rowWritersCompileAtOnce(before);
      }
      assert.equal(writer.isCompiled, false, 'made while serving: interpreted');
      const out = new JsonBytes();
      // Rows alone (each begins a "list" of one): it compiles at the row after the first COMPILE_AFTER_ROWS.
      for (let written = 1; written <= COMPILE_AFTER_ROWS + table.count; written++) {
        const row = written % table.count;
        writer.write(out.reset(), row, extrasOf(row));
        assert.equal(writer.isCompiled, written > COMPILE_AFTER_ROWS, `after ${written} rows`);
        if (written % 997 === 0 || Math.abs(written - COMPILE_AFTER_ROWS) <= table.count) assert.equal(text(out), expected[row], `row ${row} after ${written} rows`);
      }
    }
    assert.equal(new RowJsonWriter(table.rowBytes!, full, []).isCompiled, true, 'made while preparing (or in a tool): compiled at once');
    assert.equal(new RowJsonWriter(table.rowBytes!, full, [], { interpreted: true }).isCompiled, false);
  });

  it('keeps interpreting a writer made while serving whose lists average over COMPILE_MAX_AVERAGE_ROWS rows, and compiles one of shorter lists at a list start', () => {
    const { store } = fixtureSnapshot();
    const table = store.cities;
    const projection = projectionFor(CITY_FIELDS, 'coordinates', {});
    const reference = new RowJsonWriter(table.rowBytes!, projection, [], { interpreted: true });
    const listOf = (writer: RowJsonWriter, length: number, first: number): string => {
      const out = new JsonBytes();
      out.byte(0x5b);
      for (let i = 0; i < length; i++) {
        if (i > 0) out.byte(0x2c);
        writer.write(out, (first + i) % table.count, null);
      }
      out.byte(0x5d);
      return text(out);
    };
    for (const [length, compiles] of [[COMPILE_MAX_AVERAGE_ROWS + 1, false], [COMPILE_MAX_AVERAGE_ROWS, true], [7, true]] as const) {
      const before = rowWritersCompileAtOnce(false);
      const writer = new RowJsonWriter(table.rowBytes!, projection, []);
      rowWritersCompileAtOnce(before);
      let written = 0;
      for (let list = 0; written < COMPILE_AFTER_ROWS + 2 * length; list++) {
        const compiledBefore = writer.isCompiled;
        assert.equal(listOf(writer, length, list), listOf(reference, length, list), `list ${list} of ${length}`);
        // Never in the middle of a list: compiled for the whole of it or for none of it.
        assert.equal(writer.isCompiled, compiledBefore || (compiles && written >= COMPILE_AFTER_ROWS), `after list ${list} of ${length}`);
        written += length;
      }
      assert.equal(writer.isCompiled, compiles, `lists of ${length}`);
    }
  });

  it('deoptimizes nothing when a writer compiles after interpreting, while other writers run optimized', () => {
    // V8's own verdict (--trace-deopt) in a child. The first writer to compile after ready must not
    // throw away write() or the list code it is inlined into: the warm-up runs the switch
    // (warmRowJson), so V8 has seen it when it optimizes them. Without it, write() deoptimizes here.
    const module = (path: string): string => moduleLiteral(path, import.meta.url);
    const script = `
      const { fixtureSnapshot } = await import(${module('../support/snapshots.js')});
      const { projectionFor } = await import(${module('../../runtime/render/projection.js')});
      const { CITY_FIELDS } = await import(${module('../../runtime/render/fields.js')});
      const { COMPILE_AFTER_ROWS, JsonBytes, RowJsonWriter, rowWritersCompileAtOnce } = await import(${module('../../runtime/render/row-json.js')});
      const { store } = fixtureSnapshot();
      const rows = store.cities.rowBytes;
      const out = new JsonBytes();
      const list = (writer, n) => { for (let i = 0; i < n; i++) writer.write(out.reset(), i % store.cities.count, null); };
      %PrepareFunctionForOptimization(list);
      // As a server's preparation leaves it: many writers compiled (warmRowJson: each tier, with
      // and without translations), and the switch from interpreting to compiled run.
      let warm;
      for (const tier of ['basic', 'coordinates', 'full']) {
        for (const includeTranslations of [false, true]) {
          warm = new RowJsonWriter(rows, projectionFor(CITY_FIELDS, tier, { includeTranslations }), []);
          list(warm, 300);
          list(new RowJsonWriter(rows, projectionFor(CITY_FIELDS, tier, { includeTranslations }), [], { compileAfterRows: 150 }), 300);
        }
      }
      %OptimizeFunctionOnNextCall(list);
      list(warm, 10);
      rowWritersCompileAtOnce(false);
      const later = new RowJsonWriter(rows, { ...projectionFor(CITY_FIELDS, 'basic', {}), names: ['id', 'name'] }, []);
      list(later, COMPILE_AFTER_ROWS - 1);
      console.log('@@compile ' + later.isCompiled);
      list(later, 10);
      list(warm, 10);
      console.log('@@done ' + later.isCompiled);
    `;
    const out = runWithNatives(script, ['--trace-deopt']);
    assert.ok(out.includes('@@done true'), out.slice(-2000));
    assert.ok(out.includes('@@compile false'), out.slice(-2000));
    assert.deepEqual(deoptsAfter(out, '@@compile').filter((deopt) => /^(list|write|writeRow):/.test(deopt)), []);
  });

  it('primes a new writer without touching the thread’s output buffer, which a caller may be filling', () => {
    const { store } = fixtureSnapshot();
    sharedJsonBytes.reset().ascii('[{"partial":');
    const before = sharedJsonBytes.view().toString('utf8');
    new RowJsonWriter(store.cities.rowBytes!, projectionFor(CITY_FIELDS, 'coordinates', {}), []);
    assert.equal(sharedJsonBytes.view().toString('utf8'), before);
    sharedJsonBytes.reset();
  });

  it('starts its buffer at the size it is kept at, so a body under KEPT_JSON_BYTES never grows it', () => {
    const out = new JsonBytes();
    assert.equal(out.buffer.length, KEPT_JSON_BYTES);
    const buffer = out.buffer;
    out.reserve(KEPT_JSON_BYTES);
    assert.equal(out.buffer, buffer);
    out.length = KEPT_JSON_BYTES;
    out.reserve(1);
    assert.equal(out.buffer.length, 2 * KEPT_JSON_BYTES);
    out.trim();
    assert.equal(out.buffer.length, KEPT_JSON_BYTES);
    assert.equal(out.length, 0);
  });

  it('writes a list of rows in any order (first, last, repeated) after reading their records ahead, as JSON.stringify does', () => {
    const { store } = fixtureSnapshot();
    const table = store.cities;
    const projection = projectionFor(CITY_FIELDS, 'full', { includeTranslations: true });
    const writer = rowJsonWriter(table.rowBytes!, projection, []);
    const rows = [table.count - 1, 0, Math.floor(table.count / 2), 0, table.count - 1];
    writer.touchRecords([]);
    const body = writeRowsArray(writer, rows.map((row) => ({ row })), [], () => {}).toString('utf8');
    assert.equal(body, JSON.stringify(rows.map((row) => projection.project(table.record(row)))));
  });

  it('takes computed names from the extras, leaves undefined ones out and copies a field for FieldCopy', () => {
    const { store } = fixtureSnapshot();
    const projection = projectionFor(CITY_FIELDS, 'coordinates', { extra: ['type', 'label', 'match_score', 'matched_alias'] });
    const writer = rowJsonWriter(store.cities.rowBytes!, projection, ['type', 'label', 'match_score', 'matched_alias']);
    const out = new JsonBytes();
    writer.write(out, 0, ['city', undefined, 0.5, new FieldCopy('native')]);
    const record = store.cities.record(0) as unknown as Record<string, unknown>;
    const expected = projection.project({ ...record, type: 'city', label: undefined, match_score: 0.5, matched_alias: record.native });
    assert.equal(text(out), JSON.stringify(expected));
    // Every name an extra, every extra left out: an empty object, as JSON.stringify writes it.
    const allExtras = rowJsonWriter(store.cities.rowBytes!, projection, projection.names);
    allExtras.write(out.reset(), 0, projection.names.map(() => undefined));
    assert.equal(text(out), '{}');
  });

  it('escapes quotes, backslashes and control characters as JSON.stringify does, and refuses malformed UTF-8', () => {
    const out = new JsonBytes();
    const sample = 'a"b\\c\u0000\u0008\t\n\u000b\f\r\u001f\u007fé€😀';
    const bytes = Buffer.from(sample, 'utf8');
    assert.equal(out.utf8String(bytes, 0, bytes.length), true);
    assert.equal(text(out), JSON.stringify(sample));
    for (const bad of [[0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xef, 0xbb, 0xbf, 0x41]]) {
      const before = out.reset().length;
      assert.equal(out.utf8String(Uint8Array.from(bad), 0, bad.length), false, `refuses ${bad.join(' ')}`);
      assert.equal(out.length, before, 'writes nothing when it refuses');
    }
  });

  it('writes JsonText, numbers and null extras as JSON.stringify does, and joins a field with texts like filter(Boolean).join', () => {
    const { store } = fixtureSnapshot();
    const names = ['type', 'label', 'match_score', 'matched_field'];
    const projection = projectionFor(CITY_FIELDS, 'full', { extra: names });
    const writer = rowJsonWriter(store.cities.rowBytes!, projection, names);
    const interpreted = new RowJsonWriter(store.cities.rowBytes!, projection, names, { interpreted: true });
    const label = new JoinedText('name');
    const parts = [null, new JsonText(''), new JsonText('Zürich "Z" \\ \u0001'), new JsonText('😀 land')];
    for (let row = 0; row < store.cities.count; row++) {
      for (const [a, b] of [[0, 0], [1, 2], [2, 3], [3, 1], [2, 2]] as const) {
        label.parts[0] = parts[a]!;
        label.parts[1] = parts[b]!;
        label.count = 2;
        const score = [0.25, -0, NaN, 1e21, 0.1 + 0.2][row % 5]!;
        const out = new JsonBytes();
        const extras = [jsonTextOf('city'), label, score, row % 2 ? null : jsonTextOf('native')];
        writer.write(out, row, extras);
        const record = store.cities.record(row) as unknown as Record<string, unknown>;
        const joined = [record.name as string, parts[a]?.text, parts[b]?.text].filter(Boolean).join(', ');
        const expected = projection.project({ ...record, type: 'city', label: joined, match_score: score, matched_field: row % 2 ? null : 'native' });
        assert.equal(text(out), JSON.stringify(expected), `row ${row}`);
        interpreted.write(out.reset(), row, extras);
        assert.equal(text(out), JSON.stringify(expected), `row ${row}, interpreted`);
      }
    }
  });

  it('writes numbers as JSON.stringify does, hundredths and int32 integers without String()', () => {
    const out = new JsonBytes();
    const values = [0, -0, 1, -1, 0.5, 0.57, 0.1 + 0.2, 1.005, -0.25, 100, 2147483647, -2147483648, 2147483648, 3e9, 1e21, 1e-7, 5e-324, NaN, Infinity, -Infinity, 12.345678, 37000];
    for (let k = 0; k <= 100; k++) values.push(k / 100, (k + 0.5) / 100, k / 100 + Number.EPSILON);
    for (let i = 0; i < 2000; i++) values.push(Math.round(Math.random() * 1e6) / 1e4, (Math.random() - 0.5) * 1e10, Math.random());
    for (const value of values) {
      out.reset().number(value);
      assert.equal(text(out), JSON.stringify(value), String(value));
    }
  });

  it('writes int32 values digit by digit as String() does', () => {
    const out = new JsonBytes();
    const values = [0, -0, 1, 9, 10, 99, 100, 12345, -1, -10, -2147483648, -2147483647, 2147483647, 1000000000];
    for (let power = 1; power <= 1e9; power *= 10) values.push(power - 1, power, power + 1, -power, 1 - power);
    for (let i = 0; i < 5000; i++) values.push((Math.random() * 2 ** 32 - 2 ** 31) | 0);
    for (const value of values) {
      out.reset().int(value);
      assert.equal(text(out), String(value));
    }
  });

  it('writes an extra that may be left out before, between and after stored fields, with commas only between written keys', () => {
    const { store } = fixtureSnapshot();
    const projection = projectionFor(CITY_FIELDS, 'basic', { extra: ['type', 'label'] });
    // Extras first (maybe written), then the stored id and name, then an extra again.
    const orders = [['type', 'label', 'id', 'name'], ['id', 'type', 'name', 'label'], ['type', 'id', 'name', 'label']];
    for (const names of orders) {
      const reordered = { ...projection, names };
      const writer = new RowJsonWriter(store.cities.rowBytes!, reordered, ['type', 'label']);
      const record = store.cities.record(0) as unknown as Record<string, unknown>;
      for (const extras of [[undefined, undefined], ['city', undefined], [undefined, 'A, B'], ['city', 'A, B']]) {
        const out = new JsonBytes();
        writer.write(out, 0, extras);
        const values: Record<string, unknown> = { ...record, type: extras[0], label: extras[1] };
        const expected = JSON.stringify(Object.fromEntries(names.map((name) => [name, values[name]])));
        assert.equal(text(out), expected, `${names.join(',')} with ${JSON.stringify(extras)}`);
      }
    }
  });

  it('copies stored JSON-escaped translations as they are: the same JSON as JSON.stringify of the decoded text', () => {
    const loaded = loadSource(fixtureDir);
    // JSON texts (the build reads them) whose values need every kind of escape, and one needing none.
    const tricky = [JSON.stringify({ de: 'Kö\\ln "Dom"', x: '\u0001\u001f\u2028😀' }), JSON.stringify({ ja: 'ミュンヘン', lone: 'a\ud800b' }), '{}'];
    const cities = loaded.dataset.cities;
    tricky.forEach((text, i) => (cities[i]!.translations = text));
    const { dir, cleanup } = tempDir();
    try {
      writeLoadedSnapshot(loaded, { out: join(dir, 'snap') });
      const store = loadStore(join(dir, 'snap'));
      for (const interpreted of [false, true]) {
        const projection = projectionFor(CITY_FIELDS, 'full', { includeTranslations: true });
        const writer = interpreted ? new RowJsonWriter(store.cities.rowBytes!, projection, [], { interpreted: true }) : rowJsonWriter(store.cities.rowBytes!, projection, []);
        for (let row = 0; row < tricky.length; row++) {
          const record = store.cities.record(row);
          assert.equal(record.translations, tricky[row], `row ${row} decodes to its text`);
          const out = new JsonBytes();
          writer.write(out, row, null);
          assert.equal(text(out), JSON.stringify(projection.project(record)), `row ${row}${interpreted ? ', interpreted' : ''}`);
        }
      }
    } finally {
      cleanup();
    }
  });
});
