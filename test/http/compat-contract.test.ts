// Contract tests for decisions.md "Clients of the public service": each row of its two tables
// (what the clients expect, default vs compat "csc"; the `fields`/`sort` rules) and the "always"
// list (403 message, fuzzy parent names, limit/offset pages, GET /v1/usage), in both modes,
// against real servers on the fixture dataset. (ETag/304 rows belong to the response-cache work.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestResponse, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';

const FORBIDDEN = 'This feature is not available on your current plan.';
const UPGRADE_URL = 'https://geoapi.local/pricing';
const DAILY_MESSAGE = 'Daily usage limit exceeded. Please try again tomorrow or contact support for higher limits.';
const COUNTRY_SORTABLE = 'id, name, iso2, iso3, population, gdp, area_sq_km, latitude, longitude';
const SORT_TOKEN = (token: string) => `Invalid sort token "${token}". Expected "field" or "field:asc|desc".`;

type Mode = 'none' | 'csc';
const MODES: readonly Mode[] = ['none', 'csc'];

function header(res: TestResponse, name: string): string | undefined {
  const value = res.headers[name.toLowerCase()];
  return value === undefined ? undefined : String(value);
}

async function startIn(mode: Mode, extra: { quota?: 'default' } = {}): Promise<TestServer> {
  return startTestServer({
    snapshotDir: fixtureSnapshot().dir,
    ...(extra.quota ? { quota: extra.quota } : {}),
    extraKeys: [
      { label: 'limited', plan: 'community' },
      { label: 'limited-csc-key', plan: 'community' },
      { label: 'usage', plan: 'supporter' },
    ],
    editPolicy: (policy) => {
      policy['compat'] = mode;
      // Small enough to reach a 429 in a few requests; Business without a quota shows `unlimited`.
      policy['plans'].community.quota = { daily: 3, monthly: 3000 };
      policy['plans'].business.quota = null;
    },
  });
}

for (const mode of MODES) {
  describe(`clients of the public service, compat ${mode} (quotas counting)`, () => {
    let server: TestServer;
    before(async () => {
      server = await startIn(mode, { quota: 'default' });
    });
    after(() => server?.close());

    it(`key header X-CSCAPI-KEY: ${mode === 'csc' ? 'accepted as well as X-GEOAPI-KEY' : '401'}`, async () => {
      const res = await server.get('/v1/countries/US', { headers: { 'X-CSCAPI-KEY': server.keys.supporter } });
      if (mode === 'csc') {
        assert.equal(res.status, 200);
        assert.equal(res.json().iso2, 'US');
      } else {
        assert.equal(res.status, 401);
        assert.deepEqual(res.json(), { error: "Unauthorized. You shouldn't be here." });
      }
      assert.equal((await server.get('/v1/countries/US', { key: server.keys.supporter })).status, 200);
    });

    it(`usage headers: ${mode === 'csc' ? 'X-CSC-* beside X-GEOAPI-*' : 'the X-GEOAPI-* names only'}`, async () => {
      const res = await server.get('/v1/countries/US', { key: server.keys.starter });
      assert.equal(res.status, 200);
      const ours = ['Plan', 'Daily-Used', 'Daily-Limit', 'Monthly-Used', 'Monthly-Limit', 'Data-Version'].map((n) => header(res, `X-GEOAPI-${n}`));
      assert.ok(ours.every((v) => v !== undefined), `X-GEOAPI-* present: ${ours}`);
      const theirs = ['Plan', 'Daily-Used', 'Daily-Limit', 'Monthly-Used', 'Monthly-Limit', 'Data-Version'].map((n) => header(res, `X-CSC-${n}`));
      if (mode === 'csc') assert.deepEqual(theirs, ours);
      else assert.deepEqual(theirs, [undefined, undefined, undefined, undefined, undefined, undefined]);
      assert.equal(header(res, 'X-GEOAPI-Daily-Limit'), '300');
    });

    it(`a plan without a quota: ${mode === 'csc' ? 'X-CSC limits say unlimited' : 'no X-CSC headers'}`, async () => {
      const res = await server.get('/v1/countries/US', { key: server.keys.business });
      assert.equal(res.status, 200);
      assert.equal(header(res, 'X-GEOAPI-Plan'), 'business');
      if (mode === 'csc') {
        assert.equal(header(res, 'X-CSC-Plan'), 'business');
        assert.equal(header(res, 'X-CSC-Daily-Limit'), 'unlimited');
        assert.equal(header(res, 'X-CSC-Monthly-Limit'), 'unlimited');
        assert.equal(header(res, 'X-CSC-Daily-Used'), '0');
      } else {
        assert.equal(header(res, 'X-CSC-Daily-Limit'), undefined);
      }
    });

    it(`X-CSC-Cache: ${mode === 'csc' ? 'mirrors X-Cache' : 'absent'}`, async () => {
      const first = await server.get('/v1/search/fuzzy?q=Los%20Angelos', { key: server.keys.business });
      const second = await server.get('/v1/search/fuzzy?q=Los%20Angelos', { key: server.keys.business });
      assert.deepEqual([header(first, 'X-Cache'), header(second, 'X-Cache')], ['MISS', 'HIT']);
      const twins = [header(first, 'X-CSC-Cache'), header(second, 'X-CSC-Cache')];
      assert.deepEqual(twins, mode === 'csc' ? ['MISS', 'HIT'] : [undefined, undefined]);
    });

    it(`429 body: ${mode === 'csc' ? 'shape B plus the flat fields' : 'shape B'}`, async () => {
      const key = server.extraKeys['limited']!;
      for (let i = 0; i < 3; i++) assert.equal((await server.get('/v1/countries/US', { key })).status, 200);
      const refused = await server.get('/v1/countries/US', { key });
      assert.equal(refused.status, 429);
      const body = refused.json();
      assert.equal(body.status, 'error');
      assert.equal(body.message, DAILY_MESSAGE);
      assert.deepEqual({ ...body.details, resetAt: typeof body.details.resetAt }, { limit: 3, period: 'daily', resetAt: 'string', upgradeUrl: UPGRADE_URL, tier: 'community' });
      const flat = { error: body.error, limit: body.limit, period: body.period, tier: body.tier, upgradeUrl: body.upgradeUrl };
      if (mode === 'csc') assert.deepEqual(flat, { error: DAILY_MESSAGE, limit: 3, period: 'daily', tier: 'community', upgradeUrl: UPGRADE_URL });
      else assert.deepEqual(flat, { error: undefined, limit: undefined, period: undefined, tier: undefined, upgradeUrl: undefined });
      assert.ok(Number(header(refused, 'Retry-After')) > 0);
    });

    it(`pagination headers: ${mode === 'csc' ? 'X-CSC-Total-Count/Limit/Offset beside ours' : 'X-GEOAPI-Total-Count/Limit/Offset'}`, async () => {
      const res = await server.get('/v1/countries?limit=2&offset=1', { key: server.keys.starter });
      assert.equal(res.status, 200);
      assert.equal(res.json().length, 2);
      assert.deepEqual([header(res, 'X-GEOAPI-Total-Count'), header(res, 'X-GEOAPI-Limit'), header(res, 'X-GEOAPI-Offset')], ['6', '2', '1']);
      const theirs = [header(res, 'X-CSC-Total-Count'), header(res, 'X-CSC-Limit'), header(res, 'X-CSC-Offset')];
      assert.deepEqual(theirs, mode === 'csc' ? ['6', '2', '1'] : [undefined, undefined, undefined]);
    });

    it('GET /v1/usage: every plan, counted like any request, for the calling key', async () => {
      const key = server.extraKeys['usage']!;
      await server.get('/v1/countries', { key });
      const res = await server.get('/v1/usage', { key });
      assert.equal(res.status, 200);
      assert.equal(header(res, 'Cache-Control'), 'no-store');
      const body = res.json();
      assert.deepEqual(Object.keys(body), ['plan', 'dailyUsed', 'dailyLimit', 'monthlyUsed', 'monthlyLimit', 'resetDaily', 'resetMonthly']);
      assert.equal(body.plan, 'supporter');
      assert.equal(body.dailyUsed, 2, 'the earlier request and this one');
      assert.equal(body.monthlyUsed, 2);
      assert.equal(body.dailyLimit, 1000);
      assert.equal(body.monthlyLimit, 30000);
      assert.equal(header(res, 'X-GEOAPI-Daily-Used'), '2');
      assert.match(body.resetDaily, /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
      assert.match(body.resetMonthly, /^\d{4}-\d{2}-01T00:00:00\.000Z$/);
      assert.ok(Date.parse(body.resetDaily) > Date.now() && Date.parse(body.resetDaily) - Date.now() <= 86_400_000);
      const again = (await server.get('/v1/usage', { key })).json();
      assert.equal(again.dailyUsed, 3);
      const community = (await server.get('/v1/usage', { key: server.keys.community })).json();
      assert.equal(community.plan, 'community');
      assert.equal((await server.get('/v1/usage')).status, 401);
    });
  });

  describe(`decisions.md "always" rows and the fields/sort table, compat ${mode}`, () => {
    let server: TestServer;
    before(async () => {
      server = await startIn(mode);
    });
    after(() => server?.close());

    const get = (path: string, plan: keyof TestServer['keys'] = 'business') => server.get(path, { key: server.keys[plan]! });
    const ids = (res: TestResponse) => (res.json() as { id: number }[]).map((row) => row.id);
    const field = (res: TestResponse, name: string) => (res.json() as Record<string, unknown>[]).map((row) => row[name]);

    it('403: the message of decisions.md, shape A with feature and upgradeUrl, shape B with details', async () => {
      const a = await get('/v1/regions', 'community');
      assert.equal(a.status, 403);
      assert.deepEqual(a.json(), { error: FORBIDDEN, feature: 'regionsApi', upgradeUrl: UPGRADE_URL });
      const b = await get('/v1/search/autocomplete?q=Los', 'starter');
      assert.equal(b.status, 403);
      assert.deepEqual(b.json(), { status: 'error', message: FORBIDDEN, details: { feature: 'autocomplete', currentTier: 'starter', requiredTier: 'supporter', upgradeUrl: UPGRADE_URL } });
    });

    it('fuzzy results carry country_name (states, cities) and state_name (cities), as nearby does', async () => {
      const cities = (await get('/v1/search/fuzzy?q=Los%20Angelos')).json();
      assert.equal(cities[0].name, 'Los Angeles');
      assert.equal(cities[0].country_name, 'United States');
      assert.equal(cities[0].state_name, 'California');
      const states = (await get('/v1/search/fuzzy?q=Californa&type=state')).json();
      assert.equal(states[0].name, 'California');
      assert.equal(states[0].country_name, 'United States');
      assert.equal('state_name' in states[0], false);
      const countries = (await get('/v1/search/fuzzy?q=Norwey&type=country')).json();
      assert.equal('country_name' in countries[0], false);
    });

    it('limit/offset on every cursor-less list: a slice and the total; without them the whole list', async () => {
      const lists = [
        '/v1/countries', '/v1/states', '/v1/countries/US/states', '/v1/countries/US/states/CA/cities', '/v1/countries/US/cities',
        '/v1/regions', '/v1/regions/2/subregions', '/v1/subregions/6/countries', '/v1/currency', '/v1/phone',
      ];
      for (const path of lists) {
        const whole = await get(path);
        assert.equal(whole.status, 200, path);
        assert.equal(header(whole, 'X-GEOAPI-Total-Count'), undefined, path);
        const all = whole.json() as unknown[];
        const page = await get(`${path}?limit=2&offset=1`);
        assert.equal(page.status, 200, path);
        assert.deepEqual(page.json(), all.slice(1, 3), path);
        assert.equal(header(page, 'X-GEOAPI-Total-Count'), String(all.length), path);
        assert.equal(header(page, 'X-GEOAPI-Limit'), '2', path);
        assert.equal(header(page, 'X-GEOAPI-Offset'), '1', path);
        const beyond = await get(`${path}?offset=${all.length + 5}`);
        assert.deepEqual(beyond.json(), [], path);
        assert.equal(header(beyond, 'X-GEOAPI-Limit'), '1000', path);
      }
      for (const bad of ['limit=0', 'limit=1001', 'offset=-1', 'limit=ten']) {
        const res = await get(`/v1/countries?${bad}`);
        assert.equal(res.status, 400, bad);
        assert.match(res.json().error, /^Invalid query parameters: (limit|offset): /);
      }
    });

    it('limit/offset page the sorted, filtered list', async () => {
      const sorted = ids(await get('/v1/countries?sort=name:desc'));
      const page = await get('/v1/countries?sort=name:desc&limit=3&offset=2');
      assert.deepEqual(ids(page), sorted.slice(2, 5));
      const filtered = await get('/v1/countries?q=un&limit=1');
      assert.equal(header(filtered, 'X-GEOAPI-Total-Count'), String((await get('/v1/countries?q=un')).json().length));
    });

    it('fields: an unknown field is a 400 listing the valid fields', async () => {
      const res = await get('/v1/countries?fields=name,bogus');
      assert.equal(res.status, 400);
      assert.match(res.json().error, /^Unknown field\(s\): bogus\. Valid fields: id, name, iso2, iso3, phonecode, /);
    });

    it('fields: a valid field above the tier is silently dropped', async () => {
      const res = await get('/v1/countries/US?fields=name,population', 'starter');
      assert.deepEqual(res.json(), { id: 233, name: 'United States' });
    });

    it('fields and sort: empty is as if absent, the plan gate still applies', async () => {
      const plain = await get('/v1/countries', 'starter');
      assert.deepEqual((await get('/v1/countries?fields=', 'starter')).json(), plain.json());
      assert.deepEqual((await get('/v1/countries?sort=', 'starter')).json(), plain.json());
      assert.equal((await get('/v1/countries?fields=', 'community')).status, 403);
      assert.equal((await get('/v1/countries?sort=', 'community')).status, 403);
    });

    it('fields: id is always returned', async () => {
      assert.deepEqual((await get('/v1/countries/US?fields=iso2')).json(), { id: 233, iso2: 'US' });
      assert.ok((await get('/v1/countries?fields=iso2')).json().every((c: object) => Object.keys(c).join() === 'id,iso2'));
    });

    it('sort: the sortable fields of each entity', async () => {
      const sortable: [string, string[]][] = [
        ['/v1/countries', ['id', 'name', 'iso2', 'iso3', 'population', 'gdp', 'area_sq_km', 'latitude', 'longitude']],
        ['/v1/states', ['id', 'name', 'iso2', 'country_code', 'population', 'latitude', 'longitude']],
        ['/v1/countries/US/cities', ['id', 'name', 'state_code', 'country_code', 'population', 'latitude', 'longitude']],
        ['/v1/regions', ['id', 'name']],
        ['/v1/regions/2/subregions', ['id', 'name', 'region_id']],
      ];
      for (const [path, names] of sortable) {
        for (const name of names) assert.equal((await get(`${path}?sort=${name}:desc`)).status, 200, `${path} ${name}`);
      }
      const entities: [string, string, string][] = [
        ['/v1/countries', 'timezones', 'countries'],
        ['/v1/states', 'timezone', 'states'],
        ['/v1/countries/US/cities', 'timezone', 'cities'],
        ['/v1/regions', 'wikiDataId', 'regions'],
        ['/v1/regions/2/subregions', 'wikiDataId', 'subregions'],
      ];
      for (const [path, name, entity] of entities) {
        const res = await get(`${path}?sort=${name}`);
        assert.equal(res.status, 400, path);
        const listed = sortable.find(([p]) => p === path)![1].join(', ');
        assert.deepEqual(res.json(), { error: `Field "${name}" is not sortable. Sortable fields for ${entity}: ${listed}` });
      }
    });

    it('sort: a field not sortable is a 400 with the listed message', async () => {
      const res = await get('/v1/countries?sort=timezones');
      assert.equal(res.status, 400);
      assert.deepEqual(res.json(), { error: `Field "timezones" is not sortable. Sortable fields for countries: ${COUNTRY_SORTABLE}` });
    });

    it('sort: a sortable field above the tier is a 400', async () => {
      const res = await get('/v1/countries?sort=population', 'starter');
      assert.equal(res.status, 400);
      assert.deepEqual(res.json(), { error: 'Field "population" is not available on your current plan.' });
    });

    it('sort: a direction other than asc/desc (any case), or a token with two colons, is a 400', async () => {
      for (const token of ['name:asc:extra', 'name:up', 'name:', 'name desc']) {
        const res = await get(`/v1/countries?sort=${encodeURIComponent(token)}`);
        assert.equal(res.status, 400, token);
        assert.deepEqual(res.json(), { error: SORT_TOKEN(token) }, token);
      }
      assert.deepEqual(ids(await get('/v1/countries?sort=name:DESC')), ids(await get('/v1/countries?sort=name:desc')));
      assert.deepEqual(ids(await get('/v1/countries?sort=name:Asc')), ids(await get('/v1/countries?sort=name')));
    });

    it('sort: whitespace inside a token is tolerated', async () => {
      const spaced = await get(`/v1/countries?sort=${encodeURIComponent(' name : desc ')}`);
      assert.equal(spaced.status, 200);
      assert.deepEqual(ids(spaced), ids(await get('/v1/countries?sort=name:desc')));
    });

    it('sort on a detail operation is ignored', async () => {
      const plain = await get('/v1/countries/US');
      for (const sort of ['name:desc', 'timezones', 'bogus:sideways']) {
        const res = await get(`/v1/countries/US?sort=${encodeURIComponent(sort)}`);
        assert.equal(res.status, 200, sort);
        assert.deepEqual(res.json(), plain.json());
      }
      assert.equal((await get('/v1/countries/US?sort=name', 'community')).status, 200);
    });

    it('sort: decimal text (latitude, longitude) is compared as numbers', async () => {
      const latitudes = field(await get('/v1/countries?sort=latitude'), 'latitude').map(Number);
      assert.deepEqual(latitudes, [...latitudes].sort((a, b) => a - b));
      const longitudes = field(await get('/v1/countries/US/cities?sort=longitude:desc'), 'longitude').map(Number);
      assert.deepEqual(longitudes, [...longitudes].sort((a, b) => b - a));
    });

    it('sort: nulls first ascending, last descending', async () => {
      const asc = field(await get('/v1/countries?sort=gdp'), 'gdp');
      assert.equal(asc[0], null);
      assert.ok(asc.slice(1).every((v) => v !== null));
      const desc = field(await get('/v1/countries?sort=gdp:desc'), 'gdp');
      assert.equal(desc.at(-1), null);
      const cities = field(await get('/v1/countries/US/states/CA/cities?sort=population'), 'population');
      assert.equal(cities[0], null);
    });

    it('sort: several tokens, earlier ones win; it runs on the full row, then fields are trimmed', async () => {
      const byCountryThenName = (await get('/v1/states?sort=country_code:desc,name')).json() as { country_code: string; name: string }[];
      const expected = [...byCountryThenName].sort((a, b) => b.country_code.localeCompare(a.country_code) || a.name.localeCompare(b.name));
      assert.deepEqual(byCountryThenName.map((s) => s.name), expected.map((s) => s.name));
      const trimmed = await get('/v1/countries?sort=population:desc&fields=name');
      assert.deepEqual(trimmed.json().map((c: { name: string }) => c.name), ['United States', 'Brazil', 'United Kingdom', 'Norway', 'Fiji Islands', 'The Bahamas']);
      assert.deepEqual(Object.keys(trimmed.json()[0]), ['id', 'name']);
    });

    it('GET /v1/usage with quotas off: zero counts, null limits, the windows\' ends', async () => {
      const body = (await get('/v1/usage', 'starter')).json();
      assert.deepEqual({ ...body, resetDaily: typeof body.resetDaily, resetMonthly: typeof body.resetMonthly }, {
        plan: 'starter', dailyUsed: 0, dailyLimit: null, monthlyUsed: 0, monthlyLimit: null, resetDaily: 'string', resetMonthly: 'string',
      });
    });
  });
}
