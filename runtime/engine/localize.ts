// localized_name + matched_locale: the spec's fallback chain exact locale → base language →
// native → en, with matched_locale naming the step's source: the translation key used
// (`de-AT`, `de`, `zh-CN`), or `native`, or `en` (decisions.md).
//
// Stable API:
//   LOCALE_RE                      the accepted syntax (params.localeParam validates with it).
//   localizeName(locale, name, native, translations) → {localized_name, matched_locale}
//       translations: the record's JSON text, an already parsed object, or null.
//   parseTranslations(json) → Record<string,string> | null (never throws; bad JSON → null).
//
// Choices where the spec is silent (documented for users):
//   - keys compare case-insensitively (`pt-br` finds `pt-BR`); matched_locale is the stored key.
//   - base language: the key equal to the base (`de` for `de-AT`); when none, the first stored
//     regional variant of that language (`zh` → `zh-CN`), as a user asking for Chinese expects.
//   - `en` / `en-XX` resolve to the English name (matched_locale `en`) before native: the stored
//     name is English, and translations carry no `en` key.

export const LOCALE_RE = /^[A-Za-z]{2}(?:-[A-Za-z]{2,4})?$/;

export interface LocalizedName {
  localized_name: string;
  matched_locale: string;
}

export function parseTranslations(json: string | null | undefined): Record<string, string> | null {
  if (!json) return null;
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : null;
  } catch {
    return null;
  }
}

function usable(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

export function localizeName(
  locale: string,
  name: string,
  native: string | null | undefined,
  translations: string | Readonly<Record<string, string>> | null | undefined,
): LocalizedName {
  const wanted = locale.toLowerCase();
  const base = wanted.slice(0, 2);
  const table = typeof translations === 'string' ? parseTranslations(translations) : translations ?? null;
  if (table) {
    let baseKey: string | null = null;
    let variantKey: string | null = null;
    for (const key of Object.keys(table)) {
      if (!usable(table[key])) continue;
      const lower = key.toLowerCase();
      if (lower === wanted) return { localized_name: table[key], matched_locale: key };
      if (lower === base) baseKey ??= key;
      else if (variantKey === null && lower.startsWith(`${base}-`)) variantKey = key;
    }
    const chosen = baseKey ?? variantKey;
    if (chosen !== null) return { localized_name: table[chosen]!, matched_locale: chosen };
  }
  if (base === 'en') return { localized_name: name, matched_locale: 'en' };
  if (usable(native)) return { localized_name: native, matched_locale: 'native' };
  return { localized_name: name, matched_locale: 'en' };
}
