import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countryRowByIso2 } from '../../runtime/engine/countries.js';
import { NANP_AREA_CODES, mainCountryOfCallingCode, parsePhoneDigits, phoneEntries, phoneEntriesByCode, phoneEntryOfRow } from '../../runtime/engine/phone.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

const NOW = new Date('2025-03-01T00:00:00Z');

describe('NANP area codes from libphonenumber metadata', () => {
  it('lists members with one fixed area code and leaves out CA, US and multi-code members', () => {
    assert.equal(NANP_AREA_CODES.get('BS'), '242');
    assert.equal(NANP_AREA_CODES.get('AG'), '268');
    assert.equal(NANP_AREA_CODES.get('SX'), '721');
    for (const iso2 of ['US', 'CA', 'DO', 'JM', 'PR']) assert.equal(NANP_AREA_CODES.has(iso2), false, iso2);
  });

  it('knows the main country of shared calling codes', () => {
    assert.equal(mainCountryOfCallingCode('1'), 'US');
    assert.equal(mainCountryOfCallingCode('44'), 'GB');
    assert.equal(mainCountryOfCallingCode('7'), 'RU');
  });
});

describe('phone entries (fixture)', () => {
  it('gives NANP territories an area code and the US none', () => {
    const { store } = fixtureSnapshot();
    assert.deepEqual(phoneEntryOfRow(store, countryRowByIso2(store, 'BS')), { country: 'BS', dial_code: '+1', area_code: '242', iso2: 'BS', iso3: 'BHS' });
    assert.deepEqual(phoneEntryOfRow(store, countryRowByIso2(store, 'US')), { country: 'US', dial_code: '+1', iso2: 'US', iso3: 'USA' });
  });

  it('lists entries sorted by ISO2 and filters by dial code or NANP 1+area code', () => {
    const { store } = fixtureSnapshot();
    const iso2s = phoneEntries(store).map((e) => e.iso2);
    assert.deepEqual(iso2s, [...iso2s].sort());
    assert.deepEqual(phoneEntriesByCode(store, '1').map((e) => e.iso2), ['BS', 'US']);
    assert.deepEqual(phoneEntriesByCode(store, '1242').map((e) => e.iso2), ['BS']);
    assert.deepEqual(phoneEntriesByCode(store, '999'), []);
  });

  it('reports the prefix index as MISS when built, HIT afterwards, MISS again after 24 hours', () => {
    const { store } = fixtureSnapshot();
    const later = new Date('2031-01-01T00:00:00Z');
    assert.equal(parsePhoneDigits(store, '4420794600', later).indexHit, false);
    assert.equal(parsePhoneDigits(store, '4420794600', new Date(later.getTime() + 1000)).indexHit, true);
    assert.equal(parsePhoneDigits(store, '4420794600', new Date(later.getTime() + 25 * 3600_000)).indexHit, false);
  });
});

describe('parsePhoneDigits (full dataset)', { skip: fullDatasetSkip() }, () => {
  const cases: [string, string, string | undefined, string][] = [
    // digits, country, area code, national number
    ['14155552671', 'US', undefined, '4155552671'],
    ['12425551234', 'BS', '242', '2425551234'],
    ['16045551234', 'CA', undefined, '6045551234'],
    ['17215551234', 'SX', '721', '7215551234'],
    ['18095551234', 'DO', undefined, '8095551234'],
    ['441632960961', 'GB', undefined, '1632960961'],
    ['441534123456', 'JE', undefined, '1534123456'],
    ['77011234567', 'KZ', undefined, '7011234567'],
    ['74951234567', 'RU', undefined, '4951234567'],
    ['358181234567', 'AX', undefined, '181234567'],
    ['919876543210', 'IN', undefined, '9876543210'],
    ['2693123456', 'KM', undefined, '3123456'],
  ];
  for (const [digits, country, areaCode, national] of cases) {
    it(`+${digits} → ${country}`, () => {
      const { parsed } = parsePhoneDigits(fullSnapshot().store, digits, NOW);
      assert.ok(parsed);
      assert.equal(parsed.country, country);
      assert.equal(parsed.area_code, areaCode);
      assert.equal(parsed.national_number, national);
      assert.equal(parsed.e164, `+${digits}`);
    });
  }

  it('returns null when no dataset code is a prefix', () => {
    assert.equal(parsePhoneDigits(fullSnapshot().store, '99912345', NOW).parsed, null);
  });

  it('takes the longest dataset prefix (brute-force oracle over every calling code)', () => {
    const { store } = fullSnapshot();
    const codes = new Set(phoneEntries(store).map((e) => e.dial_code.slice(1)));
    for (const code of codes) {
      const digits = `${code}00000000`.slice(0, Math.max(code.length + 6, 8));
      const longest = [3, 2, 1].map((n) => digits.slice(0, n)).find((prefix) => codes.has(prefix));
      const { parsed } = parsePhoneDigits(store, digits, NOW);
      assert.ok(parsed, code);
      assert.equal(parsed.dial_code, `+${longest}`, `+${digits}`);
    }
  });
});
