// Nearby postcodes (type=postcode) and reverse lookup (GET /v1/reverse): against brute force over
// every postcode / city with coordinates on the full dataset (../shared/data/csc; required when
// CI=true), and their parameters, errors and bodies on the fixture.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { roundKm } from '../../../runtime/engine/search/nearby.js';
import { distanceKm } from '../../../runtime/indexes/geo-index.js';
import type { Store } from '../../../runtime/store/types.js';
import { placesOf } from './oracles.js';
import { call, fixtureStore, repoRoot, startSearchServer, fullDatasetSkip, fullSnapshot, items, prng, validators } from './support.js';

interface Located {
  count: number;
  ids: Int32Array;
  lat: Float64Array;
  lng: Float64Array;
  countryCode: string[];
}

const postcodeCache = new WeakMap<Store, Located>();

/** Every postcode's id, coordinates (NaN when absent) and country code, decoded once. */
function postcodesOf(store: Store): Located {
  let found = postcodeCache.get(store);
  if (!found) {
    const count = store.postcodes.count;
    found = { count, ids: new Int32Array(count), lat: new Float64Array(count), lng: new Float64Array(count), countryCode: [] };
    const num = (text: string | null): number => (text === null || text.trim() === '' ? NaN : Number(text));
    for (let row = 0; row < count; row++) {
      const record = store.postcodes.record(row);
      found.ids[row] = record.id;
      found.lat[row] = num(record.latitude);
      found.lng[row] = num(record.longitude);
      found.countryCode.push(record.country_code);
    }
    postcodeCache.set(store, found);
  }
  return found;
}

/** Nearest first (distance, then lower id) within radiusKm, as nearby ranks. */
function brute(places: Located, lat: number, lng: number, radiusKm: number, limit: number, country?: string): { id: number; distance_km: number }[] {
  const found: { id: number; d: number }[] = [];
  for (let row = 0; row < places.count; row++) {
    if (Number.isNaN(places.lat[row]!) || Number.isNaN(places.lng[row]!)) continue;
    if (country !== undefined && places.countryCode[row] !== country) continue;
    const d = distanceKm(lng, lat, places.lng[row]!, places.lat[row]!);
    if (d <= radiusKm) found.push({ id: places.ids[row]!, d });
  }
  found.sort((a, b) => a.d - b.d || a.id - b.id);
  return found.slice(0, limit).map(({ id, d }) => ({ id, distance_km: roundKm(d) }));
}

/** Random points: near a located row, either side of the antimeridian, polar (poles included), anywhere. */
function pointFor(random: () => number, i: number, near: Located): [number, number] {
  const region = i % 5;
  if (region <= 1) {
    for (;;) {
      const row = Math.floor(random() * near.count);
      if (Number.isNaN(near.lat[row]!)) continue;
      const lat = Math.max(-90, Math.min(90, near.lat[row]! + (random() - 0.5) * 0.5));
      const lng = ((near.lng[row]! + (random() - 0.5) * 0.5 + 540) % 360) - 180;
      return [lat, lng];
    }
  }
  if (region === 2) {
    const lat = [-18, -17, -8, -1, 0, 1, 52, 64, 66][Math.floor(random() * 9)]! + (random() - 0.5) * 4;
    let lng = (random() < 0.5 ? 180 : -180) - (random() < 0.5 ? 1 : -1) * random() * 4;
    lng = lng > 180 ? lng - 360 : lng < -180 ? lng + 360 : lng;
    return [lat, lng];
  }
  if (region === 3) {
    let lat = (random() < 0.7 ? 1 : -1) * (70 + random() * 20);
    if (random() < 0.15) lat = lat > 0 ? 90 : -90;
    return [lat, random() * 360 - 180];
  }
  return [random() * 180 - 90, random() * 360 - 180];
}

const skip = fullDatasetSkip();
let storeCache: Store | null = null;
const store = (): Store => (storeCache ??= fullSnapshot().store);

describe('nearby postcodes on the full dataset', { skip }, () => {
  test('equal sorting every postcode with coordinates by haversine distance for 500 points, antimeridian and poles included', () => {
    const postcodes = postcodesOf(store());
    const random = prng(1500);
    let nonEmpty = 0;
    for (let i = 0; i < 500; i++) {
      const [lat, lng] = pointFor(random, i, postcodes);
      const radius = random() < 0.5 ? 500 : 1 + Math.floor(random() * 500);
      const limit = 1 + Math.floor(random() * 100);
      let country: string | undefined;
      if (i % 7 === 0) country = postcodes.countryCode[Math.floor(random() * postcodes.count)]!;
      const query: Record<string, string> = { lat: String(lat), lng: String(lng), type: 'postcode', radius: String(radius), limit: String(limit) };
      if (country !== undefined) query.country = i % 14 === 0 ? country.toLowerCase() : country;
      const got = items(call(store(), 'nearbySearch', query)).map((r) => ({ id: Number(r.id), distance_km: r.distance_km }));
      const expected = brute(postcodes, lat, lng, radius, limit, country);
      assert.deepEqual(got, expected, JSON.stringify(query));
      if (expected.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty > 150, `expected postcodes near many points, found ${nonEmpty}`);
  });
});

describe('reverse lookup on the full dataset', { skip }, () => {
  test('gives the nearest city (then lower id) with its state and country and the nearest postcode, as brute force does, for 300 points', () => {
    const s = store();
    const cities = placesOf(s, 'cities');
    const citiesLocated: Located = { count: cities.count, ids: cities.ids, lat: cities.lat, lng: cities.lng, countryCode: cities.countryCode };
    const postcodes = postcodesOf(s);
    const random = prng(1600);
    let found = 0;
    let withPostcode = 0;
    for (let i = 0; i < 300; i++) {
      const [lat, lng] = pointFor(random, i, i % 2 === 0 ? citiesLocated : postcodes);
      const radius = i % 3 === 0 ? undefined : 1 + Math.floor(random() * 500);
      const radiusKm = radius ?? 50;
      const query: Record<string, string> = { lat: String(lat), lng: String(lng) };
      if (radius !== undefined) query.radius = String(radius);
      const reply = call(s, 'reverseLookup', query);
      const [city] = brute(citiesLocated, lat, lng, radiusKm, 1);
      if (city === undefined) {
        assert.equal(reply.status, 404, JSON.stringify(query));
        // call() returns the ApiError's parts; the HTTP layer adds status: 'error' (shape B).
        assert.equal(validators.errorB({ status: 'error', ...(reply.body as object) }), null);
        continue;
      }
      found++;
      assert.equal(reply.status, 200, JSON.stringify(query));
      const body = reply.body as { city: Record<string, unknown>; state: Record<string, unknown> | null; country: Record<string, unknown>; postcode: Record<string, unknown> | null };
      assert.deepEqual({ id: body.city.id, distance_km: body.city.distance_km }, city, JSON.stringify(query));
      const record = s.cities.record(s.cities.rowById(city.id));
      assert.equal(body.country.id, record.country_id);
      assert.equal(body.country.iso2, record.country_code);
      assert.equal(body.state?.id ?? null, record.state_id);
      const [postcode] = brute(postcodes, lat, lng, radiusKm, 1);
      assert.deepEqual(body.postcode === null ? null : { id: Number(body.postcode.id), distance_km: body.postcode.distance_km }, postcode ?? null, JSON.stringify(query));
      if (postcode) withPostcode++;
      assert.equal(validators.reverseLookup(reply.body), null);
    }
    assert.ok(found > 100 && withPostcode > 20, `expected many hits, found ${found} (${withPostcode} with a postcode)`);
  });
});

describe('nearby postcodes and reverse lookup on the fixture', () => {
  test('type=postcode serves postcode records for the tier plus distance_km, valid against the nearby schema', () => {
    const fixture = fixtureStore();
    const postcodes = postcodesOf(fixture);
    const row = [...postcodes.lat.keys()].find((r) => !Number.isNaN(postcodes.lat[r]!))!;
    const query = { lat: String(postcodes.lat[row]), lng: String(postcodes.lng[row]), type: 'postcode', radius: '500' };
    const full = items(call(fixture, 'nearbySearch', query, 'business'));
    assert.ok(full.length > 0);
    assert.equal(full[0]!.id, String(postcodes.ids[row]));
    assert.equal(full[0]!.distance_km, 0);
    assert.ok('latitude' in full[0]! && 'source' in full[0]!);
    assert.equal(validators.nearbySearch(full), null);
    assert.deepEqual(full.map((r) => ({ id: Number(r.id), distance_km: r.distance_km })), brute(postcodes, Number(query.lat), Number(query.lng), 500, 20));
  });

  test('type=postcode refuses state, kind and min_population; an unknown country gives []', () => {
    const base = { lat: '51.5', lng: '-0.12', type: 'postcode' };
    for (const [extra, name] of [[{ country: 'GB', state: 'ENG' }, 'state'], [{ kind: 'settlement' }, 'kind'], [{ min_population: '10' }, 'min_population']] as const) {
      const reply = call(fixtureStore(), 'nearbySearch', { ...base, ...extra });
      assert.equal(reply.status, 400);
      assert.match((reply.body as { message: string }).message, new RegExp(`^Invalid query parameters: ${name}: `));
    }
    assert.deepEqual(items(call(fixtureStore(), 'nearbySearch', { ...base, country: 'ZZ' })), []);
    const bad = call(fixtureStore(), 'nearbySearch', { ...base, type: 'street' });
    assert.equal((bad.body as { message: string }).message, "Invalid query parameters: type: must be one of city, state, country, postcode, found 'street'");
  });

  test('reverse: 400 for bad lat, lng and radius (1 to 500, default 50); 404 in shape B far from any city', () => {
    const f = fixtureStore();
    assert.equal((call(f, 'reverseLookup', { lng: '0' }).body as { message: string }).message, 'Invalid query parameters: lat: lat must be between -90 and 90 (required)');
    assert.equal(call(f, 'reverseLookup', { lat: '0', lng: '181' }).status, 400);
    assert.equal(call(f, 'reverseLookup', { lat: '0', lng: '0', radius: '501' }).status, 400);
    assert.equal(call(f, 'reverseLookup', { lat: '0', lng: '0', radius: '0.5' }).status, 400);
    const far = call(f, 'reverseLookup', { lat: '-60', lng: '-140' });
    assert.equal(far.status, 404);
    assert.deepEqual(far.body, { message: 'No city within 50 km of the point.', details: { reason: 'nothing_within_radius', radius_km: 50 } });
  });

  test('reverse: the nearest city with its state and country, gated like nearby', () => {
    const f = fixtureStore();
    const cities = placesOf(f, 'cities');
    const row = [...cities.lat.keys()].find((r) => !Number.isNaN(cities.lat[r]!))!;
    const query = { lat: String(cities.lat[row]), lng: String(cities.lng[row]) };
    const reply = call(f, 'reverseLookup', query, 'professional');
    assert.equal(reply.status, 200);
    assert.equal(validators.reverseLookup(reply.body), null);
    const body = reply.body as { city: Record<string, unknown>; country: { iso2: string } };
    assert.equal(body.city.distance_km, 0);
    assert.equal(body.country.iso2, cities.countryCode[row]);
    // The gate (checked by runtime/http): feature reverseLookup, the same minimum plan as nearby.
    const policy = JSON.parse(readFileSync(join(repoRoot, 'data/policy.json'), 'utf8')) as { features: Record<string, string>; operations: Record<string, { feature: string }> };
    assert.equal(policy.operations.reverseLookup!.feature, 'reverseLookup');
    assert.equal(policy.features.reverseLookup, policy.features.nearbySearch);
  });
});

describe('reverse lookup over HTTP (real server, fixture)', () => {
  test('403 below Professional (feature reverseLookup), 200 with X-Cache, 404 and 400 in shape B', async () => {
    const server = await startSearchServer();
    try {
      const f = fixtureStore();
      const cities = placesOf(f, 'cities');
      const row = [...cities.lat.keys()].find((r) => !Number.isNaN(cities.lat[r]!))!;
      const path = `/v1/reverse?lat=${cities.lat[row]}&lng=${cities.lng[row]}`;
      const forbidden = await server.get(path, { plan: 'supporter' });
      assert.equal(forbidden.status, 403);
      assert.equal(validators.errorB403(forbidden.json()), null);
      assert.equal((forbidden.json() as { details: { feature: string } }).details.feature, 'reverseLookup');
      const ok = await server.get(path, { plan: 'professional' });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['x-cache'], 'MISS');
      assert.equal(validators.reverseLookup(ok.json()), null);
      assert.equal((await server.get(path, { plan: 'professional' })).headers['x-cache'], 'HIT');
      const far = await server.get('/v1/reverse?lat=-60&lng=-140&radius=10', { plan: 'business' });
      assert.equal(far.status, 404);
      assert.deepEqual(far.json(), { status: 'error', message: 'No city within 10 km of the point.', details: { reason: 'nothing_within_radius', radius_km: 10 } });
      const bad = await server.get('/v1/reverse?lat=91&lng=0', { plan: 'business' });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.json(), { status: 'error', message: 'Invalid query parameters: lat: lat must be between -90 and 90' });
    } finally {
      await server.close();
    }
  });
});
