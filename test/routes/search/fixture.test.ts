// Golden cases and behaviours of the three search operations on the fixture dataset, calling the
// operation handlers directly (the HTTP contract is in contract.test.ts), plus brute-force
// oracles over the whole fixture.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { similarity } from '../../../runtime/text/trigram.js';
import { bruteAutocomplete, bruteFuzzy, bruteNearby, placesOf } from './oracles.js';
import { call, fixtureStore, items, prng } from './support.js';

const store = fixtureStore();
const names = (list: Record<string, unknown>[]) => list.map((item) => item.name);
const message = (called: { body: unknown }) => (called.body as { message: string }).message;

describe('autocomplete on the fixture', () => {
  test('q=lon ranks London first among cities, as a starts-with match on the name', () => {
    const list = items(call(store, 'autocomplete', { q: 'lon' }));
    assert.equal(list[0]!.name, 'London');
    assert.equal(list[0]!.matched_field, 'name');
    assert.equal(list[0]!.match_score, 0.5); // 3 of "london"'s 6 bytes typed
    assert.equal(list[0]!.type, 'city');
    assert.equal(list[0]!.label, 'London, Westminster, United Kingdom');
  });

  test('q=new y finds New York City first, and q=sao p finds São Paulo (diacritic-insensitive)', () => {
    assert.equal(items(call(store, 'autocomplete', { q: 'new y' }))[0]!.name, 'New York City');
    const sao = items(call(store, 'autocomplete', { q: 'sao p' }));
    assert.deepEqual(names(sao), ['São Paulo']);
    assert.equal(sao[0]!.label, 'São Paulo, São Paulo, Brazil');
    assert.deepEqual(names(items(call(store, 'autocomplete', { q: 'SÃO P' }))), ['São Paulo']);
  });

  test('an exact match on the native name scores 1 and names the field', () => {
    const list = items(call(store, 'autocomplete', { q: 'San José' }));
    assert.equal(list[0]!.name, 'San Jose');
    assert.equal(list[0]!.match_score, 1);
    assert.equal(list[0]!.matched_field, 'name'); // "san jose" equals the name's key too
    const native = items(call(store, 'autocomplete', { q: 'los ángeles' }))[0]!;
    assert.equal(native.name, 'Los Angeles');
    assert.equal(native.match_score, 1);
  });

  test('exact matches outrank starts-with matches, which rank by population then id', () => {
    const list = items(call(store, 'autocomplete', { q: 'san j' }));
    assert.deepEqual(names(list).slice(0, 2), ['San Jose', 'San Juan']); // 1,013,240 > 342,259
    // Then the trigram fill (similarity ≥ 0.2): San Francisco.
    assert.ok(list.slice(2).every((c) => c.matched_field === 'name' && (c.match_score as number) < 0.3));
    const states = items(call(store, 'autocomplete', { q: 'lau', type: 'state' }));
    assert.deepEqual(names(states), ['Lau']);
    assert.equal(states[0]!.match_score, 1);
  });

  test('translations match from 3 characters, ranked after names', () => {
    const londres = items(call(store, 'autocomplete', { q: 'Londres' }));
    assert.equal(londres[0]!.name, 'London');
    assert.equal(londres[0]!.matched_field, 'translation');
    assert.equal(londres[0]!.match_score, 1);
    const japanese = items(call(store, 'autocomplete', { q: 'ロンド' }));
    assert.equal(japanese[0]!.name, 'London');
    assert.equal(japanese[0]!.matched_field, 'translation');
    // Two characters never reach translations: "Br" matches Brazil by name only.
    assert.ok(items(call(store, 'autocomplete', { q: 'Es', type: 'country' })).every((item) => item.matched_field !== 'translation'));
  });

  test('fills remaining places with trigram matches scored by pg_trgm similarity', () => {
    const list = items(call(store, 'autocomplete', { q: 'Londn' }));
    assert.equal(list[0]!.name, 'London');
    assert.equal(list[0]!.matched_field, 'name');
    assert.equal(list[0]!.match_score, Math.round(similarity('Londn', 'London') * 100) / 100);
  });

  test('labels states and countries, and filters by country and state', () => {
    const states = items(call(store, 'autocomplete', { q: 'new', type: 'state' }));
    // Both populations unknown: the lower id (New York 1452) first.
    assert.deepEqual(states.map((s) => s.label), ['New York, United States', 'New Providence, The Bahamas']);
    const countries = items(call(store, 'autocomplete', { q: 'uni', type: 'country' }));
    assert.deepEqual(countries.map((c) => c.label), ['United States', 'United Kingdom']);
    assert.deepEqual(names(items(call(store, 'autocomplete', { q: 'san', country: 'us', state: 'pr' }))), ['San Juan']);
    assert.deepEqual(items(call(store, 'autocomplete', { q: 'san', country: 'GB' })), []);
    assert.deepEqual(items(call(store, 'autocomplete', { q: 'san', country: 'ZZ' })), []);
    assert.deepEqual(items(call(store, 'autocomplete', { q: 'san', country: 'US', state: 'XX' })), []);
    assert.deepEqual(names(items(call(store, 'autocomplete', { q: 'fr', type: 'state', country: 'BS' }))), ['Freeport']);
  });

  test('city results carry country_code and state_code, state results country_code, on every tier', () => {
    const city = items(call(store, 'autocomplete', { q: 'lon' }, 'community'))[0]!;
    assert.deepEqual(Object.keys(city), ['id', 'name', 'country_code', 'state_code', 'type', 'label', 'match_score', 'matched_field']);
    const state = items(call(store, 'autocomplete', { q: 'scot', type: 'state' }, 'community'))[0]!;
    assert.equal(state.country_code, 'GB');
    const supporter = items(call(store, 'autocomplete', { q: 'lon' }, 'supporter'))[0]!;
    assert.equal(supporter.translations, undefined);
    assert.equal(supporter.latitude, '51.50853000');
  });

  test('locale localises the first place name of the label on Professional+, and is ignored below', () => {
    const list = items(call(store, 'autocomplete', { q: 'lon', locale: 'es' }, 'professional'));
    assert.equal(list[0]!.localized_name, 'Londres');
    assert.equal(list[0]!.matched_locale, 'es');
    assert.equal(list[0]!.label, 'Londres, Westminster, United Kingdom');
    const supporter = items(call(store, 'autocomplete', { q: 'lon', locale: 'es' }, 'supporter'))[0]!;
    assert.equal(supporter.localized_name, undefined);
    assert.equal(supporter.label, 'London, Westminster, United Kingdom');
    assert.equal(call(store, 'autocomplete', { q: 'lon', locale: 'e' }, 'supporter').status, 400);
  });

  test('refuses bad parameters with the spec messages', () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'Invalid query parameters: q: Search query must be at least 2 characters'],
      [{ q: ' l ' }, 'Invalid query parameters: q: Search query must be at least 2 characters'],
      [{ q: 'san', state: 'CA' }, 'Invalid query parameters: state: country is required when filtering by state'],
      [{ q: 'san', state: 'CA', type: 'state', country: 'US' }, 'Invalid query parameters: state: state is only a valid filter when type=city'],
      [{ q: 'uni', type: 'country', country: 'US' }, 'Invalid query parameters: country: country is not a valid filter when type=country'],
    ];
    for (const [query, expected] of cases) {
      const called = call(store, 'autocomplete', query);
      assert.equal(called.status, 400, JSON.stringify(query));
      assert.equal(message(called), expected);
    }
    for (const query of <Record<string, string>[]>[{ q: "x".repeat(101) }, { q: 'lon', limit: '0' }, { q: 'lon', limit: '51' }, { q: 'lon', type: 'town' }, { q: 'lon', country: 'USA' }]) {
      assert.equal(call(store, 'autocomplete', query).status, 400, JSON.stringify(query));
    }
  });

  test('answers the same query with the same body (the HTTP layer caches it: X-Cache in contract.test.ts)', () => {
    const first = call(store, 'autocomplete', { q: 'ne', limit: '5' });
    const second = call(store, 'autocomplete', { q: 'ne', limit: '5' });
    assert.deepEqual(second.body, first.body);
  });

  test('equals the brute-force ranking of every fixture name', () => {
    const random = prng(11);
    for (const entity of ['cities', 'states', 'countries'] as const) {
      const places = placesOf(store, entity);
      const type = { cities: 'city', states: 'state', countries: 'country' }[entity];
      for (let i = 0; i < 60; i++) {
        const name = places.names[Math.floor(random() * places.count)]!;
        const q = i % 3 === 0 ? name.slice(0, 2 + Math.floor(random() * 6)) : i % 3 === 1 ? name.slice(1, 6) : `${name.slice(0, 3)}x${name.slice(3)}`;
        if ([...q.trim()].length < 2) continue;
        const limit = 1 + Math.floor(random() * 12);
        const got = items(call(store, 'autocomplete', { q, type, limit: String(limit) })).map((r) => ({ id: r.id, match_score: r.match_score, matched_field: r.matched_field }));
        assert.deepEqual(got, bruteAutocomplete(places, q.trim(), limit), `q=${q} type=${type}`);
      }
    }
  });
});

describe('fuzzy search on the fixture', () => {
  test('q=Lodnon finds London with PostgreSQL similarity 0.27272728 (0.27)', () => {
    // PostgreSQL 15.18: SELECT similarity('Lodnon', 'London') → 0.27272728 (3 shared of 11 trigrams).
    assert.equal(similarity('Lodnon', 'London'), Math.fround(0.27272728));
    const list = items(call(store, 'fuzzySearch', { q: 'Lodnon', threshold: '0.2' }));
    assert.equal(list[0]!.name, 'London');
    assert.equal(list[0]!.match_score, 0.27);
    assert.equal(list[0]!.matched_alias, null);
    // Below the default threshold 0.3.
    assert.ok(items(call(store, 'fuzzySearch', { q: 'Lodnon' })).every((item) => item.name !== 'London'));
  });

  test('matched_alias is the native name when it scores higher than the English name', () => {
    // With unaccent (decisions.md) the English name scores 1 too: a tie, so the name wins.
    const list = items(call(store, 'fuzzySearch', { q: 'Los Ángeles' }));
    assert.equal(list[0]!.name, 'Los Angeles');
    assert.equal(list[0]!.matched_alias, null);
    assert.equal(list[0]!.match_score, 1);
    const brasil = items(call(store, 'fuzzySearch', { q: 'Brasil', type: 'country' }));
    assert.equal(brasil[0]!.name, 'Brazil');
    assert.equal(brasil[0]!.matched_alias, 'Brasil');
  });

  test('returns the full field set plus match_score and matched_alias', () => {
    const city = items(call(store, 'fuzzySearch', { q: 'Oslo' }))[0]!;
    assert.deepEqual(Object.keys(city).slice(-2), ['match_score', 'matched_alias']);
    assert.equal(city.wikiDataId !== undefined, true);
  });

  test('filters by country for cities and states, and refuses it for countries', () => {
    assert.deepEqual(names(items(call(store, 'fuzzySearch', { q: 'san', country: 'us', threshold: '0.1' }))).sort(), ['San Francisco', 'San Jose', 'San Juan']);
    const refused = call(store, 'fuzzySearch', { q: 'uni', type: 'country', country: 'US' });
    assert.equal(refused.status, 400);
    assert.equal(message(refused), 'Invalid query parameters: country: country is not a valid filter when type=country');
    assert.equal(message(call(store, 'fuzzySearch', { q: 'a' })), 'Invalid query parameters: q: Search query must be at least 2 characters');
    for (const threshold of ['0.09', '1.01', 'abc']) assert.equal(call(store, 'fuzzySearch', { q: 'lon', threshold }).status, 400);
  });

  test('equals scoring every fixture name by brute force', () => {
    const random = prng(12);
    for (const entity of ['cities', 'states', 'countries'] as const) {
      const places = placesOf(store, entity);
      const type = { cities: 'city', states: 'state', countries: 'country' }[entity];
      for (let i = 0; i < 40; i++) {
        const name = places.names[Math.floor(random() * places.count)]!;
        const q = i % 2 ? name : `${name.slice(0, 2)}${name.slice(3)}`;
        if ([...q.trim()].length < 2) continue;
        const threshold = [0.1, 0.2, 0.3, 0.5, 1][i % 5]!;
        const limit = 1 + Math.floor(random() * 20);
        const got = items(call(store, 'fuzzySearch', { q, type, limit: String(limit), threshold: String(threshold) })).map((r) => ({
          id: r.id, match_score: r.match_score, matched_alias: r.matched_alias,
        }));
        assert.deepEqual(got, bruteFuzzy(places, q.trim(), threshold, limit), `q=${q} type=${type} threshold=${threshold}`);
      }
    }
  });
});

describe('nearby search on the fixture', () => {
  test('finds places on both sides of the antimeridian (Fiji), nearest first', () => {
    const list = items(call(store, 'nearbySearch', { lat: '-17.5', lng: '179.99', radius: '500' }));
    assert.ok(list.some((item) => Number(item.longitude) < 0), 'a place east of ±180° (Lau)');
    assert.ok(list.some((item) => Number(item.longitude) > 0), 'a place west of ±180°');
    assert.deepEqual(names(list), ['Levuka', 'Labasa', 'Lau', 'Suva', 'Nadi']);
    const distances = list.map((item) => item.distance_km as number);
    assert.deepEqual(distances, [...distances].sort((a, b) => a - b));
    // From east of the line, the nearest place lies west of it (Levuka, 179.32°E, ~83 km).
    const fromEast = items(call(store, 'nearbySearch', { lat: '-18.1', lng: '-179.9', radius: '100' }));
    assert.deepEqual(names(fromEast), ['Levuka']);
  });

  test('works near the pole and at it', () => {
    assert.deepEqual(names(items(call(store, 'nearbySearch', { lat: '78.6', lng: '13.5', radius: '100' }))), ['Ny-Ålesund', 'Longyearbyen']);
    assert.deepEqual(items(call(store, 'nearbySearch', { lat: '90', lng: '0', radius: '500' })), []);
  });

  test('adds distance_km, kind, country_name and state_name to cities on every tier', () => {
    const suva = items(call(store, 'nearbySearch', { lat: '-18.14161', lng: '178.44149' }))[0]!;
    assert.equal(suva.name, 'Suva');
    assert.equal(suva.distance_km, 0);
    assert.equal(suva.kind, 'settlement');
    assert.equal(suva.country_name, 'Fiji Islands');
    assert.equal(suva.state_name, 'Central');
    const basic = items(call(store, 'nearbySearch', { lat: '-18.14161', lng: '178.44149' }, 'community'))[0]!;
    assert.deepEqual(Object.keys(basic), ['id', 'name', 'country_name', 'state_name', 'distance_km', 'kind']);
    const state = items(call(store, 'nearbySearch', { lat: '-18.14161', lng: '178.44149', type: 'state', radius: '500' }, 'community'))[0]!;
    assert.equal(state.country_name, 'Fiji Islands');
    assert.equal(state.state_name, undefined);
    assert.equal(state.kind, undefined);
  });

  test('filters by kind, population, country and state', () => {
    const point = { lat: '-17.5', lng: '179.99', radius: '500' };
    assert.deepEqual(names(items(call(store, 'nearbySearch', { ...point, kind: 'settlement' }))), ['Suva', 'Nadi']);
    assert.deepEqual(names(items(call(store, 'nearbySearch', { ...point, kind: 'administrative' }))), ['Levuka', 'Labasa', 'Lau']);
    assert.deepEqual(names(items(call(store, 'nearbySearch', { ...point, min_population: '40000' }))), ['Suva', 'Nadi']);
    assert.deepEqual(names(items(call(store, 'nearbySearch', { ...point, country: 'fj', state: 'c' }))), ['Suva']);
    assert.deepEqual(items(call(store, 'nearbySearch', { ...point, country: 'NO' })), []);
    assert.deepEqual(names(items(call(store, 'nearbySearch', { ...point, limit: '2' }))), ['Levuka', 'Labasa']);
    assert.deepEqual(names(items(call(store, 'nearbySearch', { lat: '55.95', lng: '-3.18', kind: 'section' }))), ['Leith']);
  });

  test('localises with locale on Professional+', () => {
    const suva = items(call(store, 'nearbySearch', { lat: '-18.14161', lng: '178.44149', locale: 'ja' }, 'professional'))[0]!;
    assert.equal(suva.localized_name, 'スバ');
    assert.equal(suva.matched_locale, 'ja');
  });

  test('refuses bad parameters with the spec messages', () => {
    const cases: [Record<string, string>, string][] = [
      [{ lat: '91', lng: '0' }, 'Invalid query parameters: lat: lat must be between -90 and 90'],
      [{ lat: '-90.5', lng: '0' }, 'Invalid query parameters: lat: lat must be between -90 and 90'],
      [{ lat: '0', lng: '180.01' }, 'Invalid query parameters: lng: lng must be between -180 and 180'],
      [{ lat: '0', lng: '0', state: 'CA' }, 'Invalid query parameters: state: country is required when filtering by state'],
      [{ lat: '0', lng: '0', state: 'CA', country: 'US', type: 'state' }, 'Invalid query parameters: state: state is only a valid filter when type=city'],
      [{ lat: '0', lng: '0', type: 'country', country: 'US' }, 'Invalid query parameters: country: country is not a valid filter when type=country'],
      [{ lat: '0', lng: '0', type: 'state', kind: 'settlement' }, 'Invalid query parameters: kind: kind is only a valid filter when type=city'],
    ];
    for (const [query, expected] of cases) {
      const called = call(store, 'nearbySearch', query);
      assert.equal(called.status, 400, JSON.stringify(query));
      assert.equal(message(called), expected);
    }
    const bad: Record<string, string>[] = [{ lng: "0" }, { lat: 'north', lng: '0' }, { lat: '0', lng: '1e2' }, { lat: '0', lng: '0', radius: '0.5' }, { lat: '0', lng: '0', radius: '501' },
      { lat: '0', lng: '0', limit: '101' }, { lat: '0', lng: '0', kind: 'hamlet' }, { lat: '0', lng: '0', min_population: '-1' }, { lat: '0', lng: '0', min_population: '1.5' }];
    for (const query of bad) assert.equal(call(store, 'nearbySearch', query).status, 400, JSON.stringify(query));
  });

  test('equals sorting every fixture place by haversine distance', () => {
    const random = prng(13);
    for (const entity of ['cities', 'states', 'countries'] as const) {
      const places = placesOf(store, entity);
      const type = { cities: 'city', states: 'state', countries: 'country' }[entity];
      for (let i = 0; i < 60; i++) {
        // Around a random place (so results exist), sometimes far off.
        const row = Math.floor(random() * places.count);
        const lat = Number.isNaN(places.lat[row]!) ? random() * 180 - 90 : Math.max(-90, Math.min(90, places.lat[row]! + (random() - 0.5) * 6));
        const lng = Number.isNaN(places.lng[row]!) ? random() * 360 - 180 : ((places.lng[row]! + (random() - 0.5) * 6 + 540) % 360) - 180;
        const radius = 1 + Math.floor(random() * 500);
        const limit = 1 + Math.floor(random() * 100);
        const got = items(call(store, 'nearbySearch', { lat: String(lat), lng: String(lng), type, radius: String(radius), limit: String(limit) }));
        assert.deepEqual(got.map((r) => ({ id: r.id, distance_km: r.distance_km })), bruteNearby(places, lat, lng, radius, limit), `${type} ${lat},${lng} r=${radius}`);
      }
    }
  });
});
