import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countryZone, formatOffset, timezoneInfo } from '../../runtime/engine/timezone.js';
import { countryRowByIso2 } from '../../runtime/engine/countries.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

const WINTER = new Date('2025-01-15T12:00:00Z');
const SUMMER = new Date('2025-07-15T12:00:00Z');

describe('timezoneInfo', () => {
  it('samples standard and DST offsets from January and July', () => {
    assert.deepEqual(timezoneInfo('America/New_York', WINTER), {
      iana: 'America/New_York', abbreviation: 'EST', offset_utc: '-05:00', dst_offset_utc: '-04:00', is_dst_now: false,
    });
    const summer = timezoneInfo('America/New_York', SUMMER)!;
    assert.equal(summer.abbreviation, 'EDT');
    assert.equal(summer.is_dst_now, true);
  });

  it('takes the lower offset as standard in the southern hemisphere', () => {
    const sydneyJanuary = timezoneInfo('Australia/Sydney', WINTER)!;
    assert.equal(sydneyJanuary.offset_utc, '+10:00');
    assert.equal(sydneyJanuary.dst_offset_utc, '+11:00');
    assert.equal(sydneyJanuary.is_dst_now, true);
    assert.equal(timezoneInfo('Australia/Sydney', SUMMER)!.is_dst_now, false);
  });

  it('gives equal offsets and no DST for zones without DST, half and quarter hours included', () => {
    const kolkata = timezoneInfo('Asia/Kolkata', SUMMER)!;
    assert.equal(kolkata.offset_utc, '+05:30');
    assert.equal(kolkata.dst_offset_utc, '+05:30');
    assert.equal(kolkata.is_dst_now, false);
    assert.equal(timezoneInfo('Asia/Kathmandu', SUMMER)!.offset_utc, '+05:45');
    assert.equal(timezoneInfo('America/St_Johns', WINTER)!.offset_utc, '-03:30');
    assert.equal(timezoneInfo('UTC', WINTER)!.offset_utc, '+00:00');
  });

  it('returns null for a zone ICU does not know', () => {
    assert.equal(timezoneInfo('Mars/Olympus_Mons', WINTER), null);
  });

  it('formats offsets as ±HH:MM', () => {
    assert.equal(formatOffset(0), '+00:00');
    assert.equal(formatOffset(-210), '-03:30');
    assert.equal(formatOffset(840), '+14:00');
  });
});

describe('countryZone', () => {
  it('uses the capital city when the dataset holds it, else the first timezones entry', () => {
    const { store } = fixtureSnapshot();
    // The Bahamas: capital Nassau is a fixture city.
    assert.equal(countryZone(store, countryRowByIso2(store, 'BS')), 'America/Nassau');
    // Norway: capital Oslo is a fixture city.
    assert.equal(countryZone(store, countryRowByIso2(store, 'NO')), 'Europe/Oslo');
  });

  it('resolves the US capital among same-named places on the full dataset', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    assert.equal(countryZone(store, countryRowByIso2(store, 'US')), 'America/New_York');
    assert.equal(countryZone(store, countryRowByIso2(store, 'IN')), 'Asia/Kolkata');
  });
});
