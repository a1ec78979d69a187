// PostgreSQL's unaccent() with the extension's default rules (unaccent.rules of PostgreSQL 15,
// embedded by scripts/unaccent-table.mjs): each character with a rule is replaced (or removed),
// every other one kept. The fuzzy match_score is the higher of similarity(q, name) and
// similarity(unaccent(q), unaccent(name)) (decisions.md), so `Zurch` finds Zürich.
import { similarity } from './trigram.js';
import { UNACCENT_RULES } from './unaccent-rules.js';

const replacements = new Map<number, string>();
for (const item of UNACCENT_RULES.split('\n')) {
  const colon = item.indexOf(':');
  replacements.set(parseInt(item.slice(0, colon), 36), item.slice(colon + 1));
}
let lowest = Infinity;
for (const cp of replacements.keys()) lowest = Math.min(lowest, cp);

/** unaccent(text) as PostgreSQL 15 computes it with the default rules. */
export function unaccent(text: string): string {
  let i = 0;
  const length = text.length;
  // Most names need nothing: return the same string without building a new one.
  for (; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= lowest && (replacements.has(unit) || (unit >= 0xd800 && unit < 0xdc00 && replacements.has(text.codePointAt(i)!)))) break;
  }
  if (i === length) return text;
  let out = text.slice(0, i);
  while (i < length) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const replacement = replacements.get(cp);
    out += replacement ?? text.slice(i, i + width);
    i += width;
  }
  return out;
}

/**
 * The fuzzy match_score of `text` for query `q` (decisions.md): the higher of pg_trgm's
 * similarity(q, text) and similarity(unaccent(q), unaccent(text)) — PostgreSQL's
 * `greatest(similarity(q, text), similarity(unaccent(q), unaccent(text)))`, a float4.
 */
export function matchSimilarity(q: string, text: string): number {
  const plain = similarity(q, text);
  const uq = unaccent(q);
  const utext = unaccent(text);
  return uq === q && utext === text ? plain : Math.max(plain, similarity(uq, utext));
}
