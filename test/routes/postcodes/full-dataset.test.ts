// The postcode engine on the full dataset (../shared/data/csc): real codes, inner spaces, codes
// shared by several localities, countries without postcodes, and the paging property on
// real countries. Runs when the dataset is present; fails (not skips) when CI=true and it is absent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PostcodeEngine, type PostcodeFilters } from '../../../runtime/engine/postcodes/engine.js';
import { POSTCODE_FILTERS_SECTION } from '../../../runtime/format/sections.js';
import { PostcodeFilterIndex } from '../../../runtime/indexes/postcode-filter-index.js';
import type { Store } from '../../../runtime/store/types.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import { checkRandomSearches, expectedIds, pageThrough } from './oracle.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { fullDatasetSkip, fullSource, random, recordsOfCountry, snapshotOf } from './support.js';


describe('postcodes on the full dataset', { skip: fullDatasetSkip() }, () => {
  let store: Store;
  let engine: PostcodeEngine;
  before(() => {
    store = snapshotOf(fullSource).store;
    engine = PostcodeEngine.of(store);
  });

  const found = (iso2: string, code: string) => {
    const outcome = engine.lookup(iso2, code);
    assert.equal(outcome.kind, 'found', `${iso2} ${JSON.stringify(code)}`);
    return (outcome as { rows: number[] }).rows.map((row) => store.postcodes.record(row));
  };

  test('holds 751,764 postcodes', () => {
    assert.equal(store.postcodes.count, 751_764);
  });

  test('finds US 90210 (Beverly Hills, CA)', () => {
    const records = found('us', '90210');
    assert.equal(records.length, 1);
    assert.equal(records[0]!.code, '90210');
    assert.equal(records[0]!.state_code, 'CA');
  });

  test('finds a code with an inner space in any spacing or case (SE, SK, JE)', () => {
    for (const [iso2, spellings, code] of [
      ['SE', ['100 04', '10004', ' 100   04 ', '1 0 0 0 4'], '100 04'],
      ['SK', ['010 01', '01001', '010  01'], '010 01'],
      ['JE', ['JE2 3AA', 'je23aa', 'Je2  3aA'], 'JE2 3AA'],
    ] as const) {
      for (const spelling of spellings) {
        const records = found(iso2, spelling);
        assert.deepEqual(records.map((r) => r.code), [code], `${iso2} ${JSON.stringify(spelling)}`);
      }
    }
  });

  test('returns every locality of a shared code in ascending id order (DE 01561, MX)', () => {
    const de = found('DE', '01561');
    assert.equal(de.length, 6);
    assert.deepEqual(de.map((r) => r.id), [...de.map((r) => r.id)].sort((a, b) => a - b));
    assert.equal(new Set(de.map((r) => r.locality_name)).size, 6);
    const mx = found('MX', '01090');
    assert.equal(mx.length, 3);
    assert.ok(mx.every((r) => r.code === '01090'));
  });

  test('tells a country without postcodes from an unknown code and an unknown country', () => {
    assert.equal(engine.lookup('FR', '75001').kind, 'found');
    assert.equal(engine.lookup('AQ', '1234').kind, 'postcode_coverage_unavailable');
    assert.equal(engine.lookup('MT', 'VLT 1010').kind, 'postcode_coverage_unavailable');
    assert.equal(engine.lookup('US', '00000').kind, 'postcode_not_found');
    assert.equal(engine.lookup('XX', '1').kind, 'country_not_found');
  });

  test('filter columns agree with every decoded record (section round trip)', () => {
    const columns = PostcodeFilterIndex.from(store.section(POSTCODE_FILTERS_SECTION), store.postcodes.count);
    for (let row = 0; row < store.postcodes.count; row += 7) {
      const r = store.postcodes.record(row);
      assert.equal(columns.cityIdByRow[row], r.city_id ?? -1);
      assert.equal(columns.stateCodeByRow[row], r.state_code === null ? -1 : columns.stateCodeValue(r.state_code.toUpperCase()));
      assert.equal(columns.typeByRow[row], r.type === null ? 0 : columns.typeValue(r.type.toLowerCase()));
    }
  });

  test('pages through whole countries with random filters: each match once, in order (property)', () => {
    const rnd = random(20250115);
    for (const iso2 of ['SE', 'DE', 'GB', 'JE', 'CA', 'NL']) {
      checkRandomSearches(store, iso2, recordsOfCountry(store, iso2), rnd, 12, 100);
    }
  });

  test('pages through MX filters walked by row group, by merging the sources of q and by scanning: the brute-force answer (property)', () => {
    // MX has 144,600 rows: "902" matches one locality and codes near its end, "94" ten localities,
    // "50" 36, "a" 98,198 and "an" 42,936 (each page found by walking rows and testing their
    // localities), "ojo" 543 and "zz" 17 (whose walk gives up: searched, then merged or scanned
    // with marks); a state walks its group.
    const mxRecords = recordsOfCountry(store, 'MX');
    const mx = engine.countryRow('MX');
    const cases: Partial<PostcodeFilters>[] = [
      { q: '902' }, { q: '94' }, { q: '50' }, { q: 'a' }, { q: 'an' }, { q: 'ojo' }, { q: 'zz' }, { stateCode: 'ZAC' }, { q: 'a', stateCode: 'ZAC' },
      { q: 'an', stateCode: 'ZAC' }, { q: 'ojo', stateCode: 'JAL' }, { q: '94', stateCode: 'ZAC' }, { q: '50', type: 'full' }, { stateCode: 'ZAC', type: 'nope' },
    ];
    for (const partial of cases) {
      const filters: PostcodeFilters = { q: null, stateCode: null, cityId: null, type: null, ...partial };
      for (const limit of [7, 100]) assert.deepEqual(pageThrough(engine, mx, filters, limit).ids, expectedIds(mxRecords, filters), `${JSON.stringify(partial)} limit ${limit}`);
    }
  });

  test('pages through all 33,791 US postcodes and the diacritic-insensitive q on MX', () => {
    const us = engine.countryRow('US');
    const all = pageThrough(engine, us, { q: null, stateCode: null, cityId: null, type: null }, 100);
    assert.equal(all.ids.length, 33_791);
    assert.equal(new Set(all.ids).size, 33_791);
    const mxRecords = recordsOfCountry(store, 'MX');
    // Typed without accents, found with them ("San Ángel").
    const filters = { q: matchKey('SAN angel'), stateCode: null, cityId: null, type: null };
    const mx = pageThrough(engine, engine.countryRow('MX'), filters, 50);
    assert.ok(mx.ids.length > 0);
    assert.deepEqual(mx.ids, expectedIds(mxRecords, filters));
  });

  describe('over HTTP', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        snapshotDir: snapshotOf(fullSource).dir,
        operationsModule: fileURLToPath(new URL('./operations.js', import.meta.url)),
        env: { GEOAPI_CURSOR_SECRET: 'full-dataset-test' },
      });
    });
    after(async () => {
      await server?.close();
    });

    test('GET /v1/countries/us/postcodes/90210', async () => {
      const res = await server.get('/v1/countries/us/postcodes/90210', { plan: 'supporter' });
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(res.json(), {
        data: [{
          id: '650325', code: '90210', country_code: 'US', state_code: 'CA', locality_name: null, type: 'full',
          country_id: '233', state_id: '1416', city_id: null, latitude: 34.100517, longitude: -118.41463,
        }],
        meta: { country_code: 'US', query: '90210', match_count: 1 },
      });
    });

    test('a code with an inner space, sent in any spacing or case', async () => {
      for (const [path, query] of [['se/postcodes/100%2004', '100 04'], ['SE/postcodes/10004', '10004'], ['sk/postcodes/%20010%20%2001', '010 01'], ['je/postcodes/je23aa', 'JE23AA']]) {
        const res = await server.get(`/v1/countries/${path}`, { plan: 'community' });
        assert.equal(res.status, 200, `${path}: ${res.body}`);
        assert.equal(res.json().meta.query, query);
        assert.equal(res.json().meta.match_count, 1);
      }
    });

    test('a code shared by several localities (DE 01561, MX 01090)', async () => {
      const de = (await server.get('/v1/countries/DE/postcodes/01561', { plan: 'community' })).json();
      assert.equal(de.meta.match_count, 6);
      assert.deepEqual(de.data.map((r: { id: string }) => Number(r.id)), [85563, 85564, 85565, 85566, 85567, 85568]);
      const mx = (await server.get('/v1/countries/mx/postcodes/01090', { plan: 'community' })).json();
      assert.equal(mx.meta.match_count, 3);
    });

    test('a country without postcodes: postcode_coverage_unavailable; its list is empty', async () => {
      const res = await server.get('/v1/countries/AQ/postcodes/1234', { plan: 'community' });
      assert.equal(res.status, 404);
      assert.deepEqual(res.json(), { status: 'error', message: 'No postcode data is available for AQ.', details: { reason: 'postcode_coverage_unavailable' } });
      const list = await server.get('/v1/countries/AQ/postcodes', { plan: 'supporter' });
      assert.deepEqual(list.json(), { data: [], pagination: { limit: 50, next_cursor: null, has_more: false } });
    });

    test('page 300 of the US list follows page 299 (cursor paging on a large country)', async () => {
      let cursor: string | null = null;
      let last = '';
      for (let page = 1; page <= 300; page++) {
        const path: string = `/v1/countries/US/postcodes?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const body = (await server.get(path, { plan: 'supporter' })).json();
        assert.equal(body.data.length, 50);
        assert.ok(body.data[0].code > last, `page ${page} starts after the previous page`);
        last = body.data[49].code;
        cursor = body.pagination.next_cursor;
      }
      const all = pageThrough(engine, engine.countryRow('US'), { q: null, stateCode: null, cityId: null, type: null }, 50);
      assert.equal(String(all.ids[299 * 50 + 49]), (await server.get(`/v1/countries/US/postcodes/${last}`, { plan: 'community' })).json().data[0].id);
    });
  });
});
