// On the full dataset: a copy with 1,000 seeded random edits (renames, moved coordinates, other
// fields, cities moved to another state, cities added and removed), built with --previous against
// the snapshot of the original, reports exactly those edits, each once with its kind.
// Build times (plain vs --previous) are printed as diagnostics, never asserted (bench/ measures).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChangeLog } from '../../runtime/format/change-log.js';
import { CHANGES_SECTION } from '../../runtime/format/sections.js';
import { loadStore } from '../../runtime/store/index.js';
import { fullSnapshot, fullSource, fullDatasetSkip } from '../support/snapshots.js';
import { tempDir } from './support.js';
import { prng } from '../support/random.js';
import { buildAt, editedCopy, type Rows } from '../routes/changes/support.js';

const EDITS = 1000;

test('a build against a copy with 1,000 random edits reports exactly those edits', { skip: fullDatasetSkip() }, (t) => {
  const previous = fullSnapshot().dir;
  const random = prng(20260301);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const cityFiles = readdirSync(join(fullSource, 'contributions/cities')).filter((f) => f.endsWith('.json')).sort();
  const read = (path: string): Rows => JSON.parse(readFileSync(join(fullSource, 'contributions', path), 'utf8')) as Rows;
  const states = read('states/states.json');
  const statesOf = new Map<number, Rows>();
  for (const s of states) statesOf.set(s.country_id, [...(statesOf.get(s.country_id) ?? []), s]);

  // Plan the edits first (distinct places), then apply them per file.
  const expected: string[] = [];
  const touched = new Set<string>();
  const cityEdits = new Map<string, ((rows: Rows) => void)[]>();
  const stateRenames = new Set<number>();
  let nextId = 10_000_000;
  const cities = new Map<string, Rows>();
  const citiesOf = (file: string) => {
    let rows = cities.get(file);
    if (rows === undefined) cities.set(file, (rows = read(`cities/${file}`)));
    return rows;
  };
  while (expected.length < EDITS) {
    const kind = random();
    if (kind < 0.03) {
      const state = pick(states);
      if (touched.has(`state ${state.id}`)) continue;
      touched.add(`state ${state.id}`);
      stateRenames.add(state.id);
      expected.push(`state ${state.id} renamed`);
      continue;
    }
    const file = pick(cityFiles);
    const rows = citiesOf(file);
    if (rows.length === 0) continue;
    const city = pick(rows);
    if (touched.has(`city ${city.id}`)) continue;
    const edits = cityEdits.get(file) ?? [];
    cityEdits.set(file, edits);
    if (kind < 0.25) {
      edits.push((r) => void (r.find((c) => c.id === city.id)!.name += ' Nova'));
      expected.push(`city ${city.id} renamed`);
    } else if (kind < 0.45) {
      const lat = Number(city.latitude);
      if (city.latitude === null || !Number.isFinite(lat)) continue;
      edits.push((r) => void (r.find((c) => c.id === city.id)!.latitude = (lat > 0 ? lat - 0.01 : lat + 0.01).toFixed(8)));
      expected.push(`city ${city.id} coordinates_changed`);
    } else if (kind < 0.65) {
      edits.push((r) => void (r.find((c) => c.id === city.id)!.native = `${city.name} (edited)`));
      expected.push(`city ${city.id} other_fields_changed`);
    } else if (kind < 0.8) {
      const other = (statesOf.get(city.country_id) ?? []).filter((s) => s.id !== city.state_id && s.iso2);
      if (other.length === 0) continue;
      const state = pick(other);
      edits.push((r) => void Object.assign(r.find((c) => c.id === city.id)!, { state_id: state.id, state_code: state.iso2 }));
      expected.push(`city ${city.id} parent_changed`);
    } else if (kind < 0.9) {
      edits.push((r) => void r.splice(r.findIndex((c) => c.id === city.id), 1));
      expected.push(`city ${city.id} removed`);
    } else {
      const id = nextId++;
      edits.push((r) => void r.push({ ...city, id, name: `${city.name} New` }));
      expected.push(`city ${id} added`);
    }
    touched.add(`city ${city.id}`);
  }
  cities.clear();

  const root = tempDir('geoapi-changes-full-');
  try {
    const source = join(root.dir, 'source');
    const edit: Record<string, (rows: Rows) => void> = {
      'states/states.json': (rows) => {
        for (const s of rows) if (stateRenames.has(s.id)) s.name += ' Nova';
      },
    };
    for (const [file, edits] of cityEdits) edit[`cities/${file}`] = (rows) => edits.forEach((apply) => apply(rows));
    editedCopy(fullSource, source, edit);

    let started = performance.now();
    buildAt('2026-03-01T00:00:00Z', source, join(root.dir, 'plain'));
    const plainMs = performance.now() - started;
    started = performance.now();
    const result = buildAt('2026-03-01T00:00:00Z', source, join(root.dir, 'with-previous'), previous);
    const previousMs = performance.now() - started;
    t.diagnostic(`build: plain ${(plainMs / 1000).toFixed(1)} s, with --previous ${(previousMs / 1000).toFixed(1)} s (${(previousMs / plainMs).toFixed(2)}×; diff ${(result.timings.changes! / 1000).toFixed(2)} s)`);

    const log = ChangeLog.from(loadStore(join(root.dir, 'with-previous')).section(CHANGES_SECTION));
    const reported: string[] = [];
    for (let i = 0; i < log.count; i++) reported.push(`${log.placeType(i)} ${log.placeIds[i]} ${log.changeType(i)}`);
    assert.equal(new Set(reported).size, reported.length, 'each change once');
    assert.deepEqual([...reported].sort(), [...expected].sort());
    assert.equal(result.changes.added, EDITS);
  } finally {
    root.cleanup();
  }
});
