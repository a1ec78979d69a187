// Row JSON (runtime/render/row-json.ts): the compiled row writer against the same writer
// interpreting its steps (`{ interpreted: true }`, as before they were compiled), in one process, the
// two alternated over the same rows, bytes checked equal first. Cases: a city list (60 rows in
// snapshot order, as a state's cities are written) at the Coordinates and Full tiers, and
// autocomplete's 10 random rows at Full with its per-row additions (type, label, score, field).
// Reported: tinybench's mean and p99 per call, and interpreted ÷ compiled.
// Run: `npm run bench -- render` (GEOAPI_BENCH_SNAPSHOT=dir: another snapshot, e.g. the full one).
import assert from 'node:assert/strict';
import { Bench } from 'tinybench';
import { CITY_FIELDS } from '../runtime/render/fields.js';
import { projectionFor, type Projection } from '../runtime/render/projection.js';
import { JoinedText, RowJsonWriter, jsonTextOf, writeRowsArray } from '../runtime/render/row-json.js';
import { cityLabelParentsTextOfRow, searchProjection } from '../runtime/render/search.js';
import { loadStore } from '../runtime/store/index.js';
import type { Store } from '../runtime/store/types.js';
import { prng } from '../test/support/random.js';
import { printTable } from './http.bench.js';
import { benchSnapshotDir } from './wrk.js';

const LIST_ROWS = 60;
const SEARCH_ROWS = 10;
const SAMPLES = 400;

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
    const [before, after] = bench.tasks.map((task) => {
      const result = task.result;
      if (!('latency' in result)) throw new Error(`bench task ${task.name} did not complete: ${result.state}`);
      return result.latency;
    });
    const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;
    table.push([item.name, us(before!.mean), us(before!.p99), us(after!.mean), us(after!.p99), `${(before!.mean / after!.mean).toFixed(2)}×`]);
  }
  printTable(['case', 'interpreted mean', 'p99', 'compiled mean', 'p99', 'interpreted ÷ compiled'], table);
}

if (import.meta.url === `file://${process.argv[1]}`) await runRenderBench();
