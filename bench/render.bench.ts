// Row JSON (runtime/render/row-json.ts): the compiled row writer against the same writer
// interpreting its steps (`{ interpreted: true }`, as before they were compiled), in one process, the
// two alternated over the same rows, bytes checked equal first. Cases: a city list (60 rows in
// snapshot order, as a state's cities are written) at the Coordinates and Full tiers, and
// autocomplete's 10 random rows at Full with its per-row additions (type, label, score, field).
// Reported: tinybench's mean and p99 per call, and interpreted ÷ compiled.
// Then whole lists with `fields`, `sort`, `q` or `locale` (routes/reference/common.ts listReply): from the
// records (each row decoded, sorted as objects, JSON.stringify) against from the row bytes (sorted
// on the sort fields alone, written by the row writer), in one process, bodies checked equal first.
// Run: `npm run bench -- render` (GEOAPI_BENCH_SNAPSHOT=dir: another snapshot, e.g. the full one).
import assert from 'node:assert/strict';
import { Bench } from 'tinybench';
import { listParams } from '../runtime/routes/params.js';
import { listReply, type ListSpec } from '../runtime/routes/reference/common.js';
import type { Reply } from '../runtime/routes/types.js';
import { CITY_FIELDS, COUNTRY_FIELDS, STATE_FIELDS } from '../runtime/render/fields.js';
import { projectionFor, type Projection } from '../runtime/render/projection.js';
import { JoinedText, RowJsonWriter, jsonTextOf, writeRowsArray } from '../runtime/render/row-json.js';
import { cityLabelParentsTextOfRow, searchProjection } from '../runtime/render/search.js';
import { loadStore } from '../runtime/store/index.js';
import type { Store } from '../runtime/store/types.js';
import { prng } from '../test/support/random.js';
import { printTable } from './http.bench.js';
import { benchContext } from './request-context.js';
import { benchSnapshotDir } from './wrk.js';

const LIST_ROWS = 60;
const SEARCH_ROWS = 10;
const SAMPLES = 400;

/** Each task's latency statistics, in the order the tasks were added. */
function latenciesOf(bench: Bench) {
  return bench.tasks.map((task) => {
    const result = task.result;
    if (!('latency' in result)) throw new Error(`bench task ${task.name} did not complete: ${result.state}`);
    return result.latency;
  });
}

interface Case {
  name: string;
  /** Writes sample `i` with the writer and returns its bytes. */
  run(writer: RowJsonWriter, i: number): Buffer;
  writers(interpreted: boolean): RowJsonWriter;
}

function listCase(store: Store, tier: 'coordinates' | 'full'): Case {
  const rows = store.cities.rowBytes!;
  const projection = projectionFor(CITY_FIELDS, tier);
  const next = prng(7);
  const count = Math.min(LIST_ROWS, store.cities.count);
  const lists = Array.from({ length: SAMPLES }, () => {
    const start = Math.floor(next() * Math.max(1, store.cities.count - LIST_ROWS));
    return Array.from({ length: count }, (_, k) => ({ row: start + k }));
  });
  const noExtras: unknown[] = [];
  return {
    name: `city list of ${count}, ${tier}`,
    writers: (interpreted) => new RowJsonWriter(rows, projection, [], { interpreted }),
    run: (writer, i) => writeRowsArray(writer, lists[i]!, noExtras, () => {}),
  };
}

function searchCase(store: Store): Case {
  const rows = store.cities.rowBytes!;
  const additions = ['type', 'label', 'match_score', 'matched_field'];
  const projection: Projection = searchProjection('cities', 'full', false, ['country_code', 'state_code', ...additions]);
  const next = prng(11);
  const samples = Array.from({ length: SAMPLES }, () => Array.from({ length: SEARCH_ROWS }, () => ({ row: Math.floor(next() * store.cities.count), score: Math.round(next() * 100) / 100 })));
  const label = new JoinedText('name');
  const type = jsonTextOf('city');
  const matchedField = jsonTextOf('name');
  const extras: unknown[] = [null, null, null, null];
  // As the autocomplete route fills them (routes/search/autocomplete.ts).
  const fill = (values: unknown[], hit: { row: number; score: number }): void => {
    values[0] = type;
    label.parts[0] = cityLabelParentsTextOfRow(store, hit.row);
    label.count = 1;
    values[1] = label;
    values[2] = hit.score;
    values[3] = matchedField;
  };
  return {
    name: `autocomplete's ${SEARCH_ROWS} random rows, full, with additions`,
    writers: (interpreted) => new RowJsonWriter(rows, projection, additions, { interpreted }),
    run: (writer, i) => writeRowsArray(writer, samples[i]!, extras, fill),
  };
}

export async function runRenderBench(): Promise<void> {
  const snapshotDir = await benchSnapshotDir();
  const store = loadStore(snapshotDir);
  console.log(`snapshot ${snapshotDir}: ${store.cities.count} cities`);
  const table: string[][] = [];
  for (const item of [listCase(store, 'coordinates'), listCase(store, 'full'), searchCase(store)]) {
    const interpreted = item.writers(true);
    const compiled = item.writers(false);
    for (let i = 0; i < SAMPLES; i++) {
      const expected = Buffer.from(item.run(interpreted, i)).toString('utf8');
      assert.equal(item.run(compiled, i).toString('utf8'), expected, `${item.name}: sample ${i} differs`);
    }
    let a = 0;
    let b = 0;
    const bench = new Bench({ time: 1500, warmupTime: 300 });
    bench.add('interpreted', () => void item.run(interpreted, (a = (a + 1) % SAMPLES)));
    bench.add('compiled', () => void item.run(compiled, (b = (b + 1) % SAMPLES)));
    await bench.run();
    const [before, after] = latenciesOf(bench);
    const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;
    table.push([item.name, us(before!.mean), us(before!.p99), us(after!.mean), us(after!.p99), `${(before!.mean / after!.mean).toFixed(2)}×`]);
  }
  printTable(['case', 'interpreted mean', 'p99', 'compiled mean', 'p99', 'interpreted ÷ compiled'], table);
  console.log('\nlists with fields, sort, q or locale: from the records vs from the row bytes');
  await runListBench(store);
}

interface ListCase {
  name: string;
  /** The list's reply for `query`, from the row bytes or from the records. */
  reply(fromRows: boolean): Reply;
}

function listCaseOf(store: Store, name: string, entity: 'cities' | 'states' | 'countries', rows: [number, number], query: Record<string, string>): ListCase {
  const ctx = benchContext(store, query);
  const set = entity === 'cities' ? CITY_FIELDS : entity === 'states' ? STATE_FIELDS : COUNTRY_FIELDS;
  const table = store[entity];
  const [start, end] = rows;
  const spec: ListSpec<{ name: string }> = {
    set,
    tier: 'full',
    params: listParams(ctx, set, 'full', { q: true, sort: true, localized: entity === 'countries' }),
    count: end - start,
    rowAt: (i) => start + i,
    record: (row) => table.record(row),
    entity,
    cacheControl: 'private, max-age=86400',
  };
  return { name: `${name}?${new URLSearchParams(query).toString()}`, reply: (fromRows) => listReply(ctx, { ...spec, rowBytes: fromRows ? table.rowBytes : null }) };
}

function listBody(reply: Reply): string | Uint8Array {
  return 'render' in reply ? reply.render() : reply.body;
}

/** Lists with fields, sort, q or locale: from the records against from the row bytes. */
async function runListBench(store: Store): Promise<void> {
  const countryRow = (iso2: string): number => {
    for (let row = 0; row < store.countries.count; row++) if (store.countries.record(row).iso2 === iso2) return row;
    throw new Error(`no country ${iso2} in the snapshot`);
  };
  const citiesOf = (iso2: string): [number, number] => {
    const row = countryRow(iso2);
    return [store.relations.countryCities.start[row]!, store.relations.countryCities.end[row]!];
  };
  const firstStateCities = (iso2: string): [number, number] => {
    const state = store.relations.countryStates.start[countryRow(iso2)]!;
    return [store.relations.stateCities.start[state]!, store.relations.stateCities.end[state]!];
  };
  const everyState: [number, number] = [0, store.states.count];
  const cases = [
    listCaseOf(store, 'US cities', 'cities', citiesOf('US'), { sort: 'population:desc' }),
    listCaseOf(store, 'US cities', 'cities', citiesOf('US'), { fields: 'id,name' }),
    listCaseOf(store, 'MX cities', 'cities', citiesOf('MX'), { q: 'san' }),
    listCaseOf(store, "DE's first state's cities", 'cities', firstStateCities('DE'), { sort: 'name:desc', fields: 'id,name,population' }),
    listCaseOf(store, 'every state', 'states', everyState, { sort: 'name:desc' }),
    listCaseOf(store, 'every state', 'states', everyState, { fields: 'id,name' }),
    listCaseOf(store, 'every state', 'states', everyState, { limit: '50', offset: '1000', sort: 'population:desc' }),
    listCaseOf(store, 'every country', 'countries', [0, store.countries.count], { locale: 'fr' }),
    listCaseOf(store, 'every country', 'countries', [0, store.countries.count], { sort: 'population:desc', fields: 'id,name,iso2,emoji' }),
  ];
  const table: string[][] = [];
  for (const item of cases) {
    const expected = Buffer.from(listBody(item.reply(false))).toString('utf8');
    const bytes = listBody(item.reply(true));
    assert.equal(Buffer.from(bytes).toString('utf8'), expected, `${item.name}: bodies differ`);
    const bench = new Bench({ time: 1500, warmupTime: 300 });
    bench.add('records', () => void listBody(item.reply(false)));
    bench.add('row bytes', () => void listBody(item.reply(true)));
    await bench.run();
    const [before, after] = latenciesOf(bench);
    const ms = (value: number): string => `${value.toFixed(2)} ms`;
    table.push([item.name, `${(bytes.length / 1024).toFixed(0)} KiB`, ms(before!.mean), ms(before!.p99), ms(after!.mean), ms(after!.p99), `${(before!.mean / after!.mean).toFixed(1)}×`]);
  }
  printTable(['list', 'body', 'records mean', 'p99', 'row bytes mean', 'p99', 'records ÷ row bytes'], table);
}

if (import.meta.url === `file://${process.argv[1]}`) await runRenderBench();
