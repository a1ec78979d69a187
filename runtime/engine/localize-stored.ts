// localizeName's translation step, read from a row's stored translations (format/json-text.ts:
// the JSON object's text, escaped once more as a JSON string's contents) without decoding or
// parsing them. A list of 250 countries with `locale` spent two thirds of its time turning each
// row's ~420 bytes of translations into an object (TextDecoder, JSON.parse twice) to read one key.
//
// The scan takes the common shape only: a flat object of string values, compact, keys of ASCII
// characters, values without escapes (every row's translations in the full dataset but one
// city's, one of whose values holds an escaped character). Anything else — whitespace, escapes,
// nested values, non-ASCII keys (`toLowerCase` maps some to ASCII), invalid JSON, a value that
// starts with a byte-order mark, a key repeated among those the locale could choose (JSON.parse
// keeps the last value at the first key's place) — is left to localizeName on the decoded text
// (test/engine/localize-stored.test.ts compares the two).
import { decodeUtf8 } from '../store/record-byte-buffer.js';
import type { LocalizedName } from './localize.js';

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/** The stored form's `\"`. */
function quoteAt(bytes: Uint8Array, at: number, end: number): boolean {
  return at + 1 < end && bytes[at] === BACKSLASH && bytes[at + 1] === QUOTE;
}

/** Keys the locale can choose, per scan: [key start, key length, value start, value length] each. */
const MAX_CANDIDATES = 8;
const candidates = new Int32Array(4 * MAX_CANDIDATES);
const KIND_EXACT = 0;
const KIND_BASE = 1;
const KIND_VARIANT = 2;
const kinds = new Uint8Array(MAX_CANDIDATES);

/** Lower-cased ASCII byte. */
function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}

/** How the key bytes[start, start + length) relates to `wanted` (lower-cased locale): KIND_*, or -1. */
function kindOf(bytes: Uint8Array, start: number, length: number, wanted: string): number {
  // The base language is wanted's first two letters (LOCALE_RE).
  if (length < 2 || lower(bytes[start]!) !== wanted.charCodeAt(0) || lower(bytes[start + 1]!) !== wanted.charCodeAt(1)) return -1;
  if (length === 2) return wanted.length === 2 ? KIND_EXACT : KIND_BASE;
  if (bytes[start + 2] !== 0x2d) return -1;
  if (length !== wanted.length) return KIND_VARIANT;
  for (let i = 3; i < length; i++) if (lower(bytes[start + i]!) !== wanted.charCodeAt(i)) return KIND_VARIANT;
  return KIND_EXACT;
}

function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

function asciiText(bytes: Uint8Array, start: number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(bytes[start + i]!);
  return text;
}

/**
 * localizeName's translation step for the stored translations bytes[start, start + length):
 * the chosen translation; null when none is usable (the chain goes on to native, then en);
 * undefined when the bytes are not of the shape scanned here (call localizeName on the text).
 * `wanted` is the locale lower-cased.
 */
export function localizeStoredTranslations(wanted: string, bytes: Uint8Array, start: number, length: number): LocalizedName | null | undefined {
  const end = start + length;
  let at = start;
  if (wanted.length < 2 || length < 2 || bytes[at] !== 0x7b) return undefined;
  at++;
  let found = 0;
  if (at < end && bytes[at] === 0x7d) at++; // {}
  else {
    for (;;) {
      if (!quoteAt(bytes, at, end)) return undefined;
      const keyStart = at + 2;
      at = keyStart;
      while (at < end && bytes[at]! < 0x80 && bytes[at] !== BACKSLASH && bytes[at] !== QUOTE) at++;
      if (!quoteAt(bytes, at, end)) return undefined;
      const keyLength = at - keyStart;
      at += 2;
      if (bytes[at] !== 0x3a || !quoteAt(bytes, at + 1, end)) return undefined;
      const valueStart = at + 3;
      at = valueStart;
      while (at < end && bytes[at] !== BACKSLASH && bytes[at] !== QUOTE) at++;
      if (!quoteAt(bytes, at, end)) return undefined;
      const valueLength = at - valueStart;
      // decodeUtf8 would drop a byte-order mark that starts the value, which the whole text keeps.
      if (valueLength >= 3 && bytes[valueStart] === 0xef && bytes[valueStart + 1] === 0xbb && bytes[valueStart + 2] === 0xbf) return undefined;
      at += 2;
      const kind = kindOf(bytes, keyStart, keyLength, wanted);
      if (kind >= 0) {
        if (found === MAX_CANDIDATES) return undefined;
        for (let c = 0; c < found; c++) {
          if (candidates[4 * c + 1] === keyLength && sameBytes(bytes, candidates[4 * c]!, keyStart, keyLength)) return undefined;
        }
        candidates[4 * found] = keyStart;
        candidates[4 * found + 1] = keyLength;
        candidates[4 * found + 2] = valueStart;
        candidates[4 * found + 3] = valueLength;
        kinds[found++] = kind;
      }
      if (bytes[at] === 0x2c) {
        at++;
        continue;
      }
      if (bytes[at] !== 0x7d) return undefined;
      at++;
      break;
    }
  }
  if (at !== end) return undefined;
  // localizeName's loop over the keys, on the candidates (in key order).
  let base = -1;
  let variant = -1;
  for (let c = 0; c < found; c++) {
    const value = decodeUtf8(bytes, candidates[4 * c + 2]!, candidates[4 * c + 3]!);
    if (value.trim() === '') continue;
    const kind = kinds[c]!;
    if (kind === KIND_EXACT) return { localized_name: value, matched_locale: asciiText(bytes, candidates[4 * c]!, candidates[4 * c + 1]!) };
    if (kind === KIND_BASE) {
      if (base < 0) base = c;
    } else if (variant < 0) variant = c;
  }
  const chosen = base >= 0 ? base : variant;
  if (chosen < 0) return null;
  return {
    localized_name: decodeUtf8(bytes, candidates[4 * chosen + 2]!, candidates[4 * chosen + 3]!),
    matched_locale: asciiText(bytes, candidates[4 * chosen]!, candidates[4 * chosen + 1]!),
  };
}
