// Contract tests of both postcode operations over a real server (child process, uWS) on the
// fixture snapshot: bodies validated against schemas/http/postcode-*.json with ajv, golden cases,
// every parameter rule and message, plan gates and field tiers, caching headers, cursors.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { CursorCodec } from '../../../runtime/routes/postcodes/cursor.js';
import type { PlanName } from '../../../runtime/contract/index.js';
import { matchKey } from '../../../runtime/text/normalise.js';
import { startTestServer, type TestResponse, type TestServer } from '../../support/server.js';
import { expectedIds, randomFilters } from './oracle.js';
import { fixtureSource, random, recordsOfCountry, repoRoot, snapshotOf } from './support.js';

const operationsModule = fileURLToPath(new URL('./operations.js', import.meta.url));

const SECRET = 'postcode-test-secret';
const T0 = '2026-03-01T12:00:00.000Z';
const hoursAfterT0 = (hours: number) => new Date(Date.parse(T0) + hours * 3_600_000).toISOString();

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
for (const name of ['postcode-record', 'postcode-lookup', 'postcode-list', 'postcode-error']) {
  ajv.addSchema(JSON.parse(readFileSync(join(repoRoot, 'schemas/http', `${name}.json`), 'utf8')), `${name}.json`);
}
function valid(schema: string, body: unknown): void {
  const validate = ajv.getSchema(`${schema}.json`)!;
  assert.ok(validate(body), `${schema}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}

let server: TestServer;
let snapshotDir: string;

before(async () => {
  snapshotDir = snapshotOf(fixtureSource).dir;
  server = await startTestServer({ operationsModule, snapshotDir, fixedNow: T0, env: { GEOAPI_CURSOR_SECRET: SECRET } });
});
after(async () => {
  await server?.close();
});

async function get(path: string, plan: PlanName = 'business', headers: Record<string, string> = {}): Promise<TestResponse> {
  return server.get(path, { plan, headers });
}

async function ok(path: string, plan: PlanName = 'business', schema: 'postcode-lookup' | 'postcode-list' = path.split('?')[0]!.split('/').length === 6 ? 'postcode-lookup' : 'postcode-list'): Promise<any> {
  const res = await get(path, plan);
  assert.equal(res.status, 200, `${path}: ${res.body}`);
  const body = res.json();
  valid(schema, body);
  return body;
}

async function fails(path: string, status: number, message: string | RegExp, plan: PlanName = 'business', details?: Record<string, unknown>): Promise<any> {
  const res = await get(path, plan);
  assert.equal(res.status, status, `${path}: ${res.body}`);
  const body = res.json();
  valid('postcode-error', body);
  if (typeof message === 'string') assert.equal(body.message, message, path);
  else assert.match(body.message, message, path);
  if (details !== undefined) assert.deepEqual(body.details, details, path);
  return body;
}

describe('GET /v1/countries/{countryCode}/postcodes/{code}', () => {
  test('returns the Basic record and meta on the Community plan (golden)', async () => {
    const body = await ok('/v1/countries/GB/postcodes/SW1A%201AA', 'community');
    assert.deepEqual(body, {
      data: [{ id: '900001', code: 'SW1A 1AA', country_code: 'GB', state_code: 'WSM', locality_name: 'London', type: 'full' }],
      meta: { country_code: 'GB', query: 'SW1A 1AA', match_count: 1 },
    });
  });

  test('adds coordinates fields for Supporter and every field for Professional and Business', async () => {
    const supporter = await ok('/v1/countries/gb/postcodes/sw1a1aa', 'supporter');
    assert.deepEqual(supporter.data, [{
      id: '900001', code: 'SW1A 1AA', country_code: 'GB', state_code: 'WSM', locality_name: 'London', type: 'full',
      country_id: '232', state_id: '2357', city_id: '50388', latitude: 51.50101, longitude: -0.141588,
    }]);
    for (const plan of ['professional', 'business'] as const) {
      const full = await ok('/v1/countries/gb/postcodes/sw1a1aa', plan);
      assert.equal(full.data[0].source, 'manual');
      assert.equal(full.data[0].wikiDataId, 'Q42182');
      assert.equal(Object.keys(full.data[0]).length, 13);
    }
    for (const plan of ['starter', 'legacy', 'playground'] as const) {
      assert.deepEqual(Object.keys((await ok('/v1/countries/gb/postcodes/sw1a1aa', plan)).data[0]), ['id', 'code', 'country_code', 'state_code', 'locality_name', 'type']);
    }
  });

  test('finds a code with an inner space in any spacing or case; meta.query is trimmed, upper-cased, spaces collapsed', async () => {
    for (const [path, query] of [
      ['SW1A%201AA', 'SW1A 1AA'], ['sw1a1aa', 'SW1A1AA'], ['%20%20sw1a%20%20%201aa%20', 'SW1A 1AA'], ['Sw1A%091Aa', 'SW1A 1AA'],
    ] as const) {
      const res = await get(`/v1/countries/gB/postcodes/${path}`, 'community');
      if (path.includes('%09')) {
        // A tab is a control character: refused before matching.
        assert.equal(res.status, 400);
        continue;
      }
      const body = res.json();
      assert.equal(res.status, 200, path);
      assert.deepEqual(body.meta, { country_code: 'GB', query, match_count: 1 });
      assert.equal(body.data[0].code, 'SW1A 1AA');
    }
  });

  test('returns every locality of a shared code in ascending id order', async () => {
    const body = await ok('/v1/countries/no/postcodes/9170', 'supporter');
    assert.deepEqual(body.data.map((r: any) => [r.id, r.locality_name, r.type]), [['345446', 'LONGYEARBYEN', 'full'], ['900009', 'SVALBARD', 'po_box']]);
    assert.equal(body.meta.match_count, 2);
  });

  test('serves rows without city_id, source and wikiDataId (upstream postal-codes rows) as nulls', async () => {
    const body = await ok('/v1/countries/US/postcodes/90210', 'business');
    assert.deepEqual(body.data, [{
      id: '650325', code: '90210', country_code: 'US', state_code: 'CA', locality_name: 'Beverly Hills', type: 'full',
      country_id: '233', state_id: '1416', city_id: null, latitude: 34.100517, longitude: -118.41463, source: null, wikiDataId: null,
    }]);
    const noCoordinates = await ok('/v1/countries/GB/postcodes/BX1%201LT', 'supporter');
    assert.equal(noCoordinates.data[0].latitude, null);
    assert.equal(noCoordinates.data[0].state_id, null);
  });

  test('404 tells an unknown country, a country without postcode data and an unknown code apart', async () => {
    await fails('/v1/countries/XX/postcodes/12345', 404, 'Country not found.', 'community', { reason: 'country_not_found' });
    await fails('/v1/countries/BS/postcodes/12345', 404, 'No postcode data is available for BS.', 'community', { reason: 'postcode_coverage_unavailable' });
    await fails('/v1/countries/fj/postcodes/1', 404, 'No postcode data is available for FJ.', 'community', { reason: 'postcode_coverage_unavailable' });
    await fails('/v1/countries/us/postcodes/99999', 404, 'Postcode not found in US.', 'community', { reason: 'postcode_not_found' });
    await fails('/v1/countries/gb/postcodes/SW1A', 404, 'Postcode not found in GB.', 'community', { reason: 'postcode_not_found' });
  });

  test('400 for a country code that is not alpha-2 and for malformed codes', async () => {
    for (const country of ['USA', '840', 'U', 'U1']) {
      await fails(`/v1/countries/${country}/postcodes/90210`, 400, /^countryCode must be a 2-letter ISO code/, 'community');
    }
    await fails('/v1/countries/US/postcodes/123456789012345678901', 400, 'Postcode must be at most 20 characters, found 21.', 'community');
    await ok(`/v1/countries/GB/postcodes/%20%20SW1A%201AA%20%20`, 'community');
    await fails(`/v1/countries/US/postcodes/%20${'1'.repeat(20)}%20`, 404, 'Postcode not found in US.', 'community');
    await fails('/v1/countries/US/postcodes/%20%20%20', 400, 'Postcode must not be empty.', 'community');
    await fails('/v1/countries/US/postcodes/902%2F10', 400, 'Postcode must not contain "/" or "\\".', 'community');
    await fails('/v1/countries/US/postcodes/902%5C10', 400, 'Postcode must not contain "/" or "\\".', 'community');
    const control = await get('/v1/countries/US/postcodes/902%0010', 'community');
    assert.equal(control.status, 400);
    valid('postcode-error', control.json());
  });

  test('accepts fields for column trimming (fieldsFiltering gate) and drops fields above the tier', async () => {
    assert.deepEqual((await ok('/v1/countries/US/postcodes/90210?fields=code,latitude', 'supporter')).data, [{ id: '650325', code: '90210', latitude: 34.100517 }]);
    assert.deepEqual((await ok('/v1/countries/US/postcodes/90210?fields=code,latitude,source', 'starter')).data, [{ id: '650325', code: '90210' }]);
    const forbidden = await fails('/v1/countries/US/postcodes/90210?fields=code', 403, /plan/, 'community');
    assert.equal(forbidden.details.feature, 'fieldsFiltering');
    await fails('/v1/countries/US/postcodes/90210?fields=code,nope', 400, /^Unknown field\(s\): nope\. Valid fields: id, code, /, 'supporter');
  });

  test('answers with a strong ETag, private 24-hour Cache-Control, X-Cache MISS then HIT, and 304 on If-None-Match', async () => {
    const path = '/v1/countries/NO/postcodes/9171';
    const first = await get(path, 'professional');
    assert.equal(first.status, 200);
    assert.match(String(first.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
    assert.equal(first.headers['cache-control'], 'private, max-age=86400');
    assert.equal(first.headers['x-cache'], 'MISS');
    const second = await get(path, 'professional');
    assert.equal(second.headers['x-cache'], 'HIT');
    assert.equal(second.headers.etag, first.headers.etag);
    assert.equal(second.body, first.body);
    for (const ifNoneMatch of [String(first.headers.etag), `"nope", ${first.headers.etag}`, `W/${first.headers.etag}`, '*']) {
      const notModified = await get(path, 'professional', { 'If-None-Match': ifNoneMatch });
      assert.equal(notModified.status, 304, ifNoneMatch);
      assert.equal(notModified.body, '');
      assert.equal(notModified.headers.etag, first.headers.etag);
      assert.equal(notModified.headers['cache-control'], 'private, max-age=86400');
    }
    assert.equal((await get(path, 'professional', { 'If-None-Match': '"stale"' })).status, 200);
    // Other tier, other body, other ETag: a 304 is never given across tiers.
    const basic = await get(path, 'community', { 'If-None-Match': String(first.headers.etag) });
    assert.equal(basic.status, 200);
    assert.notEqual(basic.headers.etag, first.headers.etag);
  });
});

describe('GET /v1/countries/{countryCode}/postcodes', () => {
  test('is refused with 403 searchEndpoint details below Supporter, even as a bare list', async () => {
    for (const plan of ['community', 'starter', 'legacy', 'playground'] as const) {
      const body = await fails('/v1/countries/US/postcodes', 403, /plan/, plan);
      assert.deepEqual(body.details, { feature: 'searchEndpoint', currentTier: plan, requiredTier: 'supporter', upgradeUrl: 'https://geoapi.local/pricing' });
    }
  });

  test('lists a country ordered by code then id, with Coordinates fields for Supporter (golden)', async () => {
    const body = await ok('/v1/countries/no/postcodes', 'supporter');
    assert.deepEqual(body.data.map((r: any) => `${r.code}#${r.id}`), ['0001#340639', '0150#340694', '9008#345361', '9170#345446', '9170#900009', '9171#345447', '9173#345448']);
    assert.deepEqual(body.pagination, { limit: 50, next_cursor: null, has_more: false });
    assert.deepEqual(Object.keys(body.data[0]), ['id', 'code', 'country_code', 'state_code', 'locality_name', 'type', 'country_id', 'state_id', 'city_id', 'latitude', 'longitude']);
  });

  test('returns 200 with empty data for a country without postcodes or a filter matching nothing; 404 for an unknown country', async () => {
    assert.deepEqual(await ok('/v1/countries/BS/postcodes', 'supporter'), { data: [], pagination: { limit: 50, next_cursor: null, has_more: false } });
    assert.deepEqual((await ok('/v1/countries/US/postcodes?type=nonexistent_type', 'supporter')).data, []);
    assert.deepEqual((await ok('/v1/countries/US/postcodes?q=zzzz', 'supporter')).data, []);
    await fails('/v1/countries/XX/postcodes', 404, 'Country not found.', 'supporter', { reason: 'country_not_found' });
    await fails('/v1/countries/USA/postcodes', 400, /^countryCode must be a 2-letter ISO code/, 'supporter');
  });

  test('filters by q (code prefix or locality, case- and accent-insensitive), state_code, city_id and type', async () => {
    const codes = async (query: string) => (await ok(`/v1/countries/${query}`, 'supporter')).data.map((r: any) => r.code);
    assert.deepEqual(await codes('GB/postcodes?q=sw1a%201'), ['SW1A 1AA']);
    assert.deepEqual(await codes('GB/postcodes?q=SW1A1'), ['SW1A 1AA']);
    assert.deepEqual(await codes('US/postcodes?q=BAYAMON'), ['00961']);
    assert.deepEqual(await codes('NO/postcodes?q=troms%C3%B8'), ['9008']);
    assert.deepEqual(await codes('NO/postcodes?q=%20tromso%20'), ['9008']);
    assert.deepEqual(await codes('US/postcodes?q=san'), ['00901', '95113']);
    assert.deepEqual(await codes('US/postcodes?q=90'), ['90210', '90211']);
    assert.deepEqual(await codes('US/postcodes?state_code=pr'), ['00901', '00961']);
    assert.deepEqual(await codes('GB/postcodes?city_id=50388'), ['EC1A 1BB', 'SW1A 0AA', 'SW1A 1AA', 'SW1A 2AA']);
    assert.deepEqual(await codes('GB/postcodes?city_id=0050388'), ['EC1A 1BB', 'SW1A 0AA', 'SW1A 1AA', 'SW1A 2AA']);
    assert.deepEqual(await codes('NO/postcodes?type=PO_BOX'), ['0001', '9170']);
    assert.deepEqual(await codes('NO/postcodes?type=full&state_code=21&city_id=164002'), ['9170', '9171']);
    assert.deepEqual(await codes('BR/postcodes?type=street&q=s%C3%A3o'), ['01310-100']);
  });

  test('400 for every malformed parameter, in shape B', async () => {
    const cases: [string, RegExp | string][] = [
      ['q=a', 'Invalid query parameters: q: Search query must be at least 2 characters'],
      ['q=%20a%20', 'Invalid query parameters: q: Search query must be at least 2 characters'],
      [`q=${'a'.repeat(101)}`, 'Invalid query parameters: q: Search query must be at most 100 characters'],
      ['state_code=', /^Invalid query parameters: state_code: must be 1 to 255 letters, digits or hyphens/],
      ['state_code=C%20A', /^Invalid query parameters: state_code: must be 1 to 255 letters, digits or hyphens/],
      [`state_code=${'A'.repeat(256)}`, /^Invalid query parameters: state_code:/],
      ['city_id=0', /^Invalid query parameters: city_id: must be a positive integer/],
      ['city_id=-3', /^Invalid query parameters: city_id: must be a positive integer/],
      ['city_id=1.5', /^Invalid query parameters: city_id: must be a positive integer/],
      ['city_id=abc', /^Invalid query parameters: city_id: must be a positive integer/],
      ['type=a%20b', /^Invalid query parameters: type: must be 1 to 32 letters, digits, _ or -/],
      [`type=${'t'.repeat(33)}`, /^Invalid query parameters: type:/],
      ['limit=0', /^Invalid query parameters: limit: must be an integer between 1 and 100/],
      ['limit=101', /^Invalid query parameters: limit: must be an integer between 1 and 100/],
      ['limit=ten', /^Invalid query parameters: limit: must be an integer between 1 and 100/],
      ['sort=code', 'Invalid query parameters: sort: postcodes are always ordered by code, then id; this operation has no sort parameter'],
      ['fields=code,nope', /^Unknown field\(s\): nope\. Valid fields: id, code, /],
      ['cursor=', 'cursor is invalid or has been tampered with.'],
      ['cursor=abc', 'cursor is invalid or has been tampered with.'],
    ];
    for (const [query, message] of cases) await fails(`/v1/countries/US/postcodes?${query}`, 400, message, 'supporter');
    assert.equal((await ok(`/v1/countries/US/postcodes?state_code=${'A'.repeat(255)}&type=${'t'.repeat(32)}&q=${'a'.repeat(100)}`, 'supporter')).data.length, 0);
  });

  test('trims columns with fields; fields above the tier are absent', async () => {
    const body = await ok('/v1/countries/NO/postcodes?fields=code,locality_name,source&limit=2', 'supporter');
    assert.deepEqual(body.data, [{ id: '340639', code: '0001', locality_name: 'OSLO' }, { id: '340694', code: '0150', locality_name: 'OSLO' }]);
    const full = await ok('/v1/countries/NO/postcodes?fields=source&limit=1', 'business');
    assert.deepEqual(full.data, [{ id: '340639', source: 'bring' }]);
  });

  test('pages with the cursor alone or with the same filters; different filters, another country or a tampered cursor are refused', async () => {
    const page1 = await ok('/v1/countries/US/postcodes?limit=3&state_code=CA', 'supporter');
    assert.deepEqual(page1.data.map((r: any) => r.code), ['90210', '90211', '94103']);
    assert.equal(page1.pagination.has_more, true);
    const cursor = encodeURIComponent(page1.pagination.next_cursor);
    const alone = await ok(`/v1/countries/US/postcodes?limit=3&cursor=${cursor}`, 'supporter');
    const withFilters = await ok(`/v1/countries/us/postcodes?limit=3&state_code=ca&cursor=${cursor}`, 'supporter');
    assert.deepEqual(alone.data.map((r: any) => r.code), ['95113']);
    assert.deepEqual(withFilters, alone);
    assert.deepEqual(alone.pagination, { limit: 3, next_cursor: null, has_more: false });
    // The limit may change from page to page.
    const wider = await ok('/v1/countries/US/postcodes?limit=4&state_code=CA', 'supporter');
    assert.deepEqual(wider.pagination, { limit: 4, next_cursor: null, has_more: false });
    assert.deepEqual((await ok(`/v1/countries/US/postcodes?limit=1&cursor=${cursor}`, 'supporter')).data.map((r: any) => r.code), ['95113']);

    const mismatch = 'cursor filters do not match this request.';
    for (const filters of ['state_code=NY', 'state_code=CA&q=90', 'q=90', 'type=full', 'city_id=1']) {
      await fails(`/v1/countries/US/postcodes?limit=3&${filters}&cursor=${cursor}`, 400, mismatch, 'supporter');
    }
    await fails(`/v1/countries/GB/postcodes?limit=3&cursor=${cursor}`, 400, 'cursor belongs to a different country.', 'supporter');
    const token = page1.pagination.next_cursor as string;
    const [payload, signature] = token.split('.') as [string, string];
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    forged[3] = 0;
    for (const bad of [`${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`, `${payload}.${signature.slice(0, -2)}AA`, `${payload}x.${signature}`]) {
      await fails(`/v1/countries/US/postcodes?limit=3&cursor=${encodeURIComponent(bad)}`, 400, 'cursor is invalid or has been tampered with.', 'supporter');
    }
    // A cursor signed with the right secret but another dataVersion.
    const otherVersion = new CursorCodec({ current: Buffer.from(SECRET), previous: [], ephemeral: false }).encode({
      country: 'US', dataVersion: 'ffffffffffff', filters: { q: null, stateCode: 'CA', cityId: null, type: null }, lastRow: 0, issuedAtMs: Date.parse(T0),
    });
    await fails(`/v1/countries/US/postcodes?cursor=${otherVersion}`, 400, 'cursor is invalid or has been tampered with.', 'supporter');
  });

  test('answers with a strong ETag, private 1-hour Cache-Control, X-Cache MISS then HIT, and 304 on If-None-Match', async () => {
    const path = '/v1/countries/GB/postcodes?limit=5&type=full';
    const first = await get(path, 'supporter');
    assert.equal(first.status, 200);
    assert.equal(first.headers['cache-control'], 'private, max-age=3600');
    assert.equal(first.headers['x-cache'], 'MISS');
    assert.match(String(first.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
    const second = await get(path, 'supporter');
    assert.equal(second.headers['x-cache'], 'HIT');
    assert.equal(second.body, first.body);
    const notModified = await get(path, 'supporter', { 'If-None-Match': String(first.headers.etag) });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.body, '');
    assert.equal(notModified.headers.etag, first.headers.etag);
    assert.equal(notModified.headers['cache-control'], 'private, max-age=3600');
  });

  test('paging to the end with random filters and limits returns each match once, in order (property, over HTTP)', async () => {
    const { store } = snapshotOf(fixtureSource);
    const rnd = random(99);
    for (const iso2 of ['US', 'GB', 'NO']) {
      const records = recordsOfCountry(store, iso2);
      for (let run = 0; run < 8; run++) {
        const filters = randomFilters(records, rnd);
        const limit = 1 + Math.floor(rnd() * 4);
        const query = new URLSearchParams({ limit: String(limit) });
        if (filters.q !== null) query.set('q', filters.q.toUpperCase());
        if (filters.stateCode !== null) query.set('state_code', filters.stateCode.toLowerCase());
        if (filters.cityId !== null) query.set('city_id', String(filters.cityId));
        if (filters.type !== null) query.set('type', filters.type.toUpperCase());
        const ids: number[] = [];
        let next: string | null = null;
        let pages = 0;
        do {
          const pageQuery: URLSearchParams = new URLSearchParams(query);
          if (next !== null) {
            pageQuery.set('cursor', next);
            // Alternate: resend the filters, or page with the cursor alone.
            if (pages % 2 === 1) for (const name of ['q', 'state_code', 'city_id', 'type']) pageQuery.delete(name);
          }
          const body = await ok(`/v1/countries/${iso2}/postcodes?${pageQuery}`, 'supporter');
          ids.push(...body.data.map((r: any) => Number(r.id)));
          assert.ok(body.data.length <= limit);
          next = body.pagination.next_cursor;
          assert.equal(body.pagination.has_more, next !== null);
          pages++;
        } while (next !== null && pages < 100);
        const expected = expectedIds(records, { ...filters, q: filters.q === null ? null : matchKey(filters.q) });
        assert.deepEqual(ids, expected, `${iso2} ${query}`);
      }
    }
  });
});

describe('postcode cursors across servers (secret rotation, expiry)', () => {
  test('a cursor expires 24 hours after it was issued; a rotated secret still accepts it', async () => {
    const page = await ok('/v1/countries/US/postcodes?limit=2', 'supporter');
    const cursor = encodeURIComponent(page.pagination.next_cursor);
    const later = await startTestServer({ operationsModule, snapshotDir, fixedNow: hoursAfterT0(24), env: { GEOAPI_CURSOR_SECRET: SECRET } });
    const rotated = await startTestServer({ operationsModule, snapshotDir, fixedNow: hoursAfterT0(23.9), env: { GEOAPI_CURSOR_SECRET: 'a-new-secret', GEOAPI_CURSOR_SECRET_PREVIOUS: SECRET } });
    const unknown = await startTestServer({ operationsModule, snapshotDir, fixedNow: T0, env: { GEOAPI_CURSOR_SECRET: 'someone-else' } });
    try {
      const expired = await later.get(`/v1/countries/US/postcodes?limit=2&cursor=${cursor}`, { plan: 'supporter' });
      assert.equal(expired.status, 400);
      assert.deepEqual(expired.json(), { status: 'error', message: 'cursor has expired. Start again without a cursor.' });
      const accepted = await rotated.get(`/v1/countries/US/postcodes?limit=2&cursor=${cursor}`, { plan: 'supporter' });
      assert.equal(accepted.status, 200, accepted.body);
      assert.deepEqual(accepted.json().data.map((r: any) => r.code), ['10001', '10118']);
      const refused = await unknown.get(`/v1/countries/US/postcodes?limit=2&cursor=${cursor}`, { plan: 'supporter' });
      assert.equal(refused.json().message, 'cursor is invalid or has been tampered with.');
    } finally {
      await Promise.all([later.close(), rotated.close(), unknown.close()]);
    }
  });

  test('without a configured secret, cursors work across the server\'s worker threads', async () => {
    const threaded = await startTestServer({ operationsModule, snapshotDir, fixedNow: T0, threads: 2, env: { GEOAPI_CURSOR_SECRET: '' } });
    try {
      // Fresh connections are spread over the threads; every cursor must be accepted by all of them.
      for (let i = 0; i < 8; i++) {
        const first = await threaded.get('/v1/countries/GB/postcodes?limit=1', { plan: 'supporter' });
        const next = await threaded.get(`/v1/countries/GB/postcodes?limit=1&cursor=${encodeURIComponent(first.json().pagination.next_cursor)}`, { plan: 'supporter' });
        assert.equal(next.status, 200, next.body);
        assert.equal(next.json().data[0].code, 'EC');
      }
    } finally {
      await threaded.close();
    }
  });
});
