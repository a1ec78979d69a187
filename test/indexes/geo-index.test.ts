import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import KDBush from 'kdbush';
import { around as geokdbushAround, distance as geokdbushDistance } from 'geokdbush';
import { buildGeoSections, parseCoordinate } from '../../build-index/sections/geo.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';
import { buildGeoIndex, distanceKm, GeoIndex, type GeoPrune } from '../../runtime/indexes/geo-index.js';
import { fullDatasetCities, ownBuffer, prng } from './helpers.js';

/** Haversine on geokdbush's sphere (R = 6371 km), written out independently. */
function haversineKm(lng1: number, lat1: number, lng2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(a));
}

/** Brute force: rows within radius passing the filter, nearest first, ties by row, cut to k. */
function bruteNearest(lngs: Float64Array, lats: Float64Array, lng: number, lat: number, k: number, radiusKm: number, filter?: (row: number) => boolean): { row: number; d: number }[] {
  const all: { row: number; d: number }[] = [];
  for (let row = 0; row < lngs.length; row++) {
    if (Number.isNaN(lngs[row]!) || (filter && !filter(row))) continue;
    const d = distanceKm(lng, lat, lngs[row]!, lats[row]!);
    if (d <= radiusKm) all.push({ row, d });
  }
  return all.sort((a, b) => a.d - b.d || a.row - b.row).slice(0, k);
}

/**
 * Compares an index answer with brute force: same distance sequence, and the same rows
 * except where a tie at the k-th distance lets either row in.
 */
function assertSameNearest(index: GeoIndex, lngs: Float64Array, lats: Float64Array, lng: number, lat: number, k: number, radiusKm: number, filter?: (row: number) => boolean): void {
  const rows = index.around(lng, lat, k, radiusKm, filter);
  const expected = bruteNearest(lngs, lats, lng, lat, k, radiusKm, filter);
  const where = `around(${lng}, ${lat}, k=${k}, r=${radiusKm})`;
  assert.equal(rows.length, expected.length, `${where}: result count`);
  const distances = rows.map((row) => index.distanceKmTo(row, lng, lat));
  for (let i = 0; i < rows.length; i++) {
    assert.ok(Math.abs(distances[i]! - expected[i]!.d) < 1e-9, `${where}: distance #${i}: expected ${expected[i]!.d}, found ${distances[i]}`);
    if (i > 0) assert.ok(distances[i]! >= distances[i - 1]!, `${where}: not nearest first at #${i}`);
  }
  const last = expected.length > 0 ? expected[expected.length - 1]!.d : 0;
  const strict = (list: number[]) => list.filter((row) => distanceKm(lng, lat, lngs[row]!, lats[row]!) < last - 1e-9).sort((a, b) => a - b);
  assert.deepEqual(strict(rows), strict(expected.map((e) => e.row)), `${where}: rows nearer than the k-th`);
}

function randomPoints(seed: number, count: number): { lngs: Float64Array; lats: Float64Array } {
  const random = prng(seed);
  const lngs = new Float64Array(count);
  const lats = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const region = i % 4;
    if (region === 0) {
      // Around the antimeridian.
      lngs[i] = random() < 0.5 ? 175 + random() * 5 : -180 + random() * 5;
      lats[i] = -60 + random() * 120;
    } else if (region === 1) {
      // Near the poles.
      lngs[i] = -180 + random() * 360;
      lats[i] = (random() < 0.5 ? 1 : -1) * (85 + random() * 5);
    } else {
      lngs[i] = -180 + random() * 360;
      lats[i] = Math.asin(2 * random() - 1) / (Math.PI / 180);
    }
    // Some duplicate coordinates (towns sharing a point) and some rows without coordinates.
    if (i > 0 && random() < 0.03) {
      lngs[i] = lngs[i - 1]!;
      lats[i] = lats[i - 1]!;
    }
    if (random() < 0.05) {
      lngs[i] = NaN;
      lats[i] = NaN;
    }
  }
  return { lngs, lats };
}

describe('GeoIndex', () => {
  it('uses geokdbush’s great-circle distance (R = 6371 km)', () => {
    assert.equal(distanceKm(2.3522, 48.8566, -0.1276, 51.5072), geokdbushDistance(2.3522, 48.8566, -0.1276, 51.5072));
    assert.ok(Math.abs(distanceKm(2.3522, 48.8566, -0.1276, 51.5072) - haversineKm(2.3522, 48.8566, -0.1276, 51.5072)) < 1e-9);
    assert.ok(Math.abs(distanceKm(0, 0, 180, 0) - Math.PI * 6371) < 1e-9);
  });

  it('round-trips: the bytes read back answer as the built index, in an ArrayBuffer or a SharedArrayBuffer', () => {
    const { lngs, lats } = randomPoints(1, 3000);
    const bytes = buildGeoIndex(lngs, lats);
    const a = GeoIndex.from(ownBuffer(bytes));
    const b = GeoIndex.from(ownBuffer(bytes, true));
    assert.equal(a.rowCount, 3000);
    assert.equal(a.pointCount, Array.from(lngs).filter((x) => !Number.isNaN(x)).length);
    for (let row = 0; row < 3000; row++) {
      if (Number.isNaN(lngs[row]!)) {
        assert.equal(a.hasPoint(row), false);
        assert.ok(Number.isNaN(a.lng(row)) && Number.isNaN(a.lat(row)));
      } else {
        assert.equal(a.lng(row), lngs[row]);
        assert.equal(a.lat(row), lats[row]);
      }
    }
    assert.deepEqual(a.around(179.5, 10, 25, 2000), b.around(179.5, 10, 25, 2000));
  });

  it('finds the k nearest within a radius as brute force does, across the antimeridian and near the poles', () => {
    const { lngs, lats } = randomPoints(2, 4000);
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(lngs, lats)));
    const random = prng(3);
    const probes: [number, number][] = [[180, 0], [-180, 0], [179.9, -20], [-179.9, 45], [0, 90], [0, -90], [123, 89.9], [-45, -89.5]];
    for (let i = 0; i < 40; i++) probes.push([-180 + random() * 360, -90 + random() * 180]);
    for (const [lng, lat] of probes) {
      for (const [k, radius] of [[1, 20000], [10, 500], [25, 2000], [100, 20000]] as const) assertSameNearest(index, lngs, lats, lng, lat, k, radius);
    }
  });

  it('aroundWithDistances returns around’s rows with each row’s distanceKm, computed once by the walk', () => {
    const { lngs, lats } = randomPoints(5, 3000);
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(lngs, lats)));
    for (const [lng, lat] of [[179.5, 10], [0, 89.9], [-70, -30]] as const) {
      const hits = index.aroundWithDistances(lng, lat, 40, 2500);
      assert.deepEqual(hits.rows, index.around(lng, lat, 40, 2500));
      assert.equal(hits.distancesKm.length, hits.rows.length);
      hits.rows.forEach((row, i) => {
        assert.equal(hits.distancesKm[i], distanceKm(lng, lat, lngs[row]!, lats[row]!));
        assert.equal(hits.distancesKm[i], index.distanceKmTo(row, lng, lat));
      });
    }
    assert.deepEqual(index.aroundWithDistances(0, 0, 0, 100), { rows: [], distancesKm: new Float64Array(0) });
  });

  it('walks the tree as geokdbush’s around does (its allocation-free copy): the same rows in the same order, with and without a filter', () => {
    const { lngs, lats } = randomPoints(6, 5000);
    const bytes = buildGeoIndex(lngs, lats);
    const index = GeoIndex.from(ownBuffer(bytes));
    const tree = KDBush.from(ownBuffer(bytes));
    const rowOfPoint: number[] = [];
    for (let row = 0; row < lngs.length; row++) if (!Number.isNaN(lngs[row]!)) rowOfPoint.push(row);
    const random = prng(7);
    const third = (row: number) => row % 3 === 0;
    for (let i = 0; i < 60; i++) {
      const lng = i < 4 ? [180, -180, 0, 0][i]! : -180 + random() * 360;
      const lat = i < 4 ? [0, 0, 90, -90][i]! : -90 + random() * 180;
      for (const [k, radius] of [[1, 20000], [21, 300], [41, 2500], [500, 20000]] as const) {
        for (const filter of [undefined, third]) {
          const expected = geokdbushAround(tree, lng, lat, k, radius, filter ? (id: number) => filter(rowOfPoint[id]!) : undefined).map((id) => rowOfPoint[id]!);
          // around() orders each run of equal distances by row; geokdbush leaves its heap's order
          // (its runs come nearest first, so sorting by distance then row orders just the runs).
          const distance = (row: number) => index.distanceKmTo(row, lng, lat);
          expected.sort((a, b) => distance(a) - distance(b) || a - b);
          assert.deepEqual(index.around(lng, lat, k, radius, filter), expected, `around(${lng}, ${lat}, ${k}, ${radius}${filter ? ', row % 3 = 0' : ''})`);
        }
      }
    }
  });

  it('skips the parts of the tree a filter rejects whole: the same rows as the filter alone, as brute force finds them', () => {
    const { lngs, lats } = randomPoints(8, 6000);
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(lngs, lats)));
    const random = prng(9);
    // Rows in runs by "country" (contiguous, spread over the globe), a population (NaN and -1 for
    // unknown ones, a few very large) and a kind code 0–3.
    const population = Float64Array.from(lngs, (_, row) => (row % 17 === 0 ? NaN : row % 5 === 0 ? -1 : Math.floor(random() ** 4 * 2e6)));
    const kinds = Uint8Array.from(lngs, (_, row) => (row % 11 === 0 ? 3 : row % 7 === 0 ? 2 : row % 2));
    const maxima = index.nodeMaxima(population);
    const masks = index.nodeMasks(kinds);
    const filters: { name: string; prune: GeoPrune }[] = [
      { name: 'rows 1200–1500', prune: { rowStart: 1200, rowEnd: 1500, maxima: null, minValue: 0, masks: null, mask: 0 } },
      { name: 'row 4321 alone', prune: { rowStart: 4321, rowEnd: 4322, maxima: null, minValue: 0, masks: null, mask: 0 } },
      { name: 'no row', prune: { rowStart: 10, rowEnd: 10, maxima: null, minValue: 0, masks: null, mask: 0 } },
      { name: 'population ≥ 1.5M', prune: { rowStart: 0, rowEnd: 6000, maxima, minValue: 1_500_000, masks: null, mask: 0 } },
      { name: 'population ≥ 1', prune: { rowStart: 0, rowEnd: 6000, maxima, minValue: 1, masks: null, mask: 0 } },
      { name: 'kind 3', prune: { rowStart: 0, rowEnd: 6000, maxima: null, minValue: 0, masks, mask: 1 << 3 } },
      { name: 'kind 2, rows 0–3000, population ≥ 100k', prune: { rowStart: 0, rowEnd: 3000, maxima, minValue: 100_000, masks, mask: 1 << 2 } },
    ];
    for (const { name, prune } of filters) {
      const filter = (row: number): boolean =>
        row >= prune.rowStart && row < prune.rowEnd && (prune.maxima === null || population[row]! >= prune.minValue) && (prune.masks === null || ((1 << kinds[row]!) & prune.mask) !== 0);
      for (let i = 0; i < 25; i++) {
        const lng = -180 + random() * 360;
        const lat = -90 + random() * 180;
        for (const [k, radius] of [[1, 20000], [20, 500], [100, 5000]] as const) {
          assert.deepEqual(index.around(lng, lat, k, radius, filter, prune), index.around(lng, lat, k, radius, filter), `${name}: around(${lng}, ${lat}, ${k}, ${radius})`);
          if (i < 5) assertSameNearest(index, lngs, lats, lng, lat, k, radius, filter);
        }
      }
    }
  });

  it('with pruning, meets only the points of tree nodes that can pass', () => {
    // A selective filter (a "country" far from the point) used to score every point within the
    // radius before answering nothing: rows 0–999 around Australia, the others around Europe.
    const random = prng(10);
    const count = 20000;
    const lngs = Float64Array.from({ length: count }, (_, row) => (row < 1000 ? 135 : 10) + (random() - 0.5) * 20);
    const lats = Float64Array.from({ length: count }, (_, row) => (row < 1000 ? -25 : 48) + (random() - 0.5) * 10);
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(lngs, lats)));
    let calls = 0;
    const filter = (row: number): boolean => {
      calls++;
      return row < 1000;
    };
    const prune: GeoPrune = { rowStart: 0, rowEnd: 1000, maxima: null, minValue: 0, masks: null, mask: 0 };
    for (const [k, radiusKm, expected] of [[20, 1500, 0], [20, 20000, 20]] as const) {
      calls = 0;
      const unpruned = index.around(10, 48, k, radiusKm, filter);
      const unprunedCalls = calls;
      calls = 0;
      const pruned = index.around(10, 48, k, radiusKm, filter, prune);
      assert.deepEqual(pruned, unpruned);
      assert.equal(pruned.length, expected);
      assert.ok(calls * 20 < unprunedCalls, `radius ${radiusKm} km: the filter ran ${calls} times with pruning, ${unprunedCalls} without`);
    }
  });

  it('answers a row range whose points all lie beyond the radius at once, and any other as brute force does, across the antimeridian and the poles', () => {
    // Rows in runs of 400 ("countries"), each run around a centre of its own; one straddles ±180°,
    // one reaches the north pole.
    const random = prng(12);
    const count = 8000;
    const centres = Array.from({ length: count / 400 }, (_, run) => (run === 3 ? [179, 10] : run === 4 ? [-30, 88] : [-180 + random() * 360, -80 + random() * 160]));
    const lngs = new Float64Array(count);
    const lats = new Float64Array(count);
    for (let row = 0; row < count; row++) {
      const [lng, lat] = centres[Math.floor(row / 400)]!;
      lngs[row] = ((lng! + (random() - 0.5) * 8 + 540) % 360) - 180;
      lats[row] = Math.max(-90, Math.min(90, lat! + (random() - 0.5) * 6));
    }
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(lngs, lats)));
    let calls = 0;
    let atOnce = 0;
    for (let t = 0; t < 300; t++) {
      const run = Math.floor(random() * centres.length);
      const rowStart = run * 400 + (t % 3 === 0 ? Math.floor(random() * 200) : 0);
      const rowEnd = rowStart + (t % 3 === 1 ? 1 + Math.floor(random() * 399) : 400 - (rowStart % 400));
      const prune: GeoPrune = { rowStart, rowEnd, maxima: null, minValue: 0, masks: null, mask: 0 };
      const filter = (row: number): boolean => {
        calls++;
        return row >= rowStart && row < rowEnd;
      };
      // Near the run's own centre, or anywhere.
      const [centreLng, centreLat] = centres[t % 2 === 0 ? run : Math.floor(random() * centres.length)]!;
      const lng = ((centreLng! + (random() - 0.5) * 30 + 540) % 360) - 180;
      const lat = Math.max(-90, Math.min(90, centreLat! + (random() - 0.5) * 20));
      const radiusKm = [50, 500, 2000][t % 3]!;
      const k = 1 + Math.floor(random() * 30);
      calls = 0;
      const pruned = index.around(lng, lat, k, radiusKm, filter, prune);
      const outOfReach = calls === 0;
      assert.deepEqual(pruned, index.around(lng, lat, k, radiusKm, filter), `rows [${rowStart}, ${rowEnd}) around(${lng}, ${lat}, ${k}, ${radiusKm})`);
      assertSameNearest(index, lngs, lats, lng, lat, k, radiusKm, filter);
      // Answered at once only when no point of the range is within the radius.
      if (outOfReach) {
        atOnce++;
        for (let row = rowStart; row < rowEnd; row++) assert.ok(index.distanceKmTo(row, lng, lat) > radiusKm * 0.999, `row ${row} within reach of (${lng}, ${lat})`);
      }
    }
    // Both ways are met.
    assert.ok(atOnce > 30 && atOnce < 270, `${atOnce} of 300 answered at once`);
  });

  it('summarises NaN as below every value, and an empty or single-point tree', () => {
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(Float64Array.of(1, 2, 3), Float64Array.of(1, 2, 3))));
    const maxima = index.nodeMaxima(Float64Array.of(NaN, 5, NaN));
    const pass = (minValue: number): GeoPrune => ({ rowStart: 0, rowEnd: 3, maxima, minValue, masks: null, mask: 0 });
    const atLeast = (minValue: number) => (row: number) => row === 1 && 5 >= minValue;
    assert.deepEqual(index.around(1, 1, 3, 20000, atLeast(5), pass(5)), [1]);
    assert.deepEqual(index.around(1, 1, 3, 20000, atLeast(6), pass(6)), []);
    const allNaN = index.nodeMaxima(Float64Array.of(NaN, NaN, NaN));
    assert.deepEqual(index.around(1, 1, 3, 20000, () => false, { rowStart: 0, rowEnd: 3, maxima: allNaN, minValue: 0, masks: null, mask: 0 }), []);
    const empty = GeoIndex.from(ownBuffer(buildGeoIndex(new Float64Array(0), new Float64Array(0))));
    empty.prepare();
    assert.deepEqual(empty.around(0, 0, 5, 1000, () => true, { rowStart: 0, rowEnd: 0, maxima: empty.nodeMaxima(new Float64Array(0)), minValue: 0, masks: null, mask: 0 }), []);
  });

  it('crosses the antimeridian: a point at 179.9° finds its neighbour at -179.9°', () => {
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(Float64Array.of(-179.9, 170, 179.9), Float64Array.of(0, 0, 0))));
    assert.deepEqual(index.around(179.95, 0, 2, 100), [2, 0]);
  });

  it('applies the row filter before counting results', () => {
    const { lngs, lats } = randomPoints(4, 2000);
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(lngs, lats)));
    const even = (row: number) => row % 2 === 0;
    for (const [lng, lat] of [[10, 50], [179, -10], [-60, -85]] as const) {
      const rows = index.around(lng, lat, 15, 3000, even);
      assert.ok(rows.every(even));
      assertSameNearest(index, lngs, lats, lng, lat, 15, 3000, even);
    }
  });

  it('returns nothing for k = 0, a negative radius, or an empty index', () => {
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(Float64Array.of(1), Float64Array.of(1))));
    assert.deepEqual(index.around(1, 1, 0, 10), []);
    assert.deepEqual(index.around(1, 1, 5, -1), []);
    assert.deepEqual(index.around(1, 1, 5, 0), [0]);
    const empty = GeoIndex.from(ownBuffer(buildGeoIndex(new Float64Array(0), new Float64Array(0))));
    assert.deepEqual(empty.around(0, 0, 5, 1000), []);
    const allNull = GeoIndex.from(ownBuffer(buildGeoIndex(Float64Array.of(NaN, NaN), Float64Array.of(NaN, NaN))));
    assert.deepEqual(allNull.around(0, 0, 5, 20000), []);
    assert.equal(allNull.rowCount, 2);
  });

  it('leaves out-of-range coordinates out of the tree', () => {
    const index = GeoIndex.from(ownBuffer(buildGeoIndex(Float64Array.of(0, 200, 0, Infinity), Float64Array.of(0, 0, 95, 0))));
    assert.equal(index.pointCount, 1);
    assert.deepEqual(index.around(0, 0, 10, 20000), [0]);
  });

  it('refuses a buffer that is not a geo index payload', () => {
    assert.throws(() => GeoIndex.from(new ArrayBuffer(16)), SnapshotFormatError);
    const bytes = buildGeoIndex(Float64Array.of(1, 2), Float64Array.of(1, 2));
    assert.throws(() => GeoIndex.from(ownBuffer(bytes.subarray(0, bytes.byteLength - 8))), SnapshotFormatError);
    assert.throws(() => GeoIndex.from(bytes as unknown as ArrayBuffer), /expected an ArrayBuffer/);
  });

  it('answers as brute force over the full dataset’s cities', (t) => {
    const cities = fullDatasetCities();
    if (!cities) return t.skip('full dataset absent');
    const lngs = Float64Array.from(cities, (c) => parseCoordinate(c.longitude));
    const lats = Float64Array.from(cities, (c) => parseCoordinate(c.latitude));
    const index = GeoIndex.from(ownBuffer(buildGeoSections({ countries: [], states: [], cities: cities as never, postcodes: [] })['geo.cities']!));
    assert.equal(index.rowCount, cities.length);
    const random = prng(5);
    for (let i = 0; i < 12; i++) {
      const row = Math.floor(random() * cities.length);
      const [lng, lat] = Number.isNaN(lngs[row]!) ? [0, 0] : [lngs[row]! + random() - 0.5, lats[row]! + random() - 0.5];
      assertSameNearest(index, lngs, lats, lng, lat, 20, 25);
      assertSameNearest(index, lngs, lats, lng, lat, 100, 500);
    }
    assertSameNearest(index, lngs, lats, 179.5, -17, 20, 500); // Fiji, across the antimeridian
  });
});
