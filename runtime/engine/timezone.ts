// Timezone info from Intl (ICU's tz database shipped with Node), never from stored offsets:
//   offset_utc / dst_offset_utc: the zone's offsets on 1 January and 1 July (12:00 UTC) of the
//   request's year; standard = the lower, DST = the higher (right for both hemispheres; equal when
//   the zone has no DST). is_dst_now: the zones has DST and the offset at request time is the
//   higher one. abbreviation: Intl 'en-US' short name at request time (EST, GMT+5:30 …).
// Offsets are cached per (zone, year); formatters per zone.
import type { Store } from '../store/types.js';
import { matchKey } from '../text/normalise.js';
import { namesIndexOf } from './name-keys.js';
import { perStore } from './per-store.js';

export interface TimezoneInfo {
  iana: string;
  abbreviation: string;
  offset_utc: string;
  dst_offset_utc: string;
  is_dst_now: boolean;
}

interface ZoneFormatters {
  offset: Intl.DateTimeFormat;
  short: Intl.DateTimeFormat;
}

const formatters = new Map<string, ZoneFormatters | null>();
const yearOffsets = new Map<string, { standard: number; dst: number }>();

function zoneFormatters(zone: string): ZoneFormatters | null {
  let cached = formatters.get(zone);
  if (cached === undefined) {
    try {
      cached = {
        offset: new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }),
        short: new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }),
      };
    } catch {
      cached = null; // not a zone ICU knows
    }
    formatters.set(zone, cached);
  }
  return cached;
}

function zoneNamePart(format: Intl.DateTimeFormat, at: Date): string {
  return format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
}

const LONG_OFFSET_RE = /^GMT([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$/;

/** UTC offset of `zone` at `at`, in minutes (east positive). */
export function offsetMinutes(format: Intl.DateTimeFormat, at: Date): number {
  const text = zoneNamePart(format, at);
  if (text === 'GMT' || text === 'UTC') return 0;
  const match = LONG_OFFSET_RE.exec(text);
  if (!match) throw new Error(`unexpected longOffset text: expected GMT±HH:MM, found '${text}'`);
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0) + Number(match[4] ?? 0) / 60;
  return match[1] === '-' ? -minutes : minutes;
}

/** ±HH:MM */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const total = Math.round(Math.abs(minutes));
  const hours = Math.floor(total / 60);
  const rest = total % 60;
  return `${sign}${String(hours).padStart(2, '0')}:${String(rest).padStart(2, '0')}`;
}

/** Timezone info for an IANA name at request time `now`, or null when ICU does not know the zone. */
export function timezoneInfo(zone: string, now: Date): TimezoneInfo | null {
  const format = zoneFormatters(zone);
  if (!format) return null;
  const year = now.getUTCFullYear();
  const key = `${zone}|${year}`;
  let offsets = yearOffsets.get(key);
  if (!offsets) {
    const january = offsetMinutes(format.offset, new Date(Date.UTC(year, 0, 1, 12)));
    const july = offsetMinutes(format.offset, new Date(Date.UTC(year, 6, 1, 12)));
    offsets = { standard: Math.min(january, july), dst: Math.max(january, july) };
    yearOffsets.set(key, offsets);
  }
  const current = offsets.standard === offsets.dst ? offsets.standard : offsetMinutes(format.offset, now);
  return {
    iana: zone,
    abbreviation: zoneNamePart(format.short, now),
    offset_utc: formatOffset(offsets.standard),
    dst_offset_utc: formatOffset(offsets.dst),
    is_dst_now: offsets.standard !== offsets.dst && current === offsets.dst,
  };
}

function firstTimezonesEntry(json: string | null): string | null {
  if (!json) return null;
  try {
    const zones: unknown = JSON.parse(json);
    if (!Array.isArray(zones)) return null;
    for (const zone of zones) {
      const name = (zone as { zoneName?: unknown } | null)?.zoneName;
      if (typeof name === 'string' && name !== '') return name;
    }
  } catch {
    return null;
  }
  return null;
}

const capitalZones = perStore(() => new Map<number, string | null>());

/**
 * The zone of a country: its capital city's timezone, else the first entry of the country's
 * `timezones`. Capital = the country's cities whose name or native equals the capital (folded by
 * matchKey; `Douglas, Isle of Man` also as `Douglas`). Among several same-named places the most
 * populous wins; when populations are unknown, the zone most of them share (the US capital
 * `Washington` names 15 places, most in America/New_York), then the lowest id. Cached per country.
 */
export function countryZone(store: Store, countryRow: number): string | null {
  const cache = capitalZones.get(store);
  const cached = cache.get(countryRow);
  if (cached !== undefined) return cached;
  const country = store.countries.record(countryRow);
  const zone = (country.capital ? capitalZone(store, countryRow, country.capital) : null) ?? firstTimezonesEntry(country.timezones);
  cache.set(countryRow, zone);
  return zone;
}

/**
 * Rows of the country whose name or native name folds to one of `keys`: found in the cities'
 * names prefix index (exact entries), not by folding every city of the country (the US has 16,731;
 * that took up to 28 ms per country, on each thread's first request for it). Ascending.
 */
function capitalCandidates(store: Store, countryRow: number, keys: ReadonlySet<string>): number[] {
  const { start, end } = store.relations.countryCities;
  const from = start[countryRow]!;
  const to = end[countryRow]!;
  if (keys.has('')) {
    // The index leaves empty keys out: a capital that folds to nothing is compared row by row.
    return Array.from({ length: to - from }, (_, i) => from + i);
  }
  const index = namesIndexOf(store, 'cities');
  const rows = new Set<number>();
  for (const key of keys) {
    const [first, last] = index.exactRange(key);
    for (let i = first; i < last; i++) {
      const row = index.row(i);
      if (row >= from && row < to) rows.add(row);
    }
  }
  return [...rows].sort((a, b) => a - b);
}

function capitalZone(store: Store, countryRow: number, capital: string): string | null {
  const keys = new Set([matchKey(capital), matchKey(capital.split(',')[0]!)]);
  let best: { population: number; id: number; zone: string } | null = null;
  const votes = new Map<string, { count: number; id: number }>();
  for (const row of capitalCandidates(store, countryRow, keys)) {
    const city = store.cities.record(row);
    if (!city.timezone) continue;
    if (!keys.has(matchKey(city.name)) && !(city.native && keys.has(matchKey(city.native)))) continue;
    const population = city.population ?? -1;
    if (!best || population > best.population || (population === best.population && city.id < best.id)) {
      best = { population, id: city.id, zone: city.timezone };
    }
    const vote = votes.get(city.timezone);
    if (vote) {
      vote.count++;
      vote.id = Math.min(vote.id, city.id);
    } else votes.set(city.timezone, { count: 1, id: city.id });
  }
  if (!best) return null;
  if (best.population >= 0) return best.zone;
  let zone = best.zone;
  let top = { count: 0, id: Infinity };
  for (const [candidate, vote] of votes) {
    if (vote.count > top.count || (vote.count === top.count && vote.id < top.id)) {
      top = vote;
      zone = candidate;
    }
  }
  return zone;
}
