// The parsed-number answer of GET /v1/phone/parse without `fields`, its hot path: the JSON of the
// country's phone entry is prepared once per Store, and only the number's two fields are appended
// per request (only country data is kept, never the number).
import { perStore } from '../engine/per-store.js';
import { phoneEntryOfRow, type PhoneMatch } from '../engine/phone.js';
import type { Store } from '../store/types.js';

/** JSON.stringify(entry) without its closing brace, by country row. */
const jsonPrefixes = perStore(() => new Map<number, string>());

/**
 * What serializeObject gives for PHONE_PARSE_FIELDS without `fields`. `digits` are ASCII digits
 * (validated by the caller), so they need no escaping.
 */
export function parsedPhoneJson(store: Store, match: PhoneMatch, digits: string): string {
  const prefixes = jsonPrefixes.get(store);
  let prefix = prefixes.get(match.row);
  if (prefix === undefined) {
    prefix = JSON.stringify(phoneEntryOfRow(store, match.row)!).slice(0, -1);
    prefixes.set(match.row, prefix);
  }
  return `${prefix},"national_number":"${digits.slice(match.callingCodeLength)}","e164":"+${digits}"}`;
}
