// City, state and country lists with `fields`, `sort`, `q`, `locale` or a page are written from the
// row bytes (no record decoded): the same bodies and headers as the records' path, which still
// serves the tables without row bytes (routes/reference/common.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../runtime/contract/index.js';
import { CITY_FIELDS, COUNTRY_FIELDS, STATE_FIELDS } from '../../../runtime/render/fields.js';
import { listParams } from '../../../runtime/routes/params.js';
import { listReply, type ListSpec } from '../../../runtime/routes/reference/common.js';
import { referenceOperations } from '../../../runtime/routes/reference/index.js';
import type { Reply } from '../../../runtime/routes/types.js';
import type { Store } from '../../../runtime/store/types.js';
import { RowValues } from '../../../runtime/store/row-values.js';
import { loadSnapshotBytes, openStore } from '../../../runtime/store/index.js';
import { engineFor } from '../../../runtime/engine/index.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../../support/snapshots.js';
import { contextFor } from './support/context.js';

const countryCities = referenceOperations.find((o) => o.name === 'countryCities')!;

interface List {
  what: string;
  entity: 'cities' | 'states' | 'countries';
  rows: [start: number, end: number];
}

function bodyOf(reply: Reply): string {
  const body = 'render' in reply ? reply.render() : reply.body;
  return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

/** The reply of `list` for `query` from the row bytes and from the records; null when the query is a 400. */
function bothReplies(store: Store, list: List, query: Record<string, string>): [rows: { body: string; headers: unknown }, records: { body: string; headers: unknown }] | null {
  const ctx = contextFor(store, countryCities, { plan: 'business', query });
  const set = list.entity === 'cities' ? CITY_FIELDS : list.entity === 'states' ? STATE_FIELDS : COUNTRY_FIELDS;
  const table = store[list.entity];
  let params;
  try {
    params = listParams(ctx, set, 'full', { q: true, sort: true, localized: list.entity === 'countries' });
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) return null;
    throw err;
  }
  const [start, end] = list.rows;
  const spec: ListSpec<{ name: string }> = {
    set,
    tier: 'full',
    params,
    count: end - start,
    rowAt: (i) => start + i,
    record: (row) => table.record(row),
    entity: list.entity,
    cacheControl: 'private, max-age=86400',
  };
  assert.ok(table.rowBytes, `${list.entity} have row bytes`);
  // rowStart: the row path keeps each range's sorted orders (engine/sorted-rows.ts), made by the
  // first request without q, read by later ones: QUERIES sorts a range before it filters one.
  const fromRows = listReply(ctx, { ...spec, rowBytes: table.rowBytes, rowStart: start });
  const rowsAnswer = { body: bodyOf(fromRows), headers: fromRows.headers };
  const fromRecords = listReply(ctx, { ...spec, rowBytes: null });
  return [rowsAnswer, { body: bodyOf(fromRecords), headers: fromRecords.headers }];
}

const QUERIES: Record<string, string>[] = [
  { fields: 'id,name' },
  { fields: 'name,population,latitude,translations' },
  { include_translations: 'true' },
  { sort: 'name' },
  { sort: 'name:desc' },
  { sort: 'population:desc' },
  { sort: 'population' },
  { sort: 'latitude:desc,name' },
  { sort: 'longitude' },
  { sort: 'id:desc' },
  { sort: 'native,id:desc' },
  { sort: 'timezone:desc,name' },
  { sort: 'wikiDataId' },
  { sort: 'type,name:desc' },
  { sort: 'state_code,name' },
  { sort: 'translations' },
  { q: 'an' },
  { q: 'san', sort: 'population:desc' },
  { q: 'ville', sort: 'population:desc', limit: '2', offset: '1' },
  { q: 'zzzz' },
  { q: 'zzzz', sort: 'latitude:desc,name' },
  { limit: '3', offset: '1' },
  { offset: '2' },
  { limit: '5', offset: '100000' },
  { limit: '4', sort: 'name:desc', fields: 'name,id' },
  { limit: '2', offset: '1', q: 'a', sort: 'latitude' },
  { fields: 'name,state_code', sort: 'population:desc', q: 'ar' },
  { sort: 'gdp:desc,area_sq_km' },
  { sort: 'region_id,subregion:desc', fields: 'name,iso2,timezones,emojiU' },
  { sort: 'numeric_code:desc', q: 'ia' },
  // locale: countries only (the others refuse it, a 400 that is skipped here)
  { locale: 'fr' },
  { locale: 'pt-br', sort: 'name:desc' },
  { locale: 'zh', fields: 'name,iso2' },
  { locale: 'xx', q: 'an' },
  { locale: 'en', limit: '3', offset: '2' },
  { locale: 'de', include_translations: 'true', sort: 'population:desc' },
];

function checkLists(store: Store, lists: List[], queries: Record<string, string>[]): number {
  let compared = 0;
  for (const list of lists) {
    for (const query of queries) {
      const replies = bothReplies(store, list, query);
      if (replies === null) continue;
      const [rows, records] = replies;
      assert.equal(rows.body, records.body, `${list.what} ${JSON.stringify(query)}`);
      assert.deepEqual(rows.headers, records.headers, `${list.what} ${JSON.stringify(query)}: headers`);
      compared++;
    }
  }
  return compared;
}

function listsOf(store: Store, countries: string[]): List[] {
  const lists: List[] = [
    { what: 'every state', entity: 'states', rows: [0, store.states.count] },
    { what: 'every country', entity: 'countries', rows: [0, store.countries.count] },
  ];
  const { countryCities: cities, countryStates: states, stateCities } = store.relations;
  for (let countryRow = 0; countryRow < store.countries.count; countryRow++) {
    const code = store.countries.record(countryRow).iso2;
    if (!countries.includes(code)) continue;
    lists.push({ what: `cities of ${code}`, entity: 'cities', rows: [cities.start[countryRow]!, cities.end[countryRow]!] });
    lists.push({ what: `states of ${code}`, entity: 'states', rows: [states.start[countryRow]!, states.end[countryRow]!] });
    const firstState = states.start[countryRow]!;
    if (states.end[countryRow]! > firstState) lists.push({ what: `cities of ${code}'s first state`, entity: 'cities', rows: [stateCities.start[firstState]!, stateCities.end[firstState]!] });
  }
  return lists;
}

describe('lists written from the row bytes', () => {
  it('read each field of every city, state, country and postcode row as the decoded record holds it', () => {
    const { store } = fixtureSnapshot();
    for (const [entity, table] of [['cities', store.cities], ['states', store.states], ['countries', store.countries], ['postcodes', store.postcodes]] as const) {
      const values = new RowValues(table.rowBytes!);
      for (let row = 0; row < table.count; row++) {
        const record = table.record(row) as unknown as Record<string, unknown>;
        for (const field of table.rowBytes!.layout) assert.deepEqual(values.value(row, field), record[field.name], `${entity} row ${row} ${field.name}`);
      }
      assert.equal(values.field('no_such_field'), undefined);
    }
  });

  it('answer fields, sort, q and pages with the bytes and headers of the records path (fixture)', () => {
    const { store } = fixtureSnapshot();
    const compared = checkLists(store, listsOf(store, ['US', 'GB', 'BR', 'IN', 'DE', 'FR']), QUERIES);
    assert.ok(compared > 100, `compared ${compared} answers`);
  });

  it('keep what a q selects for its next pages and repeats, answering them with the bytes of the records path', () => {
    const { store } = fixtureSnapshot();
    const lists = listsOf(store, ['US', 'BR']);
    const pages = [
      { q: 'an', limit: '2' },
      { q: 'an', limit: '2', offset: '2' },
      { q: 'an', limit: '2', offset: '2' },
      { q: 'an' },
      { q: 'san', sort: 'population:desc', limit: '1' },
      { q: 'san', sort: 'population:desc', limit: '1', offset: '1' },
      { q: 'san', sort: 'population:desc' },
    ];
    assert.ok(checkLists(store, lists, pages) > 20);
    const usCities = lists.find((list) => list.what === 'cities of US')!;
    const [start, end] = usCities.rows;
    const engine = engineFor(store);
    const kept = engine.keptSortedRows(`cities ${start} ${end - start}  q an`);
    assert.ok(kept !== undefined, 'the selection of q=an is kept under its range and q');
    const matching = [];
    for (let row = start; row < end; row++) if (engine.rowMatchesQ('cities', row, 'an')) matching.push(row);
    assert.ok(matching.length > 1, 'the fixture has US cities matching an');
    assert.deepEqual([...kept], matching);
    assert.ok(engine.keptSortedRows(`cities ${start} ${end - start} population:desc q san`) !== undefined, 'and with its sort');
  });

  it('sort names the same without the name order sections (a snapshot built before them)', () => {
    const { dir } = fixtureSnapshot();
    const bytes = loadSnapshotBytes(dir);
    const sections = Object.fromEntries(Object.entries(bytes.sections).filter(([name]) => !name.startsWith('order.')));
    const store = openStore({ ...bytes, sections });
    assert.equal(engineFor(store).nameRanks('cities'), null);
    assert.ok(engineFor(fixtureSnapshot().store).nameRanks('cities') !== null, 'the built snapshot has them');
    const queries = QUERIES.filter((query) => query.sort?.includes('name'));
    assert.ok(checkLists(store, listsOf(store, ['US', 'GB', 'BR']), queries) > 20);
  });

  it('answer sorted and trimmed whole-country lists with the bytes of the records path (full dataset)', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    for (const [entity, table, step] of [['cities', store.cities, 97], ['countries', store.countries, 1]] as const) {
      const values = new RowValues(table.rowBytes!);
      for (let row = 0; row < table.count; row += step) {
        const record = table.record(row) as unknown as Record<string, unknown>;
        for (const field of table.rowBytes!.layout) assert.deepEqual(values.value(row, field), record[field.name], `${entity} row ${row} ${field.name}`);
      }
    }
    const queries = [{ sort: 'name:desc,id' }, { sort: 'population:desc' }, { sort: 'gdp:desc' }, { fields: 'name,timezones,translations' }, { locale: 'ja' }, { locale: 'es', sort: 'name' }, { sort: 'latitude', fields: 'id,name,latitude' }, { fields: 'id,name,translations' }, { q: 'san', sort: 'native:desc' }, { sort: 'native:desc', limit: '20', offset: '40' }, { q: 'san', sort: 'native:desc' }, { limit: '50', offset: '100', sort: 'timezone,name' }, { q: 'an', sort: 'timezone,name', limit: '30', offset: '10' }];
    checkLists(store, listsOf(store, ['US', 'MX', 'JP', 'CN', 'RU']), queries);
  });
});
