// The three searches on the full dataset (../shared/data/csc; required when CI=true) against
// brute-force oracles that scan every record, plus golden cases. The snapshot is built once per
// machine (test/reference/support/snapshots.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CITY_KINDS } from '../../../runtime/engine/search/city-kind.js';
import type { Store } from '../../../runtime/store/types.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import { bruteAutocomplete, bruteFuzzy, bruteNearby, placesOf, type Entity, type Filters, type Places } from './oracles.js';
import { typo } from '../../support/search-queries.js';
import { call, fullDatasetSkip, fullSnapshot, items, prng } from './support.js';

const skip = fullDatasetSkip();
let storeCache: Store | null = null;
const store = (): Store => (storeCache ??= fullSnapshot().store);
const TYPE_OF: Record<Entity, string> = { cities: 'city', states: 'state', countries: 'country' };

function pickRow(random: () => number, places: Places): number {
  return Math.floor(random() * places.count);
}

/** Query parameters for the filters an oracle case uses. */
function filterQuery(filters: Filters): Record<string, string> {
  const query: Record<string, string> = {};
  if (filters.country !== undefined) query.country = filters.country;
  if (filters.state !== undefined) query.state = filters.state;
  if (filters.kind !== undefined) query.kind = filters.kind;
  if (filters.minPopulation !== undefined) query.min_population = String(filters.minPopulation);
  return query;
}

describe('nearby search on the full dataset', { skip }, () => {
  test('equals sorting every candidate by haversine distance for 500 points, antimeridian and polar ones included', () => {
    const random = prng(500);
    const cities = placesOf(store(), 'cities');
    let nonEmpty = 0;
    for (let i = 0; i < 500; i++) {
      const entity: Entity = i % 10 === 8 ? 'states' : i % 10 === 9 ? 'countries' : 'cities';
      const places = entity === 'cities' ? cities : placesOf(store(), entity);
      let lat: number;
      let lng: number;
      const region = i % 5;
      if (region === 0 || region === 1) {
        // Near a random place (results exist).
        const row = pickRow(random, places);
        lat = Number.isNaN(places.lat[row]!) ? 0 : Math.max(-90, Math.min(90, places.lat[row]! + (random() - 0.5) * 2));
        lng = Number.isNaN(places.lng[row]!) ? 0 : ((places.lng[row]! + (random() - 0.5) * 2 + 540) % 360) - 180;
      } else if (region === 2) {
        // Either side of the antimeridian, in the latitudes of Fiji, Kiribati, Tuvalu, Chukotka and Alaska.
        lat = [-18, -17, -8, -1, 0, 1, 52, 64, 66][Math.floor(random() * 9)]! + (random() - 0.5) * 4;
        lng = (random() < 0.5 ? 180 : -180) - (random() < 0.5 ? 1 : -1) * random() * 4;
        lng = lng > 180 ? lng - 360 : lng < -180 ? lng + 360 : lng;
      } else if (region === 3) {
        // Polar: Svalbard, Greenland, Antarctica, and the poles themselves.
        lat = (random() < 0.7 ? 1 : -1) * (70 + random() * 20);
        if (random() < 0.1) lat = lat > 0 ? 90 : -90;
        lng = random() * 360 - 180;
      } else {
        lat = random() * 180 - 90;
        lng = random() * 360 - 180;
      }
      const radius = random() < 0.5 ? 500 : 1 + Math.floor(random() * 500);
      const limit = 1 + Math.floor(random() * 100);
      const filters: Filters = {};
      if (entity === 'cities' && i % 7 === 0) filters.kind = CITY_KINDS[Math.floor(random() * CITY_KINDS.length)]!;
      if (i % 11 === 0) filters.minPopulation = Math.floor(random() * 50000);
      if (entity !== 'countries' && i % 13 === 0) {
        const row = pickRow(random, places);
        filters.country = places.countryCode[row]!;
        lat = Number.isNaN(places.lat[row]!) ? lat : places.lat[row]!;
        lng = Number.isNaN(places.lng[row]!) ? lng : places.lng[row]!;
        if (entity === 'cities' && random() < 0.5 && places.stateCode[row]) filters.state = places.stateCode[row]!;
      }
      const query = { lat: String(lat), lng: String(lng), type: TYPE_OF[entity], radius: String(radius), limit: String(limit), ...filterQuery(filters) };
      const got = items(call(store(), 'nearbySearch', query)).map((r) => ({ id: r.id, distance_km: r.distance_km }));
      const expected = bruteNearby(places, lat, lng, radius, limit, filters);
      assert.deepEqual(got, expected, JSON.stringify(query));
      if (expected.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty > 250, `most points should have places nearby, found ${nonEmpty}`);
  });

  test('equals brute force when the filters reject most places near the point: a far country or state, a large min_population, a rare kind', () => {
    // The walk skips the parts of the tree such filters reject whole (GeoPrune): same answers.
    const random = prng(501);
    for (let i = 0; i < 240; i++) {
      const entity: Entity = i % 6 === 5 ? 'states' : 'cities';
      const places = placesOf(store(), entity);
      const at = pickRow(random, places);
      if (Number.isNaN(places.lat[at]!)) continue;
      const lat = places.lat[at]!;
      const lng = places.lng[at]!;
      const other = pickRow(random, places);
      const filters: Filters = {};
      const shape = i % 6;
      if (shape === 0 || shape === 5) filters.country = places.countryCode[other]!;
      else if (shape === 1 && places.stateCode[other]) {
        filters.country = places.countryCode[other]!;
        filters.state = places.stateCode[other]!;
      } else if (shape === 2) filters.minPopulation = [100_000, 1_000_000, 5_000_000, 50_000_000][Math.floor(random() * 4)]!;
      else if (shape === 3) filters.kind = CITY_KINDS[Math.floor(random() * CITY_KINDS.length)]!;
      else {
        filters.kind = CITY_KINDS[Math.floor(random() * CITY_KINDS.length)]!;
        filters.minPopulation = Math.floor(random() * 200_000);
        if (random() < 0.5) filters.country = places.countryCode[other]!;
      }
      const radius = random() < 0.5 ? 500 : 1 + Math.floor(random() * 500);
      const limit = 1 + Math.floor(random() * 100);
      const query = { lat: String(lat), lng: String(lng), type: TYPE_OF[entity], radius: String(radius), limit: String(limit), ...filterQuery(filters) };
      const got = items(call(store(), 'nearbySearch', query)).map((r) => ({ id: r.id, distance_km: r.distance_km }));
      assert.deepEqual(got, bruteNearby(places, lat, lng, radius, limit, filters), JSON.stringify(query));
    }
  });

  test('equals brute force for a state or a country around its own places and elsewhere: few rows are measured one by one, a far span answers at once', () => {
    const random = prng(502);
    const cities = placesOf(store(), 'cities');
    let nonEmpty = 0;
    for (let i = 0; i < 300; i++) {
      const row = pickRow(random, cities);
      if (Number.isNaN(cities.lat[row]!)) continue;
      const filters: Filters = { country: cities.countryCode[row]! };
      if (i % 3 !== 2 && cities.stateCode[row]) filters.state = cities.stateCode[row]!;
      // Near its own places (answers), a few hundred km off (the span's edge), or anywhere (mostly far).
      const spread = [0.2, 6, 180][i % 3]!;
      const lat = Math.max(-90, Math.min(90, cities.lat[row]! + (random() - 0.5) * spread));
      const lng = ((cities.lng[row]! + (random() - 0.5) * 2 * spread + 540) % 360) - 180;
      const radius = random() < 0.5 ? 500 : 1 + Math.floor(random() * 500);
      const limit = 1 + Math.floor(random() * 100);
      const query = { lat: String(lat), lng: String(lng), type: 'city', radius: String(radius), limit: String(limit), ...filterQuery(filters) };
      const got = items(call(store(), 'nearbySearch', query)).map((r) => ({ id: r.id, distance_km: r.distance_km }));
      const expected = bruteNearby(cities, lat, lng, radius, limit, filters);
      assert.deepEqual(got, expected, JSON.stringify(query));
      if (expected.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty > 100, `most cases should find places, found ${nonEmpty}`);
  });

  test('finds places on both sides of ±180° around (0, 179.99) within 500 km', () => {
    const near = { lat: '0', lng: '179.99', radius: '500' };
    // Cities: the Gilbert Islands (Kiribati, 176°E) lie west of the line…
    const cities = items(call(store(), 'nearbySearch', near));
    assert.ok(cities.length > 0 && cities.every((c) => Number(c.longitude) > 0 && c.country_code === 'KI'));
    // …states: Howland and Baker Islands (176°W) east of it.
    const states = items(call(store(), 'nearbySearch', { ...near, type: 'state' }));
    assert.deepEqual(states.map((s) => s.name), ['Howland Island', 'Baker Island']);
    assert.ok(states.every((s) => Number(s.longitude) < 0));
    // In Fiji one query sees both sides.
    const fiji = items(call(store(), 'nearbySearch', { lat: '-17', lng: '179.99', radius: '500', limit: '100' }));
    assert.ok(fiji.some((c) => Number(c.longitude) < 0) && fiji.some((c) => Number(c.longitude) > 0));
  });
});

describe('fuzzy search on the full dataset', { skip }, () => {
  test('equals scoring every name by brute force', () => {
    const random = prng(600);
    for (let i = 0; i < 120; i++) {
      const entity: Entity = i % 6 === 4 ? 'states' : i % 6 === 5 ? 'countries' : 'cities';
      const places = placesOf(store(), entity);
      const row = pickRow(random, places);
      const source = random() < 0.2 && places.natives[row] ? places.natives[row]! : places.names[row]!;
      let q = random() < 0.7 ? typo(random, source) : source;
      if (random() < 0.2) q = q.slice(0, Math.max(2, Math.floor(q.length / 2)));
      q = q.trim();
      if ([...q].length < 2 || [...q].length > 100) continue;
      const threshold = [0.1, 0.2, 0.3, 0.3, 0.45, 0.6, 0.8, 1][Math.floor(random() * 8)]!;
      const limit = 1 + Math.floor(random() * 50);
      const filters: Filters = entity !== 'countries' && random() < 0.3 ? { country: places.countryCode[row]! } : {};
      const query = { q, type: TYPE_OF[entity], threshold: String(threshold), limit: String(limit), ...filterQuery(filters) };
      const got = items(call(store(), 'fuzzySearch', query)).map((r) => ({ id: r.id, match_score: r.match_score, matched_alias: r.matched_alias }));
      assert.deepEqual(got, bruteFuzzy(places, q, threshold, limit, filters), JSON.stringify(query));
    }
  });

  test('equals brute force (match_score with unaccent) for accented names typed without accents, with other accents, or typo’d', () => {
    const random = prng(650);
    const cities = placesOf(store(), 'cities');
    const accented: number[] = [];
    for (let row = 0; row < cities.count; row++) if (/[^\x00-\x7f]/.test(cities.names[row]!)) accented.push(row);
    for (let i = 0; i < 80; i++) {
      const row = accented[Math.floor(random() * accented.length)]!;
      const stripped = cities.names[row]!.normalize('NFD').replace(/\p{M}/gu, '');
      const q = (i % 3 === 0 ? stripped : i % 3 === 1 ? typo(random, stripped) : stripped.replace(/[aeiou]/, (v) => ({ a: 'á', e: 'é', i: 'í', o: 'ö', u: 'ü' })[v]!)).trim();
      if ([...q].length < 2 || [...q].length > 100) continue;
      const threshold = [0.2, 0.3, 0.5][i % 3]!;
      const fuzzy = { q, threshold: String(threshold), limit: '10' };
      const got = items(call(store(), 'fuzzySearch', fuzzy)).map((r) => ({ id: r.id, match_score: r.match_score, matched_alias: r.matched_alias }));
      assert.deepEqual(got, bruteFuzzy(cities, q, threshold, 10), JSON.stringify(fuzzy));
      const auto = items(call(store(), 'autocomplete', { q, limit: '10' })).map((r) => ({ id: r.id, match_score: r.match_score, matched_field: r.matched_field }));
      assert.deepEqual(auto, bruteAutocomplete(cities, q, 10), q);
    }
  });

  test('q=Zurch finds Zürich (CH) first with 0.44, as PostgreSQL scores unaccent(name)', () => {
    const list = items(call(store(), 'fuzzySearch', { q: 'Zurch' }));
    const zurich = list.find((c) => c.name === 'Zürich' && c.country_code === 'CH');
    assert.ok(zurich, JSON.stringify(list.map((c) => c.name)));
    assert.equal(zurich.match_score, 0.44);
  });

  test('q=Lodnon finds London (GB) with the score PostgreSQL gives, 0.27', () => {
    const list = items(call(store(), 'fuzzySearch', { q: 'Lodnon', threshold: '0.27', limit: '50' }));
    const london = list.find((c) => c.name === 'London' && c.country_code === 'GB');
    assert.ok(london, 'London, GB among the results');
    assert.equal(london.match_score, 0.27);
  });
});

describe('autocomplete on the full dataset', { skip }, () => {
  test('follows the five rules against a brute-force ranking of every name', () => {
    const random = prng(700);
    const seen = { exact: 0, prefix: 0, translation: 0, trigram: 0 };
    for (let i = 0; i < 120; i++) {
      const entity: Entity = i % 6 === 4 ? 'states' : i % 6 === 5 ? 'countries' : 'cities';
      const places = placesOf(store(), entity);
      const row = pickRow(random, places);
      const kind = i % 4;
      let q: string;
      if (kind === 0) q = places.names[row]!.slice(0, 2 + Math.floor(random() * 5)); // type-ahead prefix
      else if (kind === 1) q = places.names[row]!; // whole name (exact matches)
      else if (kind === 2) q = typo(random, places.names[row]!); // fuzzy fill
      else {
        const translations = places.translationKeys[row]!;
        q = translations.length > 0 ? translations[Math.floor(random() * translations.length)]!.slice(0, 3 + Math.floor(random() * 4)) : (places.natives[row] ?? places.names[row]!);
      }
      if (random() < 0.3) q = q.toUpperCase();
      q = q.trim();
      if ([...q].length < 2 || [...q].length > 100) continue;
      const limit = 1 + Math.floor(random() * 50);
      const filters: Filters = {};
      if (entity !== 'countries' && random() < 0.25) {
        filters.country = places.countryCode[row]!;
        if (entity === 'cities' && random() < 0.5 && places.stateCode[row]) filters.state = places.stateCode[row]!;
      }
      const query = { q, type: TYPE_OF[entity], limit: String(limit), ...filterQuery(filters) };
      const got = items(call(store(), 'autocomplete', query)).map((r) => ({ id: r.id, match_score: r.match_score, matched_field: r.matched_field }));
      assert.deepEqual(got, bruteAutocomplete(places, q, limit, filters), JSON.stringify(query));
      for (const r of got) {
        if (r.match_score === 1 && r.matched_field !== 'translation') seen.exact++;
        else if (r.matched_field === 'translation') seen.translation++;
        else {
          const row = places.ids.indexOf(r.id as number);
          const key = matchKey(q);
          seen[places.nameKeys[row]!.startsWith(key) || places.nativeKeys[row]?.startsWith(key) ? 'prefix' : 'trigram']++;
        }
      }
    }
    // The cases reach every way of matching.
    assert.ok(Object.values(seen).every((n) => n > 0), JSON.stringify(seen));
  });

  test('under a country or state filter, common prefixes (thousands of entries, most of them outside it) rank as brute force does', () => {
    const cities = placesOf(store(), 'cities');
    const random = prng(701);
    const rowOf = (country: string, state?: string): number => {
      for (let row = 0; row < cities.count; row++) if (cities.countryCode[row] === country && (state === undefined || cities.stateCode[row] === state)) return row;
      throw new Error(`no city in ${country} ${state ?? ''}`);
    };
    // Large countries, one with few cities, and states; each with a few of the longest prefix ranges.
    const filters: Filters[] = [{ country: 'US' }, { country: 'MX' }, { country: 'IN' }, { country: 'BR' }, { country: 'AD' }, { country: 'US', state: 'CA' }, { country: 'MX', state: cities.stateCode[rowOf('MX')]! }];
    for (const filter of filters) {
      for (const q of ['sa', 'Ma', 'ca', 'san', 'st', 'be']) {
        const limit = [1, 10, 50][Math.floor(random() * 3)]!;
        const query = { q, type: 'city', limit: String(limit), ...filterQuery(filter) };
        const got = items(call(store(), 'autocomplete', query)).map((r) => ({ id: r.id, match_score: r.match_score, matched_field: r.matched_field }));
        assert.deepEqual(got, bruteAutocomplete(cities, q, limit, filter), JSON.stringify(query));
      }
    }
  });

  test('golden: lon → London first among cities; new y → New York City among the first; sao p → São Paulo', () => {
    const lon = items(call(store(), 'autocomplete', { q: 'lon' }));
    assert.equal(lon[0]!.label, 'London, Westminster, United Kingdom');
    const newY = items(call(store(), 'autocomplete', { q: 'new y' }));
    assert.ok(newY.slice(0, 3).some((c) => c.name === 'New York City'), JSON.stringify(newY.map((c) => c.label)));
    // US and BR cities carry no population in this dataset (npm-package rows), so São Paulo (BR)
    // cannot outrank smaller places with a known population on population alone.
    const sao = items(call(store(), 'autocomplete', { q: 'sao p', limit: '20' }));
    assert.ok(sao.slice(0, 3).some((c) => c.name === 'São Paulo'));
    assert.ok(sao.some((c) => c.label === 'São Paulo, São Paulo, Brazil'));
    const exact = items(call(store(), 'autocomplete', { q: 'sao paulo' }));
    assert.ok(exact.slice(0, 2).some((c) => c.label === 'São Paulo, São Paulo, Brazil'));
    assert.equal(items(call(store(), 'autocomplete', { q: 'sao p', type: 'state' }))[0]!.label, 'São Paulo, Brazil');
  });
});
