// Contract tests: every reference operation × plans community, starter, supporter, professional,
// business, legacy × outcomes 200, 400, 401, 403, 404 (where they exist), against a real server on
// the fixture dataset; bodies validated with the JSON Schemas in schemas/http/ and the spec's messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertSchema } from './support/schemas.js';
import { PLANS, startTestServer, type TestServer } from './support/server.js';
import { fixtureSnapshot } from '../../support/snapshots.js';

const RANK: Record<string, number> = { community: 0, starter: 1, legacy: 1, supporter: 2, professional: 3, business: 4 };
const TIER: Record<string, 'basic' | 'coordinates' | 'full'> = {
  community: 'basic', starter: 'basic', legacy: 'basic', supporter: 'coordinates', professional: 'full', business: 'full',
};
const COUNTRY_TIER = (plan: string) => (RANK[plan]! >= 2 ? 'full' : 'basic');
const REGION_TIER = (plan: string) => (RANK[plan]! >= 2 ? 'coordinates' : 'basic');

// Default key sets per tier, from the spec tables and decisions.md (independent of runtime/render/fields.ts).
const COUNTRY_BASIC = ['id', 'name', 'iso2', 'iso3', 'phonecode', 'capital', 'currency', 'native', 'emoji', 'latitude', 'longitude', 'region', 'region_id', 'subregion', 'subregion_id', 'timezones'];
const COUNTRY_FULL = [...COUNTRY_BASIC, 'numeric_code', 'currency_name', 'currency_symbol', 'tld', 'nationality', 'population', 'gdp', 'area_sq_km', 'postal_code_format', 'postal_code_regex', 'emojiU', 'wikiDataId'];
const STATE_BASIC = ['id', 'name', 'iso2', 'country_id', 'country_code', 'latitude', 'longitude', 'timezone'];
const STATE_COORDINATES = [...STATE_BASIC, 'fips_code', 'iso3166_2', 'type', 'level', 'parent_id', 'native', 'population'];
const STATE_FULL = [...STATE_COORDINATES, 'translations', 'wikiDataId'];
const CITY_BASIC = ['id', 'name'];
const CITY_COORDINATES = [...CITY_BASIC, 'state_id', 'state_code', 'country_id', 'country_code', 'latitude', 'longitude', 'timezone', 'population', 'type', 'level', 'parent_id', 'native'];
const CITY_FULL = [...CITY_COORDINATES, 'translations', 'wikiDataId'];
const KEYS = {
  country: { basic: COUNTRY_BASIC, full: COUNTRY_FULL },
  state: { basic: STATE_BASIC, coordinates: STATE_COORDINATES, full: STATE_FULL },
  city: { basic: CITY_BASIC, coordinates: CITY_COORDINATES, full: CITY_FULL },
  region: { basic: ['id', 'name'], coordinates: ['id', 'name', 'wikiDataId'] },
  subregion: { basic: ['id', 'name', 'region_id'], coordinates: ['id', 'name', 'region_id', 'wikiDataId'] },
};

interface OpCase {
  op: string;
  /** Minimum plan rank of the operation; below it the answer is 403 with `feature`. */
  gate: number;
  feature: string | null;
  shape: 'A' | 'B';
  ok: { path: string; schema: (plan: string) => string; keys?: (plan: string) => string[]; check?: (body: unknown) => void };
  /** A 400 request; `paramGate`: below that rank the parameter itself is refused with 403 `paramFeature`. */
  bad?: { path: string; message: string; paramGate?: number; paramFeature?: string };
  missing?: { path: string; message: string };
}

const country = (plan: string) => `country.${COUNTRY_TIER(plan)}.json`;
const LOS_ANGELES = 120784;

const CASES: OpCase[] = [
  {
    op: 'countriesList', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/countries', schema: (p) => `${country(p)}[]`, keys: (p) => KEYS.country[COUNTRY_TIER(p)], check: (b) => assert.equal((b as unknown[]).length, 6) },
    bad: { path: '/v1/countries?q=a', message: 'Invalid query parameters: q: Search query must be at least 2 characters', paramGate: 1, paramFeature: 'searchEndpoint' },
  },
  {
    op: 'countryDetail', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/countries/usa', schema: country, keys: (p) => KEYS.country[COUNTRY_TIER(p)] },
    bad: { path: '/v1/countries/US?include_translations=yes', message: "Invalid query parameters: include_translations: must be true, false, 1 or 0, found 'yes'" },
    missing: { path: '/v1/countries/XX', message: 'Country not found.' },
  },
  {
    op: 'statesAll', gate: 2, feature: 'bulkStates', shape: 'A',
    ok: { path: '/v1/states', schema: (p) => `state.${TIER[p]}.json[]`, keys: (p) => KEYS.state[TIER[p]!], check: (b) => assert.equal((b as unknown[]).length, 20) },
    bad: { path: '/v1/states?sort=bogus', message: 'Field "bogus" is not sortable. Sortable fields for states: id, name, iso2, country_code, population, latitude, longitude' },
  },
  {
    op: 'countryStates', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/countries/US/states', schema: (p) => `state.${TIER[p]}.json[]`, keys: (p) => KEYS.state[TIER[p]!] },
    bad: { path: '/v1/countries/US/states?fields=id,bogus', message: 'Unknown field(s): bogus. Valid fields: ', paramGate: 1, paramFeature: 'fieldsFiltering' },
    missing: { path: '/v1/countries/XX/states', message: 'No States/Regions found.' },
  },
  {
    op: 'stateDetail', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/countries/us/states/ca', schema: (p) => `state.${TIER[p]}.json`, keys: (p) => KEYS.state[TIER[p]!] },
    bad: { path: '/v1/countries/US/states/CA?fields=name,nope,,', message: 'Unknown field(s): nope. Valid fields: ', paramGate: 1, paramFeature: 'fieldsFiltering' },
    missing: { path: '/v1/countries/US/states/ZZ', message: 'No State/Region found.' },
  },
  {
    op: 'stateCities', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/countries/US/states/CA/cities', schema: (p) => `city.${TIER[p]}.json[]`, keys: (p) => KEYS.city[TIER[p]!] },
    bad: { path: '/v1/countries/US/states/CA/cities?q=a', message: 'Invalid query parameters: q: Search query must be at least 2 characters', paramGate: 2, paramFeature: 'searchEndpoint' },
    missing: { path: '/v1/countries/US/states/ZZ/cities', message: 'No Cities found.' },
  },
  {
    op: 'countryCities', gate: 2, feature: 'bulkCities', shape: 'A',
    ok: { path: '/v1/countries/BR/cities', schema: (p) => `city.${TIER[p]}.json[]`, keys: (p) => KEYS.city[TIER[p]!], check: (b) => assert.equal((b as unknown[]).length, 5) },
    bad: { path: '/v1/countries/BR/cities?sort=name:up', message: 'Invalid sort token "name:up". Expected "field" or "field:asc|desc".' },
    missing: { path: '/v1/countries/XX/cities', message: 'No Cities found.' },
  },
  {
    op: 'regionsList', gate: 1, feature: 'regionsApi', shape: 'A',
    ok: { path: '/v1/regions', schema: (p) => `region.${REGION_TIER(p)}.json[]`, keys: (p) => KEYS.region[REGION_TIER(p)] },
    bad: { path: '/v1/regions?locale=german', message: "Invalid query parameters: locale: must be a language code with an optional subtag (e.g. de, pt-BR, zh-Hant), found 'german'" },
  },
  {
    op: 'regionDetail', gate: 1, feature: 'regionsApi', shape: 'A',
    ok: { path: '/v1/regions/2', schema: (p) => `region.${REGION_TIER(p)}.json`, keys: (p) => KEYS.region[REGION_TIER(p)] },
    bad: { path: '/v1/regions/2?locale=d', message: "Invalid query parameters: locale: must be a language code with an optional subtag (e.g. de, pt-BR, zh-Hant), found 'd'" },
    missing: { path: '/v1/regions/999', message: 'Region not found.' },
  },
  {
    op: 'regionSubregions', gate: 1, feature: 'regionsApi', shape: 'A',
    ok: { path: '/v1/regions/2/subregions', schema: (p) => `subregion.${REGION_TIER(p)}.json[]`, keys: (p) => KEYS.subregion[REGION_TIER(p)], check: (b) => assert.equal((b as unknown[]).length, 3) },
    bad: { path: '/v1/regions/2/subregions?q=a', message: 'Invalid query parameters: q: Search query must be at least 2 characters' },
    missing: { path: '/v1/regions/999/subregions', message: 'Region not found.' },
  },
  {
    op: 'subregionDetail', gate: 1, feature: 'regionsApi', shape: 'A',
    ok: { path: '/v1/subregions/7', schema: (p) => `subregion.${REGION_TIER(p)}.json`, keys: (p) => KEYS.subregion[REGION_TIER(p)] },
    bad: { path: '/v1/subregions/7?fields=population', message: 'Unknown field(s): population. Valid fields: ' },
    missing: { path: '/v1/subregions/999', message: 'Subregion not found.' },
  },
  {
    op: 'subregionCountries', gate: 1, feature: 'regionsApi', shape: 'A',
    ok: { path: '/v1/subregions/6/countries', schema: (p) => `${country(p)}[]`, keys: (p) => KEYS.country[COUNTRY_TIER(p)] },
    bad: { path: '/v1/subregions/6/countries?q=' + 'x'.repeat(101), message: 'Invalid query parameters: q: Search query must be at most 100 characters' },
    missing: { path: '/v1/subregions/abc/countries', message: 'Subregion not found.' },
  },
  {
    op: 'currencyList', gate: 1, feature: 'currencyApi', shape: 'A',
    ok: { path: '/v1/currency', schema: () => 'currency.json[]', check: (b) => assert.deepEqual((b as { country: string }[]).map((c) => c.country), ['BR', 'BS', 'FJ', 'GB', 'NO', 'US']) },
    bad: { path: '/v1/currency?code=US', message: 'Invalid currency code. Must be a 3-letter ISO 4217 code (e.g., USD, EUR).' },
  },
  {
    op: 'currencyByCountry', gate: 1, feature: 'currencyApi', shape: 'A',
    ok: { path: '/v1/currency/gbr', schema: () => 'currency.json', check: (b) => assert.deepEqual(b, { country: 'GB', currency: { code: 'GBP', name: 'British pound', symbol: '£' } }) },
    missing: { path: '/v1/currency/XX', message: 'Country not found.' },
  },
  {
    op: 'phoneList', gate: 2, feature: 'phoneDialCode', shape: 'A',
    ok: { path: '/v1/phone', schema: () => 'phone-entry.json[]', check: (b) => assert.deepEqual((b as { iso2: string }[]).map((e) => e.iso2), ['BR', 'BS', 'FJ', 'GB', 'NO', 'US']) },
    bad: { path: '/v1/phone?code=', message: 'Invalid dial code. Provide a non-empty value (e.g., +1, 44).' },
  },
  {
    op: 'phoneParse', gate: 2, feature: 'phoneDialCode', shape: 'A',
    ok: { path: '/v1/phone/parse?number=%2B14155552671', schema: () => 'phone-parse.json', check: (b) => assert.equal((b as { country: string }).country, 'US') },
    bad: { path: '/v1/phone/parse', message: 'Missing required query parameter: number' },
    missing: { path: '/v1/phone/parse?number=%2B99912345', message: 'Could not identify a country for the given phone number.' },
  },
  {
    op: 'phoneByCountry', gate: 1, feature: 'phoneDialCode', shape: 'B',
    ok: { path: '/v1/phone/BS', schema: () => 'phone-entry.json', check: (b) => assert.deepEqual(b, { country: 'BS', dial_code: '+1', area_code: '242', iso2: 'BS', iso3: 'BHS' }) },
    bad: { path: '/v1/phone/BS?fields=bogus', message: 'Unknown field(s): bogus. Valid fields: country, dial_code, area_code, iso2, iso3' },
    missing: { path: '/v1/phone/XX', message: 'Country not found.' },
  },
  {
    op: 'isoCountry', gate: 1, feature: 'isoLookup', shape: 'A',
    ok: { path: '/v1/iso/country?iso2=no', schema: () => 'iso-country.json', check: (b) => assert.deepEqual(b, { id: 165, name: 'Norway', iso2: 'NO', iso3: 'NOR', numeric_code: '578' }) },
    bad: { path: '/v1/iso/country', message: 'Invalid query parameters: Provide exactly one of: iso2, iso3, numeric' },
    missing: { path: '/v1/iso/country?iso3=XXX', message: 'Country not found for the given code' },
  },
  {
    op: 'isoState', gate: 1, feature: 'isoLookup', shape: 'A',
    ok: { path: '/v1/iso/state?iso=us-ca', schema: () => 'iso-state.json', check: (b) => assert.deepEqual(b, { id: 1416, name: 'California', iso2: 'CA', iso3166_2: 'US-CA', country_id: 233, country_code: 'US' }) },
    bad: { path: '/v1/iso/state', message: 'Invalid query parameters: iso: is required (e.g. iso=US-CA)' },
    missing: { path: '/v1/iso/state?iso=US-ZZ', message: 'State not found for the given ISO code' },
  },
  {
    op: 'isoConvert', gate: 1, feature: 'isoLookup', shape: 'A',
    ok: { path: '/v1/iso/country/convert?from=iso2&to=numeric&value=br', schema: () => 'iso-convert.json', check: (b) => assert.deepEqual(b, { from: 'iso2', to: 'numeric', input: 'br', result: '076' }) },
    bad: { path: '/v1/iso/country/convert?from=iso2&to=iso2&value=br', message: 'Invalid query parameters: to: must differ from from' },
    missing: { path: '/v1/iso/country/convert?from=numeric&to=iso2&value=999', message: 'Country not found for the given code' },
  },
  {
    op: 'timezoneCountry', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/timezone/NO', schema: () => 'timezone.json', check: (b) => assert.equal((b as { iana: string }).iana, 'Europe/Oslo') },
    missing: { path: '/v1/timezone/XX', message: 'Country not found.' },
  },
  {
    op: 'timezoneState', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/timezone/US/CA', schema: () => 'timezone.json', check: (b) => assert.equal((b as { iana: string }).iana, 'America/Los_Angeles') },
    bad: { path: '/v1/timezone/US/CA?fields=bogus', message: 'Unknown field(s): bogus. Valid fields: iana, abbreviation, offset_utc, dst_offset_utc, is_dst_now', paramGate: 1, paramFeature: 'fieldsFiltering' },
    missing: { path: '/v1/timezone/US/ZZ', message: 'State not found.' },
  },
  {
    op: 'timezoneCity', gate: 0, feature: null, shape: 'A',
    ok: { path: `/v1/timezone/US/CA/${LOS_ANGELES}`, schema: () => 'timezone.json', check: (b) => assert.equal((b as { iana: string }).iana, 'America/Los_Angeles') },
    // Los Angeles is not in New York: the ownership check makes it "not found".
    missing: { path: `/v1/timezone/US/NY/${LOS_ANGELES}`, message: 'City not found.' },
  },
  {
    op: 'dataVersion', gate: 0, feature: null, shape: 'A',
    ok: { path: '/v1/meta/data-version', schema: () => 'data-version.json', check: (b) => assert.equal((b as { recordCounts: { countries: number } }).recordCounts.countries, 6) },
  },
];

function assertError(res: { status: number; body: unknown }, status: number, shape: 'A' | 'B', message: string, context: string): void {
  assert.equal(res.status, status, `${context}: status (body ${JSON.stringify(res.body)})`);
  assertSchema(res.body, shape === 'A' ? 'error-a.json' : 'error-b.json', context);
  const text = shape === 'A' ? (res.body as { error: string }).error : (res.body as { message: string }).message;
  // Messages that end with a list (field names) are compared up to the list.
  if (message.endsWith(': ')) assert.ok(text.startsWith(message), `${context}: message ${JSON.stringify(text)}`);
  else assert.equal(text, message, context);
}

function assertForbidden(res: { status: number; body: unknown }, shape: 'A' | 'B', feature: string, plan: string, context: string): void {
  assert.equal(res.status, 403, `${context}: status (body ${JSON.stringify(res.body)})`);
  assertSchema(res.body, shape === 'A' ? 'forbidden-a.json' : 'forbidden-b.json', context);
  if (shape === 'A') assert.equal((res.body as { feature: string }).feature, feature, context);
  else {
    const details = (res.body as { details: { feature: string; currentTier: string } }).details;
    assert.equal(details.feature, feature, context);
    assert.equal(details.currentTier, plan, context);
  }
}

describe('reference operations contract (fixture dataset, real server)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(fixtureSnapshot().dir);
  });
  after(async () => {
    await server?.close();
  });

  for (const c of CASES) {
    describe(c.op, () => {
      it('answers 401 without a key and with an unknown key', async () => {
        for (const res of [await server.get(c.ok.path, { plan: null }), await server.get(c.ok.path, { key: 'not-a-key' })]) {
          assert.equal(res.status, 401);
          assert.deepEqual(res.body, { error: "Unauthorized. You shouldn't be here." });
        }
      });

      for (const plan of PLANS) {
        const allowed = RANK[plan]! >= c.gate;
        it(`${plan}: ${allowed ? '200 for the plan tier' : `403 ${c.feature}`}`, async () => {
          const res = await server.get(c.ok.path, { plan });
          if (!allowed) return assertForbidden(res, c.shape, c.feature!, plan, `${c.op} ${plan}`);
          assert.equal(res.status, 200, `${c.op} ${plan}: ${res.text.slice(0, 300)}`);
          assertSchema(res.body, c.ok.schema(plan), `${c.op} ${plan}`);
          if (c.ok.keys) {
            const expected = c.ok.keys(plan);
            const items = Array.isArray(res.body) ? (res.body as object[]) : [res.body as object];
            assert.ok(items.length > 0);
            for (const item of items) assert.deepEqual(Object.keys(item), expected, `${c.op} ${plan}: default key set`);
          }
          c.ok.check?.(res.body);
          assert.match(res.headers.get('cache-control') ?? '', /^(private, max-age=\d+|no-store)$/);
        });

        if (c.bad) {
          const bad = c.bad;
          const paramAllowed = bad.paramGate === undefined || RANK[plan]! >= bad.paramGate;
          it(`${plan}: ${!allowed ? '403 before parameter checks' : paramAllowed ? '400' : `403 ${bad.paramFeature}`} for ${bad.path}`, async () => {
            const res = await server.get(bad.path, { plan });
            if (!allowed) return assertForbidden(res, c.shape, c.feature!, plan, `${c.op} ${plan}`);
            if (!paramAllowed) return assertForbidden(res, c.shape, bad.paramFeature!, plan, `${c.op} ${plan} ${bad.path}`);
            assertError(res, 400, c.shape, bad.message, `${c.op} ${plan} ${bad.path}`);
          });
        }

        if (c.missing) {
          const missing = c.missing;
          it(`${plan}: ${allowed ? '404' : '403'} for ${missing.path}`, async () => {
            const res = await server.get(missing.path, { plan });
            if (!allowed) return assertForbidden(res, c.shape, c.feature!, plan, `${c.op} ${plan}`);
            assertError(res, 404, c.shape, missing.message, `${c.op} ${plan} ${missing.path}`);
          });
        }
      }
    });
  }

  it('covers every reference operation', async () => {
    const { referenceOperations } = await import('../../../runtime/routes/reference/index.js');
    assert.deepEqual(CASES.map((c) => c.op).sort(), referenceOperations.map((o) => o.name).sort());
  });
});

