// Dial codes and E.164 parsing over the dataset's `phonecode` values, with libphonenumber-js
// metadata (Google's libphonenumber) deciding between countries that share a calling code.
//
// Dial code of a country: '+' + phonecode digits. NANP (calling code 1): members whose
// libphonenumber metadata gives exactly one 3-digit leading-digits pattern have a fixed area
// code (BS 242, AG 268 …; not CA, US, DO, JM, PR which have none or several); a dataset phonecode
// `1XXX` (SX 1721) is read as calling code 1 with area code XXX. area_code appears only then.
//
// Parsing (spec): the longest dataset prefix wins, trying a `1XXX` NANP entry first, then 3, 2, 1
// digits. When several countries share the code: libphonenumber's region for the number (its
// leading-digits / number-pattern detection: +1 604… → CA, +44 1534… → JE, +7 701… → KZ) when it
// is one of them; else a fixed NANP area code; else the code's main country per libphonenumber
// (1 → US, 44 → GB, 7 → RU); else the first of them by ISO2.
import { createRequire } from 'node:module';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { Store } from '../store/types.js';
import { countryRowByIso2 } from './countries.js';
import { perStore } from './per-store.js';

interface MetadataJson {
  country_calling_codes: Record<string, string[]>;
  countries: Record<string, unknown[]>;
}

const metadata = createRequire(import.meta.url)('libphonenumber-js/metadata.min.json') as MetadataJson;
/** Index of `leading_digits` in a country's compressed metadata array (libphonenumber-js v4 format). */
const LEADING_DIGITS = 10;

/** NANP members with a single fixed area code, from libphonenumber metadata: ISO2 → area code. */
export const NANP_AREA_CODES: ReadonlyMap<string, string> = (() => {
  const codes = new Map<string, string>();
  for (const iso2 of metadata.country_calling_codes['1'] ?? []) {
    const leading = metadata.countries[iso2]?.[LEADING_DIGITS];
    if (typeof leading === 'string' && /^\d{3}$/.test(leading)) codes.set(iso2, leading);
  }
  return codes;
})();

/** The main country of a calling code per libphonenumber (first listed region), or undefined. */
export function mainCountryOfCallingCode(callingCode: string): string | undefined {
  return metadata.country_calling_codes[callingCode]?.[0];
}

export interface PhoneEntry {
  country: string;
  dial_code: string;
  area_code?: string;
  iso2: string;
  iso3: string;
}

export interface ParsedPhone extends PhoneEntry {
  national_number: string;
  e164: string;
}

interface DialCode {
  /** Calling code digits (`1` for every NANP member). */
  callingCode: string;
  areaCode: string | null;
}

function dialCodeOf(iso2: string, phonecode: string | null): DialCode | null {
  // ITU calling codes never start with 0; the dataset has one such value (BV `0055`).
  const digits = (phonecode ?? '').replace(/\D/g, '').replace(/^0+/, '');
  if (digits === '') return null;
  if (digits.length === 4 && digits.startsWith('1')) return { callingCode: '1', areaCode: digits.slice(1) };
  if (digits === '1') return { callingCode: '1', areaCode: NANP_AREA_CODES.get(iso2.toUpperCase()) ?? null };
  return { callingCode: digits, areaCode: null };
}

function entryOf(iso2: string, iso3: string, dial: DialCode): PhoneEntry {
  const entry: PhoneEntry = { country: iso2, dial_code: `+${dial.callingCode}`, iso2, iso3 };
  if (dial.areaCode) {
    // Keep the spec's field order: country, dial_code, area_code, iso2, iso3.
    return { country: iso2, dial_code: entry.dial_code, area_code: dial.areaCode, iso2, iso3 };
  }
  return entry;
}

interface PhoneTable {
  /** Entries of every country with a dial code, sorted by ISO2. */
  entries: PhoneEntry[];
  /** The country row of each entry (same order as `entries`). */
  rows: number[];
  entryByRow: Map<number, PhoneEntry>;
}

const phoneTable = perStore((store): PhoneTable => {
  const rows: number[] = [];
  const entryByRow = new Map<number, PhoneEntry>();
  for (let row = 0; row < store.countries.count; row++) {
    const country = store.countries.record(row);
    const dial = dialCodeOf(country.iso2, country.phonecode);
    if (!dial) continue;
    entryByRow.set(row, entryOf(country.iso2, country.iso3, dial));
    rows.push(row);
  }
  const iso2Of = (row: number) => entryByRow.get(row)!.iso2;
  rows.sort((a, b) => (iso2Of(a) < iso2Of(b) ? -1 : iso2Of(a) > iso2Of(b) ? 1 : 0));
  const entries = rows.map((row) => entryByRow.get(row)!);
  return { entries, rows, entryByRow };
});

/** Every country with a dial code, sorted by ISO2. */
export function phoneEntries(store: Store): readonly PhoneEntry[] {
  return phoneTable.get(store).entries;
}

/** The phone entry of a country row, or null when the country has no dial code. */
export function phoneEntryOfRow(store: Store, countryRow: number): PhoneEntry | null {
  return phoneTable.get(store).entryByRow.get(countryRow) ?? null;
}

/**
 * Entries whose dial code is `digits` (leading zeros already stripped): the calling code itself
 * (`1` → every NANP member) or a NANP member's `1` + area code (`1242` → BS). Sorted by ISO2.
 */
export function phoneEntriesByCode(store: Store, digits: string): PhoneEntry[] {
  return phoneEntries(store).filter(
    (entry) => entry.dial_code.slice(1) === digits || (entry.area_code !== undefined && `1${entry.area_code}` === digits),
  );
}

// The prefix index the spec mentions (X-Parse-Index-Cache): dial prefix → country rows, rebuilt
// after 24 hours.
const INDEX_TTL_MS = 24 * 60 * 60 * 1000;

interface PrefixIndex {
  builtAtMs: number;
  /** '1242' style NANP keys and plain calling codes → rows (ISO2 order). */
  rowsByPrefix: Map<string, number[]>;
}

const prefixIndexes = perStore(() => ({ current: null as PrefixIndex | null }));

/** The prefix index when built and less than INDEX_TTL_MS old, else null (then buildPrefixIndex). */
function prefixIndex(store: Store, nowMs: number): PrefixIndex | null {
  const slot = prefixIndexes.get(store);
  const current = slot.current;
  if (current && nowMs - current.builtAtMs < INDEX_TTL_MS && nowMs >= current.builtAtMs) return current;
  return null;
}

function buildPrefixIndex(store: Store, nowMs: number): PrefixIndex {
  const table = phoneTable.get(store);
  const rowsByPrefix = new Map<string, number[]>();
  const add = (key: string, row: number) => {
    const rows = rowsByPrefix.get(key);
    if (rows) rows.push(row);
    else rowsByPrefix.set(key, [row]);
  };
  table.entries.forEach((entry, i) => {
    const row = table.rows[i]!;
    const callingCode = entry.dial_code.slice(1);
    add(callingCode, row);
    if (entry.area_code) add(`${callingCode}${entry.area_code}`, row);
  });
  const index = { builtAtMs: nowMs, rowsByPrefix };
  prefixIndexes.get(store).current = index;
  return index;
}

export interface PhoneParseResult {
  parsed: ParsedPhone | null;
  /** Whether the prefix index was already built (X-Parse-Index-Cache). */
  indexHit: boolean;
}

/** A parsed number as the country row and the length of its calling code (the rest is national). */
export interface PhoneMatch {
  /** Country row, or -1 when no country matches. */
  row: number;
  callingCodeLength: number;
  /** Whether the prefix index was already built (X-Parse-Index-Cache). */
  indexHit: boolean;
}

/** Parses `digits` (5 to 15 digits after '+', validated by the caller). */
export function parsePhoneDigits(store: Store, digits: string, now: Date): PhoneParseResult {
  const match = matchPhoneDigits(store, digits, now.getTime());
  if (match.row < 0) return { parsed: null, indexHit: match.indexHit };
  const entry = phoneEntryOfRow(store, match.row)!;
  return {
    parsed: { ...entry, national_number: digits.slice(match.callingCodeLength), e164: `+${digits}` },
    indexHit: match.indexHit,
  };
}

/** parsePhoneDigits without building the answer object (the hot path of GET /v1/phone/parse). */
export function matchPhoneDigits(store: Store, digits: string, nowMs: number): PhoneMatch {
  let index = prefixIndex(store, nowMs);
  const indexHit = index !== null;
  if (index === null) index = buildPrefixIndex(store, nowMs);
  let callingCode: string | null = null;
  let candidates: number[] | undefined;
  // A `1XXX` NANP entry beats bare +1 (spec), then the longest ITU prefix: 3, 2, 1 digits.
  const nanp = digits.charCodeAt(0) === 0x31 ? index.rowsByPrefix.get(digits.slice(0, 4)) : undefined;
  if (nanp && nanp.length === 1) {
    callingCode = '1';
    candidates = nanp;
  } else {
    for (let length = 3; length >= 1; length--) {
      if (digits.length <= length) continue;
      const prefix = digits.slice(0, length);
      const rows = index.rowsByPrefix.get(prefix);
      if (rows) {
        callingCode = prefix;
        candidates = rows;
        break;
      }
    }
  }
  if (callingCode === null || candidates === undefined || candidates.length === 0) return { row: -1, callingCodeLength: 0, indexHit };
  const row = candidates.length === 1 ? candidates[0]! : chooseAmong(store, candidates, callingCode, digits);
  return { row, callingCodeLength: callingCode.length, indexHit };
}

// libphonenumber's region for a shared calling code depends on the number's leading digits
// (NANP: the area code). Its answer is memoised per (calling code, area code or next 6 digits) so a request
// costs a Map lookup; only the prefix is kept, never the number. Six digits: libphonenumber's
// leading-digit patterns for shared codes are at most five digits long (JE 77003). Bounded:
// cleared when it reaches REGION_MEMO_MAX prefixes.
const REGION_MEMO_MAX = 100_000;
const regionByPrefix = new Map<string, string | null>();
const REGION_PREFIX_DIGITS = 6;

function regionOfLeadingDigits(callingCode: string, digits: string): string | undefined {
  const national = digits.slice(callingCode.length);
  const key = `${callingCode}|${national.slice(0, callingCode === '1' ? 3 : REGION_PREFIX_DIGITS)}`;
  let region = regionByPrefix.get(key);
  if (region === undefined) {
    region = parsePhoneNumberFromString(`+${digits}`)?.country ?? null;
    // Only decided regions of prefixes long enough to decide are memoised: a number libphonenumber
    // cannot place (too short, invalid) must not decide for the valid numbers sharing its prefix.
    if (region !== null && national.length > REGION_PREFIX_DIGITS) {
      if (regionByPrefix.size >= REGION_MEMO_MAX) regionByPrefix.clear();
      regionByPrefix.set(key, region);
    }
  }
  return region ?? undefined;
}

function chooseAmong(store: Store, rows: number[], callingCode: string, digits: string): number {
  const table = phoneTable.get(store);
  const regionIso2 = regionOfLeadingDigits(callingCode, digits);
  const region = regionIso2 ? countryRowByIso2(store, regionIso2) : -1;
  if (region >= 0 && rows.includes(region)) return region;
  if (callingCode === '1') {
    const area = digits.slice(1, 4);
    const territory = rows.find((row) => table.entryByRow.get(row)?.area_code === area);
    if (territory !== undefined) return territory;
  }
  const mainIso2 = mainCountryOfCallingCode(callingCode);
  const main = mainIso2 ? countryRowByIso2(store, mainIso2) : -1;
  if (main >= 0 && rows.includes(main)) return main;
  return rows[0]!;
}
