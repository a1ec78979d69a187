// One text normaliser for build and runtime: every key written into an index at build time
// and every query probing it at request time goes through the same functions.

// Letters that NFD does not decompose into base + mark but that users type without the stroke.
const SPECIAL_FOLDS: Record<string, string> = {
  'ß': 'ss', 'æ': 'ae', 'œ': 'oe', 'ø': 'o', 'đ': 'd', 'ð': 'd', 'ł': 'l', 'ı': 'i', 'þ': 'th', 'ħ': 'h', 'ŧ': 't', 'ŋ': 'n',
};
const SPECIAL_RE = /[ßæœøđðłıþħŧŋ]/g;
// Only the combining diacritics (U+0300–U+036F) go: they are what Latin, Greek and Cyrillic accents
// decompose into. Other marks carry meaning (Japanese voicing marks, Indic vowel signs) and stay.
const MARKS_RE = /[\u0300-\u036f]+/g;
const SPACES_RE = /\s+/gu;

/**
 * The diacritic-insensitive matching form used by q filters, autocomplete and prefix keys:
 * `São Paulo` → `sao paulo`, `Zürich` → `zurich`, `Łódź` → `lodz`.
 */
export function matchKey(text: string): string {
  // Printable ASCII (most queries): NFKD and NFC leave it as it is, no marks, no special folds,
  // and the only whitespace is the space.
  if (PRINTABLE_ASCII_RE.test(text)) {
    const lower = text.toLowerCase();
    return (lower.includes('  ') ? lower.replace(SPACE_RUNS_RE, ' ') : lower).trim();
  }
  return matchKeyOfAnyText(text);
}

const PRINTABLE_ASCII_RE = /^[\x20-\x7e]*$/;
const SPACE_RUNS_RE = / {2,}/g;

/** matchKey without its ASCII shortcut (the reference the shortcut is tested against). */
export function matchKeyOfAnyText(text: string): string {
  let folded = text.normalize('NFKD').toLowerCase().replace(MARKS_RE, '');
  if (SPECIAL_RE.test(folded)) folded = folded.replace(SPECIAL_RE, (ch) => SPECIAL_FOLDS[ch] ?? ch);
  SPECIAL_RE.lastIndex = 0;
  return folded.normalize('NFC').replace(SPACES_RE, ' ').trim();
}

/** Trim, upper-case and collapse inner whitespace runs: the form the spec echoes as `meta.query`. */
export function postcodeDisplayQuery(code: string): string {
  return code.trim().replace(SPACES_RE, ' ').toUpperCase();
}

/** Postcode lookup key: upper case with every space removed, so `SW1A1AA` finds `SW1A 1AA`. */
export function postcodeKey(code: string): string {
  return code.replace(SPACES_RE, '').toUpperCase();
}

/** Case-folding of the postcode `state_code` filter, shared by the filter index builder and the request parser. */
export function stateCodeKey(stateCode: string): string {
  return stateCode.toUpperCase();
}

/** Case-folding of the postcode `type` filter, shared by the filter index builder and the request parser. */
export function postcodeTypeKey(type: string): string {
  return type.toLowerCase();
}
