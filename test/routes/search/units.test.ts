// The small parts of search: distance formula, city kinds, the body cache, top-k, ranking rules.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { distance as geokdbushDistance } from 'geokdbush';
import { CITY_TYPE_KINDS, cityKind } from '../../../runtime/engine/search/city-kind.js';
import { roundKm } from '../../../runtime/engine/search/nearby.js';
import { distanceKm, EARTH_RADIUS_KM } from '../../../runtime/indexes/geo-index.js';
import {
  AUTOCOMPLETE_RULES, comparatorOf, MATCH_EXACT, MATCH_OTHER, MATCH_PREFIX, TopK, type AutocompleteCandidate,
} from '../../../runtime/engine/search/ranking.js';
import { RowRanges } from '../../../runtime/engine/search/row-filter.js';
import { roundScore } from '../../../runtime/text/trigram.js';
import { fullDatasetSkip, prng, repoRoot } from './support.js';

describe('haversine distance', () => {
  test('gives the same double as geokdbush, whose walk order and radius bound nearby relies on', () => {
    const random = prng(7);
    for (let i = 0; i < 20000; i++) {
      const lat1 = random() * 180 - 90;
      const lng1 = random() * 360 - 180;
      // Half the pairs close together (the radius range nearby serves), half anywhere.
      const lat2 = i % 2 ? random() * 180 - 90 : Math.max(-90, Math.min(90, lat1 + (random() - 0.5) * 8));
      const lng2 = i % 2 ? random() * 360 - 180 : ((lng1 + (random() - 0.5) * 8 + 540) % 360) - 180;
      assert.equal(distanceKm(lng1, lat1, lng2, lat2), geokdbushDistance(lng1, lat1, lng2, lat2));
    }
  });

  test('agrees with the textbook haversine on a 6371 km sphere', () => {
    const rad = Math.PI / 180;
    const textbook = (lat1: number, lng1: number, lat2: number, lng2: number) => {
      const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
      return 2 * 6371 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a));
    };
    assert.equal(EARTH_RADIUS_KM, 6371);
    const random = prng(8);
    for (let i = 0; i < 5000; i++) {
      const p = [random() * 180 - 90, random() * 360 - 180, random() * 180 - 90, random() * 360 - 180] as const;
      assert.ok(Math.abs(distanceKm(p[1], p[0], p[3], p[2]) - textbook(...p)) < 1e-6);
    }
  });

  test('measures across the antimeridian and over the pole the short way', () => {
    // 0.02° of longitude on the equator, either side of ±180°.
    assert.ok(Math.abs(distanceKm(179.99, 0, -179.99, 0) - 2.22) < 0.01);
    // Two points 1° from the north pole on opposite meridians are 2° of arc apart.
    assert.ok(Math.abs(distanceKm(0, 89, 180, 89) - (2 * Math.PI * 6371 * 2) / 360) < 1e-6);
    assert.ok(distanceKm(0, 90, 123, 90) < 1e-9); // cos(90°) is 6e-17, not 0
    assert.ok(Number.isFinite(distanceKm(0, 0, 180, 0)));
  });

  test('rounds kilometres to 2 decimals', () => {
    assert.equal(roundKm(95.14999), 95.15);
    assert.equal(roundKm(136.0), 136);
    assert.equal(roundKm(0.004), 0);
  });
});

describe('city kind', () => {
  test('maps the spec examples and the unknown cases', () => {
    assert.equal(cityKind('city'), 'settlement');
    assert.equal(cityKind('Town'), 'settlement');
    assert.equal(cityKind('capital'), 'settlement');
    assert.equal(cityKind('adm1'), 'administrative');
    assert.equal(cityKind('adm5'), 'administrative');
    assert.equal(cityKind('municipality'), 'administrative');
    assert.equal(cityKind('section'), 'section');
    assert.equal(cityKind(null), 'unknown');
    assert.equal(cityKind(undefined), 'unknown');
    assert.equal(cityKind('spaceport'), 'unknown');
    assert.equal(cityKind('constructor'), 'unknown');
    assert.equal(cityKind('__proto__'), 'unknown');
  });

  const dataset = resolve(repoRoot, '../shared/data/csc/contributions/cities');
  test('lists every city type value present in the full dataset', { skip: fullDatasetSkip() }, () => {
    const seen = new Set<string>();
    for (const file of readdirSync(dataset)) {
      for (const city of JSON.parse(readFileSync(join(dataset, file), 'utf8')) as { type?: string | null }[]) {
        if (typeof city.type === 'string') seen.add(city.type.trim().toLowerCase());
      }
    }
    const unmapped = [...seen].filter((type) => !Object.hasOwn(CITY_TYPE_KINDS, type));
    assert.deepEqual(unmapped, [], 'type values without a kind');
  });
});

describe('ranking', () => {
  const candidate = (id: number, match: number, score: number, population: number): AutocompleteCandidate => ({ row: id, id, match, score, rankScore: roundScore(score), field: 'name', population });

  test('autocomplete rules: exact, starts-with, fuzzy score, population, id — in that order', () => {
    const compare = comparatorOf(AUTOCOMPLETE_RULES);
    assert.deepEqual(AUTOCOMPLETE_RULES.map((r) => r.name), ['exactName', 'startsWith', 'fuzzyScore', 'population', 'id']);
    const list = [
      candidate(1, MATCH_OTHER, 0.9, 1e9),
      candidate(2, MATCH_PREFIX, 0.1, 10),
      candidate(3, MATCH_PREFIX, 0.9, 5),
      candidate(4, MATCH_EXACT, 1, 1),
      candidate(5, MATCH_OTHER, 0.5, 1e9),
      candidate(6, MATCH_OTHER, 0.9, 1e9),
      candidate(7, MATCH_PREFIX, 0.5, -1),
    ];
    // Starts-with candidates ignore their score (population decides); fuzzy ones rank by score.
    assert.deepEqual(list.sort(compare).map((c) => c.id), [4, 2, 3, 7, 1, 6, 5]);
  });

  test('rule 3 compares the rounded match_score: equal served scores fall to population, then id', () => {
    const compare = comparatorOf(AUTOCOMPLETE_RULES);
    // q=Talaigua on the full dataset: Talas (0.3636…, 36,890 people) and Tacarigua (0.3571…,
    // 69,636 people) are both served as 0.36, so the larger place comes first.
    const talas = candidate(1, MATCH_OTHER, 0.363636, 36890);
    const tacarigua = candidate(2, MATCH_OTHER, 0.357143, 69636);
    assert.equal(talas.rankScore, tacarigua.rankScore);
    assert.deepEqual([talas, tacarigua].sort(compare).map((c) => c.id), [2, 1]);
    const sameEverything = candidate(3, MATCH_OTHER, 0.355, 69636);
    assert.deepEqual([sameEverything, tacarigua].sort(compare).map((c) => c.id), [2, 3]);
  });

  test('top-k keeps the best items in rank order, stable for equal items', () => {
    const random = prng(3);
    const values = Array.from({ length: 500 }, (_, i) => ({ key: Math.floor(random() * 50), i }));
    const top = new TopK<{ key: number; i: number }>(17, (a, b) => a.key - b.key);
    for (const value of values) top.offer(value);
    const expected = [...values].sort((a, b) => a.key - b.key || a.i - b.i).slice(0, 17);
    assert.deepEqual(top.items, expected);
  });

  test('top-k fed one reused object keeps copies, reusing the pushed-out ones: at most limit copies', () => {
    const random = prng(4);
    const values = Array.from({ length: 500 }, (_, i) => ({ key: Math.floor(random() * 50), i }));
    let copies = 0;
    const copy = (item: { key: number; i: number }, into: { key: number; i: number } | undefined) => {
      if (into === undefined) {
        copies++;
        return { ...item };
      }
      into.key = item.key;
      into.i = item.i;
      return into;
    };
    const top = new TopK<{ key: number; i: number }>(17, (a, b) => a.key - b.key, copy);
    const scratch = { key: 0, i: 0 };
    for (const value of values) {
      scratch.key = value.key;
      scratch.i = value.i;
      top.offer(scratch);
    }
    assert.deepEqual(top.items, [...values].sort((a, b) => a.key - b.key || a.i - b.i).slice(0, 17));
    assert.equal(copies, 17);
    assert.equal(new Set(top.items).size, 17);
  });

  test('row ranges answer membership over several ranges', () => {
    const ranges = new RowRanges([[10, 12], [3, 5], [7, 7]]);
    assert.deepEqual([2, 3, 4, 5, 7, 10, 11, 12].map((r) => ranges.has(r)), [false, true, true, false, false, true, true, false]);
    assert.deepEqual(ranges.span, [3, 12]);
    assert.ok(RowRanges.none().isEmpty);
  });
});
