import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadSource } from '../../build-index/build.js';
import { BuildError } from '../../build-index/diagnostics.js';
import { describeJsonError } from '../../build-index/json-file.js';
import { runBuildCli, smallDataset, tempDir, writeFiles } from './support.js';

function withDataset<T>(overrides: Record<string, unknown>, fn: (dir: string) => T): T {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, smallDataset(overrides));
    return fn(dir);
  } finally {
    cleanup();
  }
}

function buildError(fn: () => unknown): BuildError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BuildError) return err;
    throw err;
  }
  assert.fail('expected a BuildError');
}

describe('build validation', () => {
  test('a valid small dataset builds without warnings', () => {
    withDataset({}, (dir) => {
      const loaded = loadSource(dir);
      assert.deepEqual(loaded.diagnostics.warnings, []);
      assert.equal(loaded.dataset.cities.length, 3);
    });
  });

  test('names file, line and column of malformed JSON', () => {
    const broken = '[\n  {"id": 1, "name": "Paris",\n   "state_id": 100 "country_id": 10}\n]';
    withDataset({ 'contributions/cities/FR.json': broken }, (dir) => {
      const err = buildError(() => loadSource(dir));
      assert.match(err.message, /cities\/FR\.json: malformed JSON at line 3, column 20/);
    });
  });

  test('reports truncated JSON at its end', () => {
    const text = '[{"id": 1';
    assert.match(describeJsonError(catchParse(text), text), /malformed JSON at line 1, column 10/);
  });

  test('lists every malformed file, not only the first', () => {
    withDataset({ 'contributions/cities/FR.json': '[{]', 'contributions/cities/BE.json': '[' }, (dir) => {
      const err = buildError(() => loadSource(dir));
      assert.match(err.message, /cities\/BE\.json: malformed JSON/);
      assert.match(err.message, /cities\/FR\.json: malformed JSON/);
    });
  });

  test('refuses duplicate ids, naming both files and records', () => {
    const dup = [{ id: 1001, name: 'Lille', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR' }];
    withDataset({ 'contributions/cities/XX.json': dup }, (dir) => {
      const err = buildError(() => loadSource(dir));
      assert.match(err.message, /duplicate city id 1001: cities\/FR\.json \("Versailles"\) and cities\/XX\.json \("Lille"\)/);
    });
  });

  test('skips id-less rows with one warning naming the file and the rows', () => {
    const cities = [
      { name: 'Playa', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR' },
      { name: 'Marianao', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR' },
      { id: 1003, name: 'Meaux', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR' },
    ];
    withDataset({ 'contributions/cities/CU.json': cities }, (dir) => {
      const loaded = loadSource(dir);
      assert.equal(loaded.dataset.cities.length, 4);
      const group = loaded.diagnostics.warnings.find((g) => g.kind === 'city rows without id (skipped)');
      assert.ok(group);
      assert.equal(group.count, 2);
      assert.deepEqual(group.examples, ['cities/CU.json: 2 city row(s) without id skipped: "Playa", "Marianao"']);
    });
  });

  test('keeps a record with a dangling reference and drops the link', () => {
    const cities = [{ id: 1003, name: 'Nowhere', state_id: 999, state_code: 'ZZ', country_id: 10, country_code: 'FR' }];
    withDataset({ 'contributions/cities/ZZ.json': cities }, (dir) => {
      const loaded = loadSource(dir);
      const row = loaded.dataset.cities.findIndex((c) => c.id === 1003);
      assert.ok(row >= 0);
      assert.equal(loaded.dataset.cities[row]!.state_id, 999);
      assert.equal(loaded.links.cityStateRow[row], -1);
      assert.notEqual(loaded.links.cityCountryRow[row], -1);
      const group = loaded.diagnostics.warnings.find((g) => g.kind === 'dangling city → state references (link dropped)');
      assert.deepEqual(group?.examples, ['cities/ZZ.json: city 1003 "Nowhere": state_id 999: no such state']);
    });
  });

  test('drops a state link that crosses countries', () => {
    const cities = [{ id: 1003, name: 'Liège', state_id: 100, state_code: 'IDF', country_id: 11, country_code: 'BE' }];
    withDataset({ 'contributions/cities/ZZ.json': cities }, (dir) => {
      const loaded = loadSource(dir);
      const row = loaded.dataset.cities.findIndex((c) => c.id === 1003);
      assert.equal(loaded.links.cityStateRow[row], -1);
      const group = loaded.diagnostics.warnings.find((g) => g.kind.startsWith('city → state references across countries'));
      assert.match(group!.examples[0]!, /state_id 100 belongs to country_id 10, not 11/);
    });
  });

  test('sets out-of-range coordinates to null with a warning', () => {
    const cities = [{ id: 1003, name: 'Faraway', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR', latitude: '95.0', longitude: '2.0' }];
    withDataset({ 'contributions/cities/ZZ.json': cities }, (dir) => {
      const loaded = loadSource(dir);
      const city = loaded.dataset.cities.find((c) => c.id === 1003)!;
      assert.equal(city.latitude, null);
      assert.equal(city.longitude, null);
      const group = loaded.diagnostics.warnings.find((g) => g.kind === 'bad coordinates (set to null)');
      assert.deepEqual(group?.examples, ['cities/ZZ.json: city 1003 "Faraway": latitude out of range: expected -90…90, found 95.0']);
    });
  });

  test('stores a field of the wrong type as null with a warning', () => {
    const cities = [{ id: 1003, name: 'Odd', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR', population: { n: 1 } }];
    withDataset({ 'contributions/cities/ZZ.json': cities }, (dir) => {
      const loaded = loadSource(dir);
      assert.equal(loaded.dataset.cities.find((c) => c.id === 1003)!.population, null);
      assert.match(loaded.diagnostics.warnings[0]!.examples[0]!, /cities\/ZZ\.json: city id 1003 "Odd": field "population": expected a number/);
    });
  });

  test('refuses a file of the wrong shape', () => {
    withDataset({ 'contributions/cities/FR.json': { id: 1 } }, (dir) => {
      assert.match(buildError(() => loadSource(dir)).message, /cities\/FR\.json: expected a JSON array of city records, found an object/);
    });
  });

  test('refuses a directory of an unknown layout', () => {
    const { dir, cleanup } = tempDir();
    try {
      assert.match(buildError(() => loadSource(dir)).message, /unrecognised layout/);
    } finally {
      cleanup();
    }
  });
});

describe('geoapi build command', () => {
  test('exits 1 with the message and no stack trace on a fatal problem', () => {
    withDataset({ 'contributions/states/states.json': '[{"id": 1,}]' }, (dir) => {
      const out = join(dir, 'snapshot');
      const run = runBuildCli(['--source', dir, '--out', out]);
      assert.equal(run.status, 1);
      assert.match(run.stderr, /^geoapi build: build failed while reading/);
      assert.match(run.stderr, /states\/states\.json: malformed JSON at line 1, column 11/);
      assert.doesNotMatch(run.stderr, /\n\s+at /);
      assert.equal(existsSync(out), false);
    });
  });

  test('exits 2 on an unknown option', () => {
    const run = runBuildCli(['--sauce', 'x']);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /usage: geoapi build/);
  });

  test('prints a summary with counts, grouped warnings and sizes', () => {
    const cities = [{ name: 'Playa', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR' }];
    withDataset({ 'contributions/cities/CU.json': cities }, (dir) => {
      const out = join(dir, 'snapshot');
      const run = runBuildCli(['--source', dir, '--out', out]);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /records +regions 1 · subregions 1 · countries 2 · states 2 · cities 3 · postcodes 1/);
      assert.match(run.stdout, /warnings +1\n +city rows without id \(skipped\): 1\n +cities\/CU\.json: 1 city row\(s\) without id skipped: "Playa"/);
      assert.match(run.stdout, /records\.cities +\d+ B/);
      assert.match(run.stdout, /total +[\d.]+ KiB in \d+ files/);
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      assert.equal(manifest.recordCounts.cities, 3);
    });
  });
});

function catchParse(text: string): unknown {
  try {
    JSON.parse(text);
  } catch (err) {
    return err;
  }
  return undefined;
}
