// Phone parsing for the baselines, per the spec and decisions.md: the longest dial prefix of the
// dataset (a `1XXX` NANP entry first, then 3, 2, 1 digits); countries sharing the code are decided
// by libphonenumber's region for the number, then a fixed NANP area code, then the code's main
// country. Each baseline supplies the countries of a prefix (a scan or a query); nothing is memoised.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { mainCountryOfCallingCode, NANP_AREA_CODES } from '../../../runtime/engine/phone.js';
import { errorA, ok, type Answer } from './http.js';

export interface PhoneCountry {
  iso2: string;
  iso3: string;
  phonecode: string | null;
}

export interface Dial {
  callingCode: string;
  areaCode: string | null;
}

/** The dial code of a country's `phonecode`, or null when it has none. */
export function dialOf(country: PhoneCountry): Dial | null {
  const digits = (country.phonecode ?? '').replace(/\D/g, '').replace(/^0+/, '');
  if (digits === '') return null;
  if (digits.length === 4 && digits.startsWith('1')) return { callingCode: '1', areaCode: digits.slice(1) };
  if (digits === '1') return { callingCode: '1', areaCode: NANP_AREA_CODES.get(country.iso2.toUpperCase()) ?? null };
  return { callingCode: digits, areaCode: null };
}

/** The prefixes a country answers to: its calling code, and `1XXX` for a NANP member with an area code. */
export function prefixesOf(country: PhoneCountry): string[] {
  const dial = dialOf(country);
  if (!dial) return [];
  return dial.areaCode ? [dial.callingCode, `${dial.callingCode}${dial.areaCode}`] : [dial.callingCode];
}

const byIso2 = (a: PhoneCountry, b: PhoneCountry): number => (a.iso2 < b.iso2 ? -1 : a.iso2 > b.iso2 ? 1 : 0);

/**
 * Parses `number` (E.164). `countriesOf(prefixes)` returns the countries answering to any of the
 * given prefixes (see prefixesOf).
 */
export async function parsePhone(number: string, countriesOf: (prefixes: string[]) => PhoneCountry[] | Promise<PhoneCountry[]>): Promise<Answer> {
  if (number === '') return errorA(400, 'Missing required query parameter: number');
  const text = number.startsWith(' ') ? `+${number.slice(1)}` : number;
  if (!text.startsWith('+')) return errorA(400, 'Phone number must be in E.164 format starting with + (e.g., +14155552671).');
  const digits = text.slice(1);
  if (!/^\d{5,15}$/.test(digits)) return errorA(400, 'Invalid phone number. Must contain 5-15 digits after the +.');
  const wanted = [digits.slice(0, 4), digits.slice(0, 3), digits.slice(0, 2), digits.slice(0, 1)];
  const countries = (await countriesOf(wanted)).slice().sort(byIso2);
  const answering = (prefix: string) => countries.filter((country) => prefixesOf(country).includes(prefix));

  let callingCode: string | null = null;
  let candidates: PhoneCountry[] = [];
  const nanp = digits.startsWith('1') ? answering(digits.slice(0, 4)) : [];
  if (nanp.length === 1) {
    callingCode = '1';
    candidates = nanp;
  } else {
    for (const length of [3, 2, 1]) {
      const found = answering(digits.slice(0, length));
      if (found.length > 0 && digits.length > length) {
        callingCode = digits.slice(0, length);
        candidates = found;
        break;
      }
    }
  }
  if (callingCode === null) return errorA(404, 'Could not identify a country for the given phone number.');
  const country = candidates.length === 1 ? candidates[0]! : choose(candidates, callingCode, digits);
  const dial = dialOf(country)!;
  const entry: Record<string, string> = { country: country.iso2, dial_code: `+${dial.callingCode}` };
  if (dial.areaCode) entry.area_code = dial.areaCode;
  entry.iso2 = country.iso2;
  entry.iso3 = country.iso3;
  entry.national_number = digits.slice(callingCode.length);
  entry.e164 = `+${digits}`;
  return ok(entry);
}

function choose(candidates: PhoneCountry[], callingCode: string, digits: string): PhoneCountry {
  const find = (iso2: string | undefined) => (iso2 ? candidates.find((c) => c.iso2.toUpperCase() === iso2.toUpperCase()) : undefined);
  const region = find(parsePhoneNumberFromString(`+${digits}`)?.country);
  if (region) return region;
  if (callingCode === '1') {
    const area = digits.slice(1, 4);
    const territory = candidates.find((c) => dialOf(c)?.areaCode === area);
    if (territory) return territory;
  }
  return find(mainCountryOfCallingCode(callingCode)) ?? candidates[0]!;
}
