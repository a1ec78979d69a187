import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countryZone, formatOffset, timezoneInfo } from '../../runtime/engine/timezone.js';
import { countryRowByIso2 } from '../../runtime/engine/countries.js';
import type { Store } from '../../runtime/store/types.js';
import { matchKey } from '../../runtime/text/normalise.js';
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

/**
 * countryZone as first written: every city of the country decoded and its names folded (the
 * engine finds the capital's namesakes in the names prefix index instead).
 */
function bruteCountryZone(store: Store, countryRow: number): string | null {
  const country = store.countries.record(countryRow);
  const firstEntry = (): string | null => {
    try {
      const zones = JSON.parse(country.timezones ?? 'null') as { zoneName?: unknown }[] | null;
      const zone = Array.isArray(zones) ? zones.find((z) => typeof z?.zoneName === 'string' && z.zoneName !== '') : undefined;
      return (zone?.zoneName as string | undefined) ?? null;
    } catch {
      return null;
    }
  };
  if (!country.capital) return firstEntry();
  const keys = new Set([matchKey(country.capital), matchKey(country.capital.split(',')[0]!)]);
  const { start, end } = store.relations.countryCities;
  const places: { population: number; id: number; zone: string }[] = [];
  for (let row = start[countryRow]!; row < end[countryRow]!; row++) {
    const city = store.cities.record(row);
    if (!city.timezone) continue;
    if (!keys.has(matchKey(city.name)) && !(city.native && keys.has(matchKey(city.native)))) continue;
    places.push({ population: city.population ?? -1, id: city.id, zone: city.timezone });
  }
  if (places.length === 0) return firstEntry();
  places.sort((a, b) => b.population - a.population || a.id - b.id);
  if (places[0]!.population >= 0) return places[0]!.zone;
  const votes = new Map<string, { count: number; id: number }>();
  for (const p of places) {
    const vote = votes.get(p.zone) ?? { count: 0, id: Infinity };
    votes.set(p.zone, { count: vote.count + 1, id: Math.min(vote.id, p.id) });
  }
  return [...votes].sort(([, a], [, b]) => b.count - a.count || a.id - b.id)[0]![0];
}

describe('countryZone', () => {
  it('gives every fixture country the zone of scanning all its cities', () => {
    const { store } = fixtureSnapshot();
    for (let row = 0; row < store.countries.count; row++) assert.equal(countryZone(store, row), bruteCountryZone(store, row), store.countries.record(row).iso2);
  });

  it('gives every country of the full dataset the zone of scanning all its cities', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    for (let row = 0; row < store.countries.count; row++) assert.equal(countryZone(store, row), bruteCountryZone(store, row), store.countries.record(row).iso2);
  });

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
