// The postcode engine on the fixture dataset (test/fixtures/csc, see its README): exact lookup
// rules, the order and paging of the search, the filters, and the paging property against a
// brute-force filter + sort of every record.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PostcodeFilters } from '../../../runtime/engine/postcodes/engine.js';
import { PostcodeEngine } from '../../../runtime/engine/postcodes/engine.js';
import { POSTCODE_FILTERS_SECTION } from '../../../runtime/format/sections.js';
import { localityKeyAt, PostcodeFilterIndex } from '../../../runtime/indexes/postcode-filter-index.js';
import type { Store } from '../../../runtime/store/types.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import { checkRandomSearches, expectedIds, pageThrough } from '../../routes/postcodes/oracle.js';
import { fixtureSource, random, recordsOfCountry, snapshotOf } from '../../routes/postcodes/support.js';

const none: PostcodeFilters = { q: null, stateCode: null, cityId: null, type: null };

describe('postcode engine on the fixture dataset', () => {
  let store: Store;
  let engine: PostcodeEngine;
  before(() => {
    store = snapshotOf(fixtureSource).store;
    engine = PostcodeEngine.of(store);
  });

  const codes = (iso2: string, code: string) => {
    const outcome = engine.lookup(iso2, code);
    return outcome.kind === 'found' ? outcome.rows.map((row) => `${store.postcodes.record(row).code}#${store.postcodes.idAt(row)}`) : outcome.kind;
  };
  const codesOf = (rows: number[]) => rows.map((row) => store.postcodes.nameAt(row));

  test('finds a code with an inner space in any spacing or case', () => {
    for (const spelling of ['SW1A 1AA', 'sw1a1aa', 'Sw1a   1aA', 'S W 1 A 1 A A']) {
      assert.deepEqual(codes('gb', spelling), ['SW1A 1AA#900001'], spelling);
    }
  });

  test('returns every locality of a shared code, ascending id', () => {
    assert.deepEqual(codes('NO', '9170'), ['9170#345446', '9170#900009']);
  });

  test('reports an unknown country, a country without postcodes and an unknown code apart', () => {
    assert.equal(codes('XX', '1'), 'country_not_found');
    assert.equal(codes('BS', '12345'), 'postcode_coverage_unavailable');
    assert.equal(codes('FJ', '1'), 'postcode_coverage_unavailable');
    assert.equal(codes('US', '90212'), 'postcode_not_found');
    assert.equal(codes('US', '9021'), 'postcode_not_found');
    assert.equal(codes('GB', 'SW1A'), 'postcode_not_found');
  });

  test('lists a country in code order, then id', () => {
    const page = engine.search({ countryRow: engine.countryRow('NO'), filters: none, afterRow: null, limit: 100 });
    assert.deepEqual(codesOf(page.rows), ['0001', '0150', '9008', '9170', '9170', '9171', '9173']);
    assert.deepEqual(page.rows.map((row) => store.postcodes.idAt(row)).slice(3, 5), [345446, 900009]);
    assert.equal(page.hasMore, false);
    const gb = engine.search({ countryRow: engine.countryRow('GB'), filters: none, afterRow: null, limit: 100 });
    assert.deepEqual(codesOf(gb.rows), ['BX1 1LT', 'EC', 'EC1A 1BB', 'EH', 'EH1 1YZ', 'EH6 6AA', 'M', 'M1 1AE', 'SW', 'SW1A 0AA', 'SW1A 1AA', 'SW1A 2AA']);
  });

  test('pages after a row: limit rows, has_more until the last page', () => {
    const us = engine.countryRow('US');
    const first = engine.search({ countryRow: us, filters: none, afterRow: null, limit: 4 });
    assert.deepEqual(codesOf(first.rows), ['00901', '00961', '10001', '10118']);
    assert.equal(first.hasMore, true);
    const second = engine.search({ countryRow: us, filters: none, afterRow: first.rows[3]!, limit: 4 });
    assert.deepEqual(codesOf(second.rows), ['14201', '90210', '90211', '94103']);
    const last = engine.search({ countryRow: us, filters: none, afterRow: second.rows[3]!, limit: 4 });
    assert.deepEqual(codesOf(last.rows), ['95113']);
    assert.equal(last.hasMore, false);
    // Exactly `limit` rows left: no further page announced.
    const exact = engine.search({ countryRow: us, filters: none, afterRow: first.rows[3]!, limit: 5 });
    assert.equal(exact.rows.length, 5);
    assert.equal(exact.hasMore, false);
  });

  test('q matches codes starting with q (any spacing) or localities containing q, without case or accents', () => {
    const search = (iso2: string, q: string) => codesOf(engine.search({ countryRow: engine.countryRow(iso2), filters: { ...none, q: matchKey(q) }, afterRow: null, limit: 100 }).rows);
    assert.deepEqual(search('GB', 'sw1a'), ['SW1A 0AA', 'SW1A 1AA', 'SW1A 2AA']);
    assert.deepEqual(search('GB', 'SW1A 1'), ['SW1A 1AA']);
    assert.deepEqual(search('GB', 'eh'), ['EH', 'EH1 1YZ', 'EH6 6AA']);
    assert.deepEqual(search('GB', 'lond'), ['EC', 'EC1A 1BB', 'SW', 'SW1A 0AA', 'SW1A 1AA', 'SW1A 2AA']);
    assert.deepEqual(search('GB', 'burgh'), ['EH', 'EH1 1YZ']);
    assert.deepEqual(search('NO', 'tromso'), ['9008']);
    assert.deepEqual(search('NO', 'ny-alesund'), ['9173']);
    assert.deepEqual(search('US', 'bayamon'), ['00961']);
    assert.deepEqual(search('BR', 'SÃO'), ['01310-100']);
    assert.deepEqual(search('US', 'zz'), []);
  });

  test('filters by state code, city id and type (exact, case already folded)', () => {
    const search = (iso2: string, filters: Partial<PostcodeFilters>) => codesOf(engine.search({ countryRow: engine.countryRow(iso2), filters: { ...none, ...filters }, afterRow: null, limit: 100 }).rows);
    assert.deepEqual(search('US', { stateCode: 'PR' }), ['00901', '00961']);
    assert.deepEqual(search('US', { stateCode: 'ZZ' }), []);
    assert.deepEqual(search('GB', { cityId: 50388 }), ['EC1A 1BB', 'SW1A 0AA', 'SW1A 1AA', 'SW1A 2AA']);
    assert.deepEqual(search('GB', { cityId: 2_000_000_000 }), []);
    assert.deepEqual(search('NO', { type: 'po_box' }), ['0001', '9170']);
    assert.deepEqual(search('NO', { type: 'unknown_type' }), []);
    assert.deepEqual(search('GB', { type: 'area', q: matchKey('e') + 'h' }), ['EH']);
    assert.deepEqual(search('NO', { stateCode: '21', type: 'full', cityId: 164002 }), ['9170', '9171']);
  });

  test('a country without postcodes lists nothing', () => {
    const page = engine.search({ countryRow: engine.countryRow('FJ'), filters: none, afterRow: null, limit: 10 });
    assert.deepEqual(page, { rows: [], hasMore: false });
  });

  test('filter columns agree with every decoded record (section round trip)', () => {
    const columns = PostcodeFilterIndex.from(store.section(POSTCODE_FILTERS_SECTION), store.postcodes.count);
    for (let row = 0; row < store.postcodes.count; row++) {
      const r = store.postcodes.record(row);
      assert.equal(columns.cityIdByRow[row], r.city_id ?? -1);
      assert.equal(columns.stateCodeByRow[row], r.state_code === null ? -1 : columns.stateCodeValue(r.state_code.toUpperCase()));
      assert.equal(columns.typeByRow[row], r.type === null ? 0 : columns.typeValue(r.type.toLowerCase()));
      const locality = columns.localityByRow[row]!;
      if (r.locality_name === null) assert.equal(locality, -1);
      else {
        const localities = columns.localitiesOfRange(store.relations.countryPostcodes.start[store.countries.rowById(r.country_id)]!);
        const index = locality - localities.localityStart;
        assert.equal(localityKeyAt(localities, index), matchKey(r.locality_name));
      }
    }
  });

  test('pages through random filters and limits: each match once, in order (property, brute-force oracle)', () => {
    const rnd = random(7);
    for (const iso2 of ['US', 'GB', 'NO', 'BR', 'FJ']) {
      checkRandomSearches(store, iso2, recordsOfCountry(store, iso2), rnd, 150, 6);
    }
  });

  test('a q whose first walk gives up after a few locality tests answers as the search of its localities does (brute-force oracle)', () => {
    // The fixture's countries are walked whole within the server's budget; budgets of a few tests
    // stop the walk part-way (at 0, before any test), so the search and the merge answer instead.
    for (const budget of [0, 1, 2, 5]) {
      const rnd = random(11 + budget);
      const walking = new PostcodeEngine(store, budget);
      for (const iso2 of ['US', 'GB', 'NO', 'BR']) checkRandomSearches(store, iso2, recordsOfCountry(store, iso2), rnd, 60, 6, walking);
    }
  });

  test('a q typed a character at a time answers as the same q asked alone (the shorter q’s memoised matches narrow its search)', () => {
    const typing = new PostcodeEngine(store);
    let compared = 0;
    for (const iso2 of ['GB', 'NO', 'BR', 'US', 'FJ']) {
      const countryRow = engine.countryRow(iso2);
      for (const record of recordsOfCountry(store, iso2)) {
        if (record.locality_name === null) continue;
        const chars = [...matchKey(record.locality_name)];
        for (let length = 2; length <= chars.length; length++) {
          const filters = { ...none, q: chars.slice(0, length).join('') };
          const typed = typing.search({ countryRow, filters, afterRow: null, limit: 50 }).rows;
          const alone = new PostcodeEngine(store).search({ countryRow, filters, afterRow: null, limit: 50 }).rows;
          assert.deepEqual(typed, alone, `${iso2} q=${filters.q}`);
          compared++;
        }
      }
    }
    assert.ok(compared > 30, `compared ${compared} typed prefixes`);
  });

  test('a bare list pages through every row of the country once', () => {
    const { ids, pages } = pageThrough(engine, engine.countryRow('GB'), none, 5);
    assert.equal(pages, 3);
    assert.deepEqual(ids, expectedIds(recordsOfCountry(store, 'GB'), none));
  });
});

describe('postcode lookup when codes differ only in spacing', () => {
  let dir: string;
  let engine: PostcodeEngine;
  let store: Store;
  before(() => {
    // The fixture plus invented GB rows "SW1A1AA" (no space) and "SW1A1 AA": three spellings of one key.
    dir = mkdtempSync(join(tmpdir(), 'geoapi-postcode-variants-'));
    cpSync(fixtureSource, join(dir, 'csc'), { recursive: true });
    const file = join(dir, 'csc/contributions/postcodes/GB.json');
    const rows = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
    const base = rows.find((r) => r.code === 'SW1A 1AA')!;
    rows.push({ ...base, id: 990002, code: 'SW1A1AA', locality_name: 'No Space' }, { ...base, id: 990001, code: 'SW1A1 AA', locality_name: 'Odd Space' });
    // Rows whose country_id is dangling sort after every country (the build warns): they must not
    // break the per-country sections.
    rows.push({ ...base, id: 990003, code: 'AA1 1AA', country_id: 999_999 }, { ...base, id: 990004, code: 'ZZ1 1AA', country_id: 999_998, country_code: 'NO' });
    writeFileSync(file, JSON.stringify(rows));
    store = snapshotOf(join(dir, 'csc')).store;
    engine = PostcodeEngine.of(store);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const ids = (code: string) => {
    const outcome = engine.lookup('GB', code);
    return outcome.kind === 'found' ? outcome.rows.map((row) => store.postcodes.idAt(row)) : outcome.kind;
  };

  test('prefers the rows spelled like the query (spaces collapsed, case ignored)', () => {
    assert.deepEqual(ids('SW1A 1AA'), [900001]);
    assert.deepEqual(ids('sw1a   1aa'), [900001]);
    assert.deepEqual(ids('sw1a1aa'), [990002]);
    assert.deepEqual(ids('SW1A1 aa'), [990001]);
  });

  test('returns every spelling, ascending id, when none is spelled like the query', () => {
    assert.deepEqual(ids('S W1A1AA'), [900001, 990001, 990002]);
  });

  test('keeps rows of a dangling country_id out of every country', () => {
    assert.equal(engine.lookup('GB', 'AA1 1AA').kind, 'postcode_not_found');
    assert.equal(engine.lookup('NO', 'ZZ1 1AA').kind, 'postcode_not_found');
    const gb = engine.search({ countryRow: engine.countryRow('GB'), filters: { ...none, q: 'sw1a1' }, afterRow: null, limit: 10 });
    // Same key: then by code in byte order ('SW1A 1AA' < 'SW1A1 AA' < 'SW1A1AA').
    assert.deepEqual(gb.rows.map((row) => store.postcodes.idAt(row)), [900001, 990001, 990002]);
  });
});

describe('postcode engine on the default dataset (npm package, no postcodes)', () => {
  test('reports every known country as without coverage and lists nothing', async () => {
    const { defaultSnapshotDir } = await import('../../support/server.js');
    const { loadStore } = await import('../../../runtime/store/index.js');
    const store = loadStore(await defaultSnapshotDir());
    assert.equal(store.postcodes.count, 0);
    const engine = PostcodeEngine.of(store);
    assert.equal(engine.lookup('US', '90210').kind, 'postcode_coverage_unavailable');
    assert.equal(engine.lookup('XX', '90210').kind, 'country_not_found');
    assert.deepEqual(engine.search({ countryRow: engine.countryRow('DE'), filters: { ...none, q: 'be' }, afterRow: null, limit: 10 }), { rows: [], hasMore: false });
  });
});
