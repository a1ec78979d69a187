// Golden answers on the full dataset (../shared/data/csc), through a real server with a fixed
// clock. Skipped locally when the dataset is absent; fails when CI=true.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertSchema } from './support/schemas.js';
import { startTestServer, type TestServer } from './support/server.js';
import { fullDatasetSkip, fullSnapshot } from '../../support/snapshots.js';

const INDIA_BASIC = {
  id: 101, name: 'India', iso2: 'IN', iso3: 'IND', phonecode: '91', capital: 'New Delhi', currency: 'INR', native: 'भारत', emoji: '🇮🇳',
  latitude: '20.00000000', longitude: '77.00000000', region: 'Asia', region_id: 3, subregion: 'Southern Asia', subregion_id: 14,
  timezones: '[{"zoneName":"Asia/Kolkata","gmtOffset":19800,"gmtOffsetName":"UTC+05:30","abbreviation":"IST","tzName":"Indian Standard Time"}]',
};
const INDIA_FULL = {
  ...INDIA_BASIC, numeric_code: '356', currency_name: 'Indian rupee', currency_symbol: '₹', tld: '.in', nationality: 'Indian',
  population: 1417492000, gdp: 4187017, area_sq_km: 3287590, postal_code_format: '######', postal_code_regex: '^(\\d{6})$',
  emojiU: 'U+1F1EE U+1F1F3', wikiDataId: 'Q668',
};

// Every NANP member of the dataset; area codes only where libphonenumber gives exactly one.
const NANP: [string, string, string | null][] = [
  ['AG', 'ATG', '268'], ['AI', 'AIA', '264'], ['AS', 'ASM', '684'], ['BB', 'BRB', '246'], ['BM', 'BMU', '441'], ['BS', 'BHS', '242'],
  ['CA', 'CAN', null], ['DM', 'DMA', '767'], ['DO', 'DOM', null], ['GD', 'GRD', '473'], ['GU', 'GUM', '671'], ['JM', 'JAM', null],
  ['KN', 'KNA', '869'], ['KY', 'CYM', '345'], ['LC', 'LCA', '758'], ['MP', 'MNP', '670'], ['MS', 'MSR', '664'], ['PR', 'PRI', null],
  ['SX', 'SXM', '721'], ['TC', 'TCA', '649'], ['TT', 'TTO', '868'], ['UM', 'UMI', null], ['US', 'USA', null], ['VC', 'VCT', '784'],
  ['VG', 'VGB', '284'], ['VI', 'VIR', '340'],
];

describe('golden answers (full dataset)', { skip: fullDatasetSkip() }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(fullSnapshot().dir, { fixedNow: '2025-01-15T12:00:00Z' });
  });
  after(async () => {
    await server?.close();
  });

  it('GET /v1/countries/IN per tier', async () => {
    for (const plan of ['community', 'starter', 'legacy'] as const) {
      const res = await server.get('/v1/countries/IN', { plan });
      assert.deepEqual(res.body, INDIA_BASIC, plan);
    }
    for (const plan of ['supporter', 'professional', 'business'] as const) {
      const res = await server.get('/v1/countries/IN', { plan });
      assert.deepEqual(res.body, INDIA_FULL, plan);
      assertSchema(res.body, 'country.full.json', plan);
    }
    const localized = await server.get('/v1/countries/IN?locale=de&fields=name', { plan: 'supporter' });
    assert.deepEqual(localized.body, { id: 101, name: 'India', localized_name: 'Indien', matched_locale: 'de' });
  });

  it('GET /v1/phone/parse for US, BS and GB numbers', async () => {
    const cases = [
      ['%2B14155552671', { country: 'US', dial_code: '+1', iso2: 'US', iso3: 'USA', national_number: '4155552671', e164: '+14155552671' }],
      ['%2B12425551234', { country: 'BS', dial_code: '+1', area_code: '242', iso2: 'BS', iso3: 'BHS', national_number: '2425551234', e164: '+12425551234' }],
      ['%2B441632960961', { country: 'GB', dial_code: '+44', iso2: 'GB', iso3: 'GBR', national_number: '1632960961', e164: '+441632960961' }],
    ] as const;
    for (const [number, expected] of cases) {
      const res = await server.get(`/v1/phone/parse?number=${number}`, { plan: 'supporter' });
      assert.deepEqual(res.body, expected, number);
    }
  });

  it('GET /v1/iso/state?iso=us-ca', async () => {
    const res = await server.get('/v1/iso/state?iso=us-ca', { plan: 'starter' });
    assert.deepEqual(res.body, { id: 1416, name: 'California', iso2: 'CA', iso3166_2: 'US-CA', country_id: 233, country_code: 'US' });
  });

  it('GET /v1/iso/country?numeric=4', async () => {
    const res = await server.get('/v1/iso/country?numeric=4', { plan: 'starter' });
    assert.deepEqual(res.body, { id: 1, name: 'Afghanistan', iso2: 'AF', iso3: 'AFG', numeric_code: '004' });
  });

  it('GET /v1/timezone/US/CA in January', async () => {
    const res = await server.get('/v1/timezone/US/CA', { plan: 'community' });
    assert.deepEqual(res.body, { iana: 'America/Los_Angeles', abbreviation: 'PST', offset_utc: '-08:00', dst_offset_utc: '-07:00', is_dst_now: false });
  });

  it('GET /v1/timezone/US uses the capital (Washington) zone', async () => {
    const res = await server.get('/v1/timezone/US', { plan: 'community' });
    assert.equal((res.body as { iana: string }).iana, 'America/New_York');
  });

  it('GET /v1/phone?code=+1 lists every NANP member', async () => {
    const res = await server.get('/v1/phone?code=%2B1', { plan: 'supporter' });
    const expected = NANP.map(([iso2, iso3, area]) => ({ country: iso2, dial_code: '+1', ...(area ? { area_code: area } : {}), iso2, iso3 }));
    assert.deepEqual(res.body, expected);
  });

  it('serves the large lists with the tier key sets (all states, US cities)', async () => {
    const states = await server.get('/v1/states', { plan: 'supporter' });
    assert.equal((states.body as unknown[]).length, 5308);
    assertSchema(states.body, 'state.coordinates.json[]', 'all states');
    const cities = await server.get('/v1/countries/US/cities', { plan: 'business', headers: { 'Accept-Encoding': 'br' } });
    assert.equal(cities.headers.get('content-encoding'), 'br');
    assertSchema(cities.body, 'city.full.json[]', 'US cities');
  });
});
