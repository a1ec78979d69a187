import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildSnapshot, loadSource } from '../../build-index/build.js';
import { BuildError } from '../../build-index/diagnostics.js';
import { ensureDefaultSnapshot, staleReason } from '../../build-index/default-snapshot.js';
import { fixtureDir, runBuildCli, smallDataset, tempDir, writeFiles } from './support.js';

function filesOf(dir: string): Record<string, Buffer> {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f))]));
}

describe('snapshot writer', () => {
  test('two builds of the same input are byte-identical', () => {
    const { dir, cleanup } = tempDir();
    try {
      buildSnapshot({ source: fixtureDir, out: join(dir, 'a') });
      buildSnapshot({ source: fixtureDir, out: join(dir, 'b') });
      const a = filesOf(join(dir, 'a'));
      const b = filesOf(join(dir, 'b'));
      assert.deepEqual(Object.keys(a), Object.keys(b));
      for (const name of Object.keys(a)) assert.ok(a[name]!.equals(b[name]!), `${name} differs between builds`);
    } finally {
      cleanup();
    }
  });

  test('writes a manifest with counts, versions and a checksum per section', () => {
    const { dir, cleanup } = tempDir();
    try {
      const out = join(dir, 'snap');
      buildSnapshot({ source: fixtureDir, out });
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      assert.equal(manifest.format, 'geoapi-snapshot');
      assert.equal(manifest.formatVersion, 5);
      assert.equal(manifest.sourceRelease, 'csc-contributions');
      assert.deepEqual(manifest.recordCounts, { regions: 3, subregions: 5, countries: 6, states: 20, cities: 30, postcodes: 30 });
      assert.match(manifest.dataVersion, /^[0-9a-f]{12}$/);
      assert.ok(manifest.datasetHash.startsWith(manifest.dataVersion));
      for (const name of ['records.cities', 'ids.postcodes', 'relations', 'keys.postcodes']) {
        const entry = manifest.sections[name];
        assert.ok(entry, `section ${name} listed`);
        assert.equal(readFileSync(join(out, entry.file)).byteLength, entry.bytes);
        assert.match(entry.sha256, /^[0-9a-f]{64}$/);
      }
      // No temporary directories left next to the snapshot.
      assert.deepEqual(readdirSync(dir), ['snap']);
    } finally {
      cleanup();
    }
  });

  test('takes builtAt from SOURCE_DATE_EPOCH when set', () => {
    const { dir, cleanup } = tempDir();
    const saved = process.env.SOURCE_DATE_EPOCH;
    try {
      process.env.SOURCE_DATE_EPOCH = '1700000000';
      const result = buildSnapshot({ source: fixtureDir, out: join(dir, 'snap') });
      assert.equal(result.manifest.builtAt, '2023-11-14T22:13:20.000Z');
    } finally {
      if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
      else process.env.SOURCE_DATE_EPOCH = saved;
      cleanup();
    }
  });

  test('a failed build leaves the existing snapshot untouched', () => {
    const { dir, cleanup } = tempDir();
    try {
      const out = join(dir, 'snap');
      buildSnapshot({ source: fixtureDir, out });
      const before = filesOf(out);
      const source = join(dir, 'broken');
      writeFiles(source, smallDataset({ 'contributions/cities/FR.json': '[{"id": 1' }));
      const run = runBuildCli(['--source', source, '--out', out]);
      assert.equal(run.status, 1);
      assert.deepEqual(filesOf(out), before);
      assert.deepEqual(readdirSync(dir).sort(), ['broken', 'snap']);
    } finally {
      cleanup();
    }
  });

  test('replaces an existing snapshot after a successful build', () => {
    const { dir, cleanup } = tempDir();
    try {
      const out = join(dir, 'snap');
      buildSnapshot({ source: fixtureDir, out });
      const source = join(dir, 'small');
      writeFiles(source, smallDataset());
      buildSnapshot({ source, out });
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      assert.equal(manifest.recordCounts.cities, 3);
      assert.deepEqual(readdirSync(dir).sort(), ['small', 'snap']);
    } finally {
      cleanup();
    }
  });

  test('cleans up after a killed build and restores a snapshot it had moved aside', () => {
    const { dir, cleanup } = tempDir();
    try {
      const deadPid = 2 ** 22 + 1; // above Linux's pid_max: never a live process
      buildSnapshot({ source: fixtureDir, out: join(dir, `.snap.replaced-${deadPid}-1`) });
      writeFiles(join(dir, `.snap.building-${deadPid}-abc`), { 'half.bin': 'x' });
      const run = runBuildCli(['--source', join(dir, 'missing-source'), '--out', join(dir, 'snap')]);
      assert.equal(run.status, 1);
      buildSnapshot({ source: fixtureDir, out: join(dir, 'snap') });
      assert.deepEqual(readdirSync(dir).sort(), ['snap']);
    } finally {
      cleanup();
    }
  });

  test('refuses to replace a non-empty directory that is not a snapshot', () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, 'precious.txt'), 'keep me');
      assert.throws(() => buildSnapshot({ source: fixtureDir, out: dir }), (err: unknown) => err instanceof BuildError && /refusing to replace a non-empty directory/.test(err.message));
      assert.equal(readFileSync(join(dir, 'precious.txt'), 'utf8'), 'keep me');
    } finally {
      cleanup();
    }
  });
});

describe('source adapters', () => {
  test('reads the @countrystatecity/countries package layout like the contributions layout', () => {
    const { dir, cleanup } = tempDir();
    try {
      const contributions = smallDataset();
      const pick = (path: string) => contributions[`contributions/${path}`] as Record<string, unknown>[];
      const countries = pick('countries/countries.json');
      const summary = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'timezones' && k !== 'translations'));
      const states = pick('states/states.json');
      const cities = [...pick('cities/FR.json'), ...pick('cities/BE.json')];
      const files: Record<string, unknown> = {
        'package.json': { name: '@countrystatecity/countries', version: '9.9.9' },
        'dist/data/regions.json': pick('regions/regions.json'),
        'dist/data/subregions.json': pick('subregions/subregions.json'),
        'dist/data/countries.json': countries.map(summary),
      };
      for (const country of countries) {
        const folder = `dist/data/${String(country.name).replace(/ /g, '_')}-${country.iso2}`;
        files[`${folder}/meta.json`] = country;
        files[`${folder}/states.json`] = states.filter((s) => s.country_id === country.id);
        for (const state of states.filter((s) => s.country_id === country.id)) {
          files[`${folder}/${String(state.name).replace(/ /g, '_')}-${state.iso2}/cities.json`] = cities
            .filter((c) => c.state_id === state.id)
            .map((c) => ({ ...c, translations: {} }));
        }
      }
      writeFiles(join(dir, 'npm'), files);
      writeFiles(join(dir, 'csc'), { ...contributions, 'contributions/postcodes/FR.json': [] });
      const fromNpm = loadSource(join(dir, 'npm'));
      const fromContributions = loadSource(join(dir, 'csc'));
      assert.equal(fromNpm.layout, 'npm-package');
      assert.equal(fromNpm.dataset.sourceRelease, '@countrystatecity/countries@9.9.9');
      assert.deepEqual({ ...fromNpm.dataset, sourceRelease: '' }, { ...fromContributions.dataset, sourceRelease: '' });
    } finally {
      cleanup();
    }
  });

  test('normalises absent keys, empty JSON objects and city levels', () => {
    const loaded = loadSource(fixtureDir);
    const buffalo = loaded.dataset.cities.find((c) => c.name === 'Buffalo')!;
    assert.equal(buffalo.type, null);
    assert.equal(buffalo.population, null);
    assert.equal(buffalo.wikiDataId, null);
    const brooklyn = loaded.dataset.cities.find((c) => c.name === 'Brooklyn')!;
    assert.equal(brooklyn.level, '2');
    const puertoRico = loaded.dataset.states.find((s) => s.id === 1449)!;
    assert.equal(puertoRico.translations, null);
    const california = loaded.dataset.states.find((s) => s.id === 1416)!;
    assert.equal(california.population, 39431263);
    const us = loaded.dataset.countries.find((c) => c.iso2 === 'US')!;
    assert.equal(typeof us.timezones, 'string');
    assert.ok(JSON.parse(us.timezones!).some((zone: { zoneName: string }) => zone.zoneName === 'America/New_York'));
    const zip = loaded.dataset.postcodes.find((p) => p.code === '10001')!;
    assert.equal(zip.city_id, null);
    assert.equal(zip.source, null);
    assert.equal(zip.wikiDataId, null);
  });

  test('accepts the contributions/ directory itself or its parent', () => {
    assert.equal(loadSource(join(fixtureDir, 'contributions')).dataset.cities.length, 30);
    assert.equal(loadSource(fixtureDir).dataset.cities.length, 30);
  });
});

describe('default snapshot', () => {
  test('builds from the installed package when missing, then reuses it', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const out = join(dir, 'default');
      const first = await ensureDefaultSnapshot(out);
      assert.equal(first.built, true);
      assert.match(first.result!.manifest.sourceRelease, /^@countrystatecity\/countries@\d/);
      assert.equal(first.result!.manifest.recordCounts.postcodes, 0);
      const second = await ensureDefaultSnapshot(out);
      assert.equal(second.built, false);
      // A snapshot of another source release is stale.
      assert.match(staleReason(out, '@countrystatecity/countries@0.0.1') ?? '', /≠ installed/);
      // So is one of another format version.
      const manifestFile = join(out, 'manifest.json');
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
      writeFileSync(manifestFile, JSON.stringify({ ...manifest, formatVersion: 99 }));
      const third = await ensureDefaultSnapshot(out);
      assert.equal(third.built, true);
      assert.match(third.reason ?? '', /format version 99/);
      assert.ok(existsSync(join(out, 'manifest.json')));
    } finally {
      cleanup();
    }
  });
});
