// Behaviours of the shared parameters and of individual operations, through a real server on the
// fixture dataset: fields, sort, q, locale, include_translations, phone parsing and filters, ISO
// code forms, caching headers, prepared compressed bodies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { fixtureSnapshot } from '../../support/snapshots.js';

type Row = Record<string, unknown>;
let server: TestServer;

before(async () => {
  server = await startTestServer(fixtureSnapshot().dir);
});
after(async () => {
  await server?.close();
});

const names = (body: unknown) => (body as Row[]).map((r) => r.name);

describe('fields', () => {
  it('returns only the named fields, always with id, in the field table order', async () => {
    const res = await server.get('/v1/countries?fields=capital,name', { plan: 'starter' });
    assert.equal(res.status, 200);
    for (const row of res.body as Row[]) assert.deepEqual(Object.keys(row), ['id', 'name', 'capital']);
  });

  it('leaves out named fields above the tier instead of failing', async () => {
    const res = await server.get('/v1/countries/US/states/CA/cities?fields=name,wikiDataId', { plan: 'supporter' });
    assert.equal(res.status, 200);
    for (const row of res.body as Row[]) assert.deepEqual(Object.keys(row), ['id', 'name']);
  });

  it('gives fields=translations precedence over include_translations=false', async () => {
    const res = await server.get('/v1/countries/BR?fields=translations&include_translations=false', { plan: 'supporter' });
    assert.deepEqual(Object.keys(res.body as Row), ['id', 'translations']);
    assert.equal(JSON.parse((res.body as Row).translations as string).de, 'Brasilien');
  });
});

describe('sort', () => {
  it('orders by the given fields and directions', async () => {
    const res = await server.get('/v1/countries/US/states/CA/cities?sort=population:desc&fields=population', { plan: 'professional' });
    assert.deepEqual((res.body as Row[]).map((r) => r.population), [3898747, 1013240, 873965, null]);
  });

  it('refuses fields the plan does not return', async () => {
    const res = await server.get('/v1/countries?sort=population', { plan: 'starter' });
    assert.equal(res.status, 400);
    assert.equal((res.body as { error: string }).error, 'Field "population" is not available on your current plan.');
  });

  it('is refused with 403 below its plan', async () => {
    const res = await server.get('/v1/countries?sort=name', { plan: 'community' });
    assert.equal(res.status, 403);
    assert.equal((res.body as Row).feature, 'sortParameter');
  });

  it('keeps the snapshot order (by name) without sort', async () => {
    const res = await server.get('/v1/countries', { plan: 'community' });
    assert.deepEqual(names(res.body), ['Brazil', 'Fiji Islands', 'Norway', 'The Bahamas', 'United Kingdom', 'United States']);
  });
});

describe('q', () => {
  it('matches name and native, case- and diacritic-insensitively', async () => {
    const sao = await server.get('/v1/countries/BR/states/SP/cities?q=SAO', { plan: 'supporter' });
    assert.deepEqual(names(sao.body), ['São José dos Campos', 'São Paulo']);
    const angeles = await server.get('/v1/countries/US/states/CA/cities?q=%C3%A1ngeles', { plan: 'supporter' });
    assert.deepEqual(names(angeles.body), ['Los Angeles']);
    const brasil = await server.get('/v1/countries?q=brasil', { plan: 'starter' });
    assert.deepEqual(names(brasil.body), ['Brazil']);
  });

  it('answers an empty array (not 404) when nothing matches', async () => {
    const res = await server.get('/v1/countries/US/states/CA/cities?q=zzzz', { plan: 'supporter' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, []);
  });
});

describe('locale and include_translations', () => {
  it('adds localized_name and matched_locale with the fallback chain on Supporter+', async () => {
    const exact = await server.get('/v1/countries/NO?locale=pt-BR&fields=name', { plan: 'supporter' });
    assert.deepEqual(exact.body, { id: 165, name: 'Norway', localized_name: 'Noruega', matched_locale: 'pt-BR' });
    const base = await server.get('/v1/countries/NO?locale=de-CH&fields=name', { plan: 'supporter' });
    assert.deepEqual(base.body, { id: 165, name: 'Norway', localized_name: 'Norwegen', matched_locale: 'de' });
    const native = await server.get('/v1/countries/NO?locale=fi&fields=name', { plan: 'supporter' });
    assert.deepEqual(native.body, { id: 165, name: 'Norway', localized_name: 'Norge', matched_locale: 'native' });
    const region = await server.get('/v1/regions/2?locale=fi', { plan: 'supporter' });
    assert.deepEqual(region.body, { id: 2, name: 'Americas', wikiDataId: 'Q828', localized_name: 'Americas', matched_locale: 'en' });
  });

  it('silently ignores locale and include_translations below Supporter', async () => {
    const res = await server.get('/v1/regions/2?locale=de&include_translations=true', { plan: 'starter' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: 2, name: 'Americas' });
  });

  it('refuses a malformed locale on every plan, even where it would be ignored', async () => {
    for (const plan of ['starter', 'business'] as const) {
      const res = await server.get('/v1/regions?locale=de_DE', { plan });
      assert.equal(res.status, 400, plan);
    }
  });

  it('adds translations only on request', async () => {
    const without = await server.get('/v1/regions/2', { plan: 'supporter' });
    assert.equal((without.body as Row).translations, undefined);
    const withTranslations = await server.get('/v1/regions/2?include_translations=1', { plan: 'supporter' });
    assert.equal(JSON.parse((withTranslations.body as Row).translations as string).ja, 'アメリカ州');
  });
});

describe('phone', () => {
  it('parses with a leading space in place of an unencoded +, without caching the body', async () => {
    const res = await server.get('/v1/phone/parse?number=+12425551234', { plan: 'supporter' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { country: 'BS', dial_code: '+1', area_code: '242', iso2: 'BS', iso3: 'BHS', national_number: '2425551234', e164: '+12425551234' });
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('etag'), null);
    assert.match(res.headers.get('x-parse-index-cache') ?? '', /^(HIT|MISS)$/);
    const again = await server.get('/v1/phone/parse?number=%2B14155552671', { plan: 'supporter' });
    assert.equal(again.headers.get('x-parse-index-cache'), 'HIT');
  });

  it('refuses numbers without + and with too few or too many digits, with the spec messages', async () => {
    const noPlus = await server.get('/v1/phone/parse?number=14155552671', { plan: 'supporter' });
    assert.deepEqual(noPlus.body, { error: 'Phone number must be in E.164 format starting with + (e.g., +14155552671).' });
    for (const number of ['%2B1234', '%2B1234567890123456', '%2B1415abc2671']) {
      const res = await server.get(`/v1/phone/parse?number=${number}`, { plan: 'supporter' });
      assert.deepEqual(res.body, { error: 'Invalid phone number. Must contain 5-15 digits after the +.' }, number);
    }
  });

  it('treats 1, 01, 001 and +1 as the same dial code, all NANP members included', async () => {
    const expected = [
      { country: 'BS', dial_code: '+1', area_code: '242', iso2: 'BS', iso3: 'BHS' },
      { country: 'US', dial_code: '+1', iso2: 'US', iso3: 'USA' },
    ];
    for (const code of ['1', '01', '001', '%2B1', '+1']) {
      const res = await server.get(`/v1/phone?code=${code}`, { plan: 'supporter' });
      assert.deepEqual(res.body, expected, code);
    }
    const byArea = await server.get('/v1/phone?code=1242', { plan: 'supporter' });
    assert.deepEqual((byArea.body as Row[]).map((e) => e.iso2), ['BS']);
  });

  it('refuses malformed dial codes with the spec message', async () => {
    for (const code of ['abc', '12345', '%2B', '0', '1-2']) {
      const res = await server.get(`/v1/phone?code=${code}`, { plan: 'supporter' });
      assert.equal(res.status, 400, code);
      const message = (res.body as { error: string }).error;
      assert.ok(
        message === 'Invalid dial code format. Expected digits (e.g., 91, 1, 44).' || message === 'Invalid dial code. Provide a non-empty value (e.g., +1, 44).',
        `${code}: ${message}`,
      );
    }
  });

  it('answers a single object for a country, shape B errors, numeric ids 233 and 0233 equal', async () => {
    for (const ciso of ['233', '0233', 'usa', 'us']) {
      const res = await server.get(`/v1/phone/${ciso}`, { plan: 'starter' });
      assert.deepEqual(res.body, { country: 'US', dial_code: '+1', iso2: 'US', iso3: 'USA' }, ciso);
    }
  });
});

describe('ISO lookups', () => {
  it('treats padded and unpadded numeric codes alike and rejects all zeros', async () => {
    for (const numeric of ['76', '076']) {
      const res = await server.get(`/v1/iso/country?numeric=${numeric}`, { plan: 'starter' });
      assert.equal((res.body as Row).iso2, 'BR', numeric);
    }
    const zeros = await server.get('/v1/iso/country?numeric=000', { plan: 'starter' });
    assert.deepEqual(zeros.body, { error: 'Invalid query parameters: numeric: must not be all zeros' });
  });

  it('refuses two codes at once and malformed codes with the spec messages', async () => {
    const two = await server.get('/v1/iso/country?iso2=US&iso3=USA', { plan: 'starter' });
    assert.deepEqual(two.body, { error: 'Invalid query parameters: Provide exactly one of: iso2, iso3, numeric' });
    const bad = await server.get('/v1/iso/country?iso2=USA', { plan: 'starter' });
    assert.deepEqual(bad.body, { error: 'Invalid query parameters: iso2: must be a 2-letter code' });
    const state = await server.get('/v1/iso/state?iso=US_CA', { plan: 'starter' });
    assert.deepEqual(state.body, { error: 'Invalid query parameters: iso: must be an ISO 3166-2 code (e.g. US-CA)' });
  });

  it('falls back to the legacy iso2 when iso3166_2 is null', async () => {
    const res = await server.get('/v1/iso/state?iso=bs-fp', { plan: 'starter' });
    assert.deepEqual(res.body, { id: 3626, name: 'Freeport', iso2: 'FP', iso3166_2: null, country_id: 17, country_code: 'BS' });
    assert.equal(res.headers.get('cache-control'), 'private, max-age=3600');
  });
});

describe('caching and prepared bodies', () => {
  it('sends the spec durations', async () => {
    const cases: [string, string][] = [
      ['/v1/timezone/US/CA', 'private, max-age=86400'],
      ['/v1/phone/US', 'private, max-age=86400'],
      ['/v1/phone', 'private, max-age=86400'],
      ['/v1/currency/US', 'private, max-age=86400'],
      ['/v1/iso/country?iso2=US', 'private, max-age=3600'],
    ];
    for (const [path, expected] of cases) {
      const res = await server.get(path, { plan: 'business' });
      assert.equal(res.headers.get('cache-control'), expected, path);
    }
  });

  it('serves the same list compressed (br, gzip) and plain', async () => {
    const plain = await server.get('/v1/states', { plan: 'business', headers: { 'Accept-Encoding': 'identity' } });
    for (const encoding of ['br', 'gzip']) {
      const res = await server.get('/v1/states', { plan: 'business', headers: { 'Accept-Encoding': encoding } });
      assert.equal(res.headers.get('content-encoding'), encoding);
      assert.equal(res.text, plain.text);
    }
  });

  it('answers the prepared body identically on repeated requests and per tier', async () => {
    const first = await server.get('/v1/countries', { plan: 'business' });
    const second = await server.get('/v1/countries', { plan: 'professional' });
    const basic = await server.get('/v1/countries', { plan: 'starter' });
    assert.equal(first.text, second.text);
    assert.notEqual(first.text, basic.text);
  });
});
