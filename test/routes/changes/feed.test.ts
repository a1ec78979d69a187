// The change feed on hand-made versions of the fixture: A (the fixture), B (edits covering every
// kind of change, built with --previous A) and C (one more edit, built with --previous B, so the
// history is carried forward). GET /v1/changes over a real server on C: contract (ajv), every
// filter, paging with tokens, token errors, the Business-only gate and tier filtering of values.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { ChangeLog } from '../../../runtime/format/change-log.js';
import { CHANGES_SECTION } from '../../../runtime/format/sections.js';
import { loadStore } from '../../../runtime/store/index.js';
import type { PlanName } from '../../../runtime/contract/index.js';
import { fixtureDir, repoRoot, runBuildCli, tempDir } from '../../build-index/support.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { buildAt, editedCopy, type Rows } from './support.js';

const SECRET = 'change-feed-test-secret';
const NOW = '2026-03-02T12:00:00.000Z';
const AT = { a: '2026-01-01T00:00:00.000Z', b: '2026-02-01T00:00:00.000Z', c: '2026-03-01T00:00:00.000Z' };

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
for (const name of ['changes', 'error-b', 'forbidden-b']) ajv.addSchema(JSON.parse(readFileSync(join(repoRoot, 'schemas', 'http', `${name}.json`), 'utf8')), `${name}.json`);
function valid(schema: string, body: unknown): void {
  const validate = ajv.getSchema(`${schema}.json`)!;
  assert.ok(validate(body), `${schema}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}

const byId = (rows: Rows, id: number) => {
  const row = rows.find((r) => r.id === id);
  assert.ok(row, `fixture row ${id}`);
  return row;
};

/** A → B: one or more edits of every kind. */
const EDITS_B: Record<string, (rows: Rows) => Rows | void> = {
  'countries/countries.json': (rows) => {
    Object.assign(byId(rows, 165), { subregion_id: 17, subregion: 'Western Europe' }); // NO: place_group_changed
  },
  'states/states.json': (rows) => {
    byId(rows, 1452).latitude = '40.80000000'; // New York: coordinates_changed
    Object.assign(byId(rows, 3626), { country_id: 233, country_code: 'US' }); // Freeport BS → US: place_group_changed
  },
  'cities/GB.json': (rows) => {
    Object.assign(byId(rows, 49441), { population: 500000, wikiDataId: 'Q999' }); // Edinburgh: other_fields_changed
    Object.assign(byId(rows, 50481), { name: 'Mánchester', latitude: '53.50000000' }); // Manchester: renamed + coordinates_changed
    rows.push({ ...byId(rows, 50388), id: 9999001, name: 'Newtown', state_id: 2336, state_code: 'ENG', type: null, population: 1200, translations: null, wikiDataId: null }); // added
  },
  'cities/NO.json': (rows) => rows.filter((r) => r.id !== 79608), // Tromsø: removed
  'cities/US.json': (rows) => {
    Object.assign(byId(rows, 113014), { state_id: 1416, state_code: 'CA' }); // Buffalo: parent_changed
  },
};

let root: { dir: string; cleanup: () => void };
let versions: { a: string; b: string; c: string };
let server: TestServer;
let tierServer: TestServer;

before(async () => {
  root = tempDir('geoapi-changes-');
  const sourceB = join(root.dir, 'source-b');
  const sourceC = join(root.dir, 'source-c');
  editedCopy(fixtureDir, sourceB, EDITS_B);
  editedCopy(fixtureDir, sourceC, {
    ...EDITS_B,
    'cities/US.json': (rows) => {
      Object.assign(byId(rows, 113014), { state_id: 1416, state_code: 'CA', name: 'Buffalo City' }); // C: renamed
    },
  });
  const a = buildAt(AT.a, fixtureDir, join(root.dir, 'a'));
  const b = buildAt(AT.b, sourceB, join(root.dir, 'b'), join(root.dir, 'a'));
  // C is built into B's directory (the usual case: --out and --previous name the same snapshot).
  const bCopy = join(root.dir, 'c');
  buildAt(AT.b, sourceB, bCopy, join(root.dir, 'a'));
  const c = buildAt(AT.c, sourceC, bCopy, bCopy);
  versions = { a: a.manifest.dataVersion, b: b.manifest.dataVersion, c: c.manifest.dataVersion };
  server = await startTestServer({ snapshotDir: bCopy, fixedNow: NOW, env: { GEOAPI_CURSOR_SECRET: SECRET } });
  tierServer = await startTestServer({
    snapshotDir: bCopy, fixedNow: NOW, env: { GEOAPI_CURSOR_SECRET: SECRET },
    editPolicy: (policy) => { policy.features.changeFeed = 'community'; },
  });
});
after(async () => {
  await server?.close();
  await tierServer?.close();
  root?.cleanup();
});

async function feed(query = '', plan: PlanName = 'business', on = server): Promise<any> {
  const res = await on.get(`/v1/changes${query}`, { plan });
  assert.equal(res.status, 200, `${query}: ${res.body}`);
  const body = res.json();
  valid('changes', body);
  return body;
}

async function fails(query: string, status: number, message: string | RegExp, plan: PlanName = 'business'): Promise<any> {
  const res = await server.get(`/v1/changes${query}`, { plan });
  assert.equal(res.status, status, `${query}: ${res.body}`);
  const body = res.json();
  valid(status === 403 ? 'forbidden-b' : 'error-b', body);
  if (typeof message === 'string') assert.equal(body.message, message);
  else assert.match(body.message, message);
  return body;
}

/** Every event, following tokens. */
async function all(query: string, limit: number): Promise<any[]> {
  const events: any[] = [];
  let body = await feed(`?limit=${limit}${query}`);
  events.push(...body.results);
  while (body.next_page_token !== null) {
    assert.equal(body.results.length, limit);
    body = await feed(`?limit=${limit}&next_page_token=${body.next_page_token}`);
    events.push(...body.results);
  }
  return events;
}

const brief = (e: any) => `${e.place_type} ${e.place_id} ${e.change_type}`;

describe('geoapi build --previous', () => {
  test('classifies every kind of change, one event per kind, with only the changed fields (A → B)', async () => {
    const { results } = await feed('?limit=100');
    const fromB = results.filter((e: any) => e.data_version === versions.b);
    assert.deepEqual(fromB.map(brief), [
      'country 165 place_group_changed',
      'state 1452 coordinates_changed',
      'state 3626 place_group_changed',
      'city 49441 other_fields_changed',
      'city 50481 renamed',
      'city 50481 coordinates_changed',
      'city 79608 removed',
      'city 113014 parent_changed',
      'city 9999001 added',
    ]);
    const values = (id: string, type: string) => {
      const e = fromB.find((x: any) => x.place_id === id && x.change_type === type);
      return [e.old_values, e.new_values];
    };
    assert.deepEqual(values('165', 'place_group_changed'), [{ subregion: 'Northern Europe', subregion_id: 18 }, { subregion: 'Western Europe', subregion_id: 17 }]);
    assert.deepEqual(values('1452', 'coordinates_changed'), [{ latitude: '40.71277530' }, { latitude: '40.80000000' }]);
    assert.deepEqual(values('3626', 'place_group_changed'), [{ country_id: 17, country_code: 'BS' }, { country_id: 233, country_code: 'US' }]);
    assert.deepEqual(values('49441', 'other_fields_changed'), [{ population: 488050, wikiDataId: 'Q23436' }, { population: 500000, wikiDataId: 'Q999' }]);
    assert.deepEqual(values('50481', 'renamed'), [{ name: 'Manchester' }, { name: 'Mánchester' }]);
    assert.deepEqual(values('50481', 'coordinates_changed'), [{ latitude: '53.48095000' }, { latitude: '53.50000000' }]);
    assert.deepEqual(values('113014', 'parent_changed'), [{ state_id: 1452, state_code: 'NY' }, { state_id: 1416, state_code: 'CA' }]);
    const [removedOld, removedNew] = values('79608', 'removed');
    assert.equal(removedNew, null);
    assert.equal(removedOld.name, 'Tromsø');
    const [addedOld, addedNew] = values('9999001', 'added');
    assert.equal(addedOld, null);
    assert.equal(addedNew.name, 'Newtown');
    assert.equal(addedNew.population, 1200);
    for (const e of fromB) assert.equal(e.changed_at, AT.b);
  });

  test('carries the earlier history forward and appends the new version (B → C), newest last', async () => {
    const { results } = await feed('?limit=100');
    assert.deepEqual(results.map((e: any) => e.data_version), [...Array(9).fill(versions.b), versions.c]);
    assert.deepEqual(results.map((e: any) => e.change_id), results.map((_: unknown, i: number) => String(i + 1)));
    const last = results[9];
    assert.deepEqual([brief(last), last.old_values, last.new_values, last.changed_at], ['city 113014 renamed', { name: 'Buffalo' }, { name: 'Buffalo City' }, AT.c]);
  });

  test('a build without --previous has an empty feed; a rebuild of the same data adds nothing', () => {
    const a = loadStore(join(root.dir, 'a'));
    assert.equal(ChangeLog.from(a.section(CHANGES_SECTION)).count, 0);
    const again = buildAt(AT.c, join(root.dir, 'source-c'), join(root.dir, 'c2'), join(root.dir, 'c'));
    assert.deepEqual(again.changes, { added: 0, total: 10 });
    assert.ok(again.manifest.sections[CHANGES_SECTION], 'the section is listed in the manifest');
  });

  test('the CLI takes --previous and reports the number of changes', () => {
    const run = runBuildCli(['--source', join(root.dir, 'source-b'), '--out', join(root.dir, 'cli'), '--previous', join(root.dir, 'a')]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /changes since .*: 9 \(change log: 9 events\)/);
    const missing = runBuildCli(['--source', join(root.dir, 'source-b'), '--out', join(root.dir, 'cli2'), '--previous', join(root.dir, 'nothing')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /manifest\.json not found/);
  });
});

describe('GET /v1/changes', () => {
  test('is Business only: 403 in shape B for every other plan', async () => {
    for (const plan of ['community', 'starter', 'supporter', 'professional', 'legacy'] as PlanName[]) {
      // The message is the policy's forbiddenMessage (operators may word it).
      const policy = JSON.parse(readFileSync(join(repoRoot, 'data/policy.json'), 'utf8'));
      const body = await fails('', 403, policy.forbiddenMessage, plan);
      assert.equal(body.details.feature, 'changeFeed');
      assert.equal(body.details.requiredTier, 'business');
    }
  });

  test('filters by place_type, country_code (before or after the change), change_type and start_date', async () => {
    const { results: every } = await feed('?limit=100');
    const expect = async (query: string, keep: (e: any) => boolean) => {
      const { results } = await feed(`?limit=100&${query}`);
      assert.deepEqual(results.map(brief), every.filter(keep).map(brief), query);
      assert.ok(results.length > 0, query);
    };
    await expect('place_type=state', (e) => e.place_type === 'state');
    await expect('place_type=CITY', (e) => e.place_type === 'city');
    await expect('change_type=renamed', (e) => e.change_type === 'renamed');
    await expect('change_type=removed', (e) => e.change_type === 'removed');
    await expect('country_code=bs', (e) => e.place_id === '3626');
    await expect('country_code=NO', (e) => ['165', '79608'].includes(e.place_id));
    await expect('start_date=2026-02-15', (e) => e.data_version === versions.c);
    await expect('start_date=2026-02-01T00:00:00Z', () => true);
    await expect('start_date=2026-02-01T00:00:00.001%2B00:00', (e) => e.data_version === versions.c);
    await expect('place_type=city&country_code=US&change_type=parent_changed&start_date=2026-01-01', (e) => e.change_type === 'parent_changed');
    assert.deepEqual((await feed('?start_date=2026-03-01T00:00:01Z')).results, []);
  });

  test('pages with next_page_token: every event exactly once, in order, for any limit and filters', async () => {
    const { results: every } = await feed('?limit=100');
    assert.deepEqual((await feed()).results, every, 'default limit 50 holds all 10');
    for (const limit of [1, 3, 4, 10]) {
      assert.deepEqual(await all('', limit), every, `limit ${limit}`);
      assert.deepEqual(await all('&place_type=city', limit), every.filter((e: any) => e.place_type === 'city'), `city, limit ${limit}`);
    }
    const first = await feed('?limit=2&place_type=city&country_code=GB');
    const same = await feed(`?limit=5&place_type=city&country_code=gb&next_page_token=${first.next_page_token}`);
    assert.deepEqual(same.results.map(brief), ['city 50481 coordinates_changed', 'city 9999001 added']);
    assert.equal(same.next_page_token, null);
  });

  test('a token sent with other filters, tampered with or from another data version is a 400', async () => {
    const first = await feed('?limit=2&place_type=city');
    const token = first.next_page_token as string;
    await fails(`?place_type=state&next_page_token=${token}`, 400, 'cursor filters do not match this request.');
    await fails(`?place_type=city&change_type=renamed&next_page_token=${token}`, 400, 'cursor filters do not match this request.');
    await fails(`?next_page_token=${token.slice(0, -2)}xx`, 400, 'cursor is invalid or has been tampered with.');
    await fails('?next_page_token=abc', 400, 'cursor is invalid or has been tampered with.');
    // A token of version B's snapshot, signed with the same secret, on the server holding C.
    const { ChangeTokenCodec } = await import('../../../runtime/routes/changes/token.js');
    const codec = new ChangeTokenCodec({ current: Buffer.from(SECRET), previous: [], ephemeral: false });
    const filters = { startMs: null, placeType: null, countryCode: null, changeType: null };
    const foreign = codec.encode({ dataVersion: versions.b, filters, lastIndex: 1, issuedAtMs: Date.parse(NOW) });
    await fails(`?next_page_token=${foreign}`, 400, 'cursor is invalid or has been tampered with.');
    const current = codec.encode({ dataVersion: versions.c, filters, lastIndex: 1, issuedAtMs: Date.parse(NOW) });
    assert.equal((await feed(`?next_page_token=${current}`)).results[0].change_id, '3');
    const expired = codec.encode({ dataVersion: versions.c, filters, lastIndex: 1, issuedAtMs: Date.parse(NOW) - 25 * 3_600_000 });
    await fails(`?next_page_token=${expired}`, 400, 'cursor has expired. Start again without a cursor.');
  });

  test('bad parameters are 400s in shape B naming the parameter', async () => {
    await fails('?limit=0', 400, /^Invalid query parameters: limit: /);
    await fails('?limit=101', 400, /^Invalid query parameters: limit: /);
    await fails('?place_type=region', 400, /^Invalid query parameters: place_type: must be one of country, state, city/);
    await fails('?change_type=moved', 400, /^Invalid query parameters: change_type: must be one of added, removed/);
    await fails('?country_code=USA', 400, /^Invalid query parameters: country_code: /);
    for (const date of ['2026-02-30', '2026-13-01', 'yesterday', '2026-02-01T00:00:00', '20260201']) {
      await fails(`?start_date=${date}`, 400, /^Invalid query parameters: start_date: must be an ISO date/);
    }
  });

  test('old_values and new_values hold only the fields of the caller\'s tier', async () => {
    const edinburgh = async (plan: PlanName) => (await feed('?place_type=city&change_type=other_fields_changed', plan, tierServer)).results[0];
    const basic = await edinburgh('community');
    assert.deepEqual([basic.old_values, basic.new_values], [{}, {}], 'population and wikiDataId are above Basic; the event is still listed');
    const coordinates = await edinburgh('supporter');
    assert.deepEqual([coordinates.old_values, coordinates.new_values], [{ population: 488050 }, { population: 500000 }]);
    const full = await edinburgh('business');
    assert.deepEqual([full.old_values, full.new_values], [{ population: 488050, wikiDataId: 'Q23436' }, { population: 500000, wikiDataId: 'Q999' }]);

    const added = (await feed('?change_type=added', 'community', tierServer)).results[0];
    assert.deepEqual(added.new_values, { id: 9999001, name: 'Newtown' }, 'cities at Basic: id and name');
    const moved = (await feed('?place_type=state&change_type=place_group_changed', 'community', tierServer)).results[0];
    assert.deepEqual(moved.new_values, { country_id: 233, country_code: 'US' }, 'state country fields are Basic');
    const country = (await feed('?place_type=country', 'community', tierServer)).results[0];
    assert.deepEqual(country.new_values, { subregion: 'Western Europe', subregion_id: 17 });
  });
});
