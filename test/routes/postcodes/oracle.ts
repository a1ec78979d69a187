// Property checks shared by the fixture and full-dataset tests: paging through the engine with
// random filters returns exactly the brute-force answer, in order, each row once.
import assert from 'node:assert/strict';
import type { PostcodeFilters } from '../../../runtime/engine/postcodes/engine.js';
import { PostcodeEngine } from '../../../runtime/engine/postcodes/engine.js';
import type { PostcodeRecord } from '../../../runtime/format/model.js';
import type { Store } from '../../../runtime/store/types.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import { compareDocumented, matchesFilters } from './support.js';

/** All pages of a search, following `afterRow` like a cursor does. */
export function pageThrough(engine: PostcodeEngine, countryRow: number, filters: PostcodeFilters, limit: number): { ids: number[]; pages: number } {
  const ids: number[] = [];
  let afterRow: number | null = null;
  let pages = 0;
  for (;;) {
    const page = engine.search({ countryRow, filters, afterRow, limit });
    pages++;
    assert.ok(page.rows.length <= limit, `page of ${page.rows.length} rows exceeds limit ${limit}`);
    for (const row of page.rows) ids.push(engine.store.postcodes.idAt(row));
    if (!page.hasMore) break;
    assert.equal(page.rows.length, limit, 'a page followed by more rows is full');
    afterRow = page.rows[page.rows.length - 1]!;
    assert.ok(pages < 1_000_000, 'paging terminates');
  }
  return { ids, pages };
}

export function expectedIds(records: readonly PostcodeRecord[], filters: PostcodeFilters): number[] {
  return records.filter((r) => matchesFilters(r, filters)).sort(compareDocumented).map((r) => r.id);
}

/** Random filters drawn from the country's own values (and some that match nothing). */
export function randomFilters(records: readonly PostcodeRecord[], rnd: () => number): PostcodeFilters {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const some = records.length > 0 ? pick(records) : null;
  const filters: PostcodeFilters = { q: null, stateCode: null, cityId: null, type: null };
  if (some && rnd() < 0.5) {
    const fromLocality = some.locality_name !== null && rnd() < 0.6;
    const source = fromLocality ? matchKey(some.locality_name!) : matchKey(some.code);
    const start = fromLocality ? Math.floor(rnd() * Math.max(1, source.length - 2)) : 0;
    const length = 2 + Math.floor(rnd() * 4);
    const q = source.slice(start, start + length);
    if (q.trim().length >= 2) filters.q = matchKey(q);
  }
  if (rnd() < 0.3) filters.stateCode = rnd() < 0.9 && some?.state_code ? some.state_code.toUpperCase() : 'NOPE-1';
  if (rnd() < 0.2) filters.cityId = rnd() < 0.9 && some?.city_id ? some.city_id : 2_000_000_000;
  if (rnd() < 0.3) filters.type = rnd() < 0.9 && some?.type ? some.type.toLowerCase() : 'no_such_type';
  return filters;
}

export function checkRandomSearches(store: Store, iso2: string, records: readonly PostcodeRecord[], rnd: () => number, runs: number, maxLimit: number, engine = PostcodeEngine.of(store)): void {
  const countryRow = engine.countryRow(iso2);
  assert.ok(countryRow >= 0, `country ${iso2} exists`);
  for (let run = 0; run < runs; run++) {
    const filters = randomFilters(records, rnd);
    const limit = 1 + Math.floor(rnd() * maxLimit);
    const { ids } = pageThrough(engine, countryRow, filters, limit);
    assert.deepEqual(ids, expectedIds(records, filters), `${iso2} filters ${JSON.stringify(filters)} limit ${limit}`);
  }
}
