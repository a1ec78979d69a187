// Parsing and validation of the shared query parameters. Every problem is an ApiError(400) with a
// message `Invalid query parameters: <name>: <problem>`; the HTTP layer renders it in the
// operation's error shape. Plan checks go through ctx (the policy file maps features to plans,
// with per-operation overrides):
//   fields → requireFeature('fieldsFiltering'), sort → requireFeature('sortParameter'),
//   q → requireFeature('searchEndpoint')   (403 below the plan)
//   locale, include_translations → hasFeature('localization'); silently ignored below the plan,
//   but a malformed value is a 400 on every plan.
//
// Stable API:
//   invalidParam(name, problem) → ApiError 400 'Invalid query parameters: name: problem'
//   fieldsParam(ctx, set, feature?) → string[] | null       (validated names; id always added; empty = absent)
//   sortParam(ctx, set, tier, feature?) → SortKey[] | null   (sortable fields of the tier; empty = absent)
//   pageParams(ctx) → Page | null                            (limit/offset of cursor-less lists)
//   localeParam(ctx, feature?) → string | null               (null when absent or not honoured)
//   includeTranslationsParam(ctx, feature?) → boolean        (false when not honoured)
//   qParam(ctx, {min, max, feature?, name?}) → QFilter | null;  matchesQ(q, name, native)
//   intParam(ctx, name, {min, max, fallback}) / numberParam(ctx, name, {min, max, fallback})
//   listParams(ctx, set, tier, {q?, localized?}) → ListParams   (all of the above for list ops)
import { LOCALE_RE } from '../engine/localize.js';
import type { EntityFields } from '../render/projection.js';
import { isFieldInTier, sortableFields, sortableNames } from '../render/projection.js';
import type { SortKey } from '../engine/sort.js';
import { matchKey } from '../text/normalise.js';
import { ApiError, type Tier } from '../contract/index.js';
import type { ParamSpec, RequestContext } from './types.js';

export type { SortKey } from '../engine/sort.js';

export function invalidParam(name: string, problem: string): ApiError {
  return new ApiError(400, `Invalid query parameters: ${name}: ${problem}`);
}

function present(ctx: RequestContext, name: string): string | undefined {
  return ctx.query.get(name);
}

function splitList(raw: string): string[] {
  return raw.split(',').map((part) => part.trim());
}

/** Non-empty, trimmed tokens of a comma-separated list (`a, ,b` → [a, b]). */
function tokensOf(raw: string): string[] {
  return splitList(raw).filter((part) => part !== '');
}

/**
 * `fields=a,b` (decisions.md "fields and sort"): names of the entity at any tier (names above the
 * caller's tier are dropped later by the projection); `id` added. Empty (`fields=`, `fields= ,`)
 * is as if absent, after the plan gate. Unknown names: 400 `Unknown field(s): X. Valid fields: …`.
 */
export function fieldsParam(ctx: RequestContext, set: EntityFields, feature = 'fieldsFiltering'): string[] | null {
  const raw = present(ctx, 'fields');
  if (raw === undefined) return null;
  ctx.requireFeature(feature);
  const names = tokensOf(raw);
  if (names.length === 0) return null;
  const unknown = names.filter((name) => !set.byName.has(name));
  if (unknown.length > 0) {
    throw new ApiError(400, `Unknown field(s): ${[...new Set(unknown)].join(', ')}. Valid fields: ${set.fields.map((f) => f.name).join(', ')}`);
  }
  const unique = [...new Set(names)];
  return unique.includes('id') || !set.byName.has('id') ? unique : ['id', ...unique];
}

/** One sort token: `field`, `field:asc`, `field:desc` (direction any case; spaces around the parts tolerated). */
const SORT_TOKEN_RE = /^([^:\s]+)\s*(?::\s*([^:\s]+))?$/;

/**
 * `sort=name,population:desc` (decisions.md "fields and sort"): each token a sortable field of the
 * entity (`sortableFields(set)`) that the caller's tier returns; earlier tokens win (a repeated
 * field adds nothing). Empty is as if absent, after the plan gate. Errors, all 400:
 * a bad token or direction, a field not sortable, a sortable field above the tier.
 */
export function sortParam(ctx: RequestContext, set: EntityFields, tier: Tier, feature = 'sortParameter'): SortKey[] | null {
  const raw = present(ctx, 'sort');
  if (raw === undefined) return null;
  ctx.requireFeature(feature);
  const tokens = tokensOf(raw);
  if (tokens.length === 0) return null;
  const sortable = sortableFields(set);
  const keys: SortKey[] = [];
  for (const token of tokens) {
    const match = SORT_TOKEN_RE.exec(token);
    const direction = match?.[2]?.toLowerCase();
    if (!match || (direction !== undefined && direction !== 'asc' && direction !== 'desc')) {
      throw new ApiError(400, `Invalid sort token "${token}". Expected "field" or "field:asc|desc".`);
    }
    const field = match[1]!;
    if (!sortable.includes(field)) {
      throw new ApiError(400, `Field "${field}" is not sortable. Sortable fields for ${set.entity}: ${sortable.join(', ')}`);
    }
    if (!isFieldInTier(set, field, tier)) throw new ApiError(400, `Field "${field}" is not available on your current plan.`);
    if (keys.some((k) => k.field === field)) continue;
    keys.push({ field, descending: direction === 'desc' });
  }
  return keys;
}

/** `locale=de-AT`: validated on every plan; returned only when the plan honours it. */
export function localeParam(ctx: RequestContext, feature = 'localization'): string | null {
  const raw = present(ctx, 'locale');
  if (raw === undefined) return null;
  if (!LOCALE_RE.test(raw)) {
    throw invalidParam('locale', `must be a language code with an optional subtag (e.g. de, pt-BR, zh-Hant), found '${raw}'`);
  }
  return ctx.hasFeature(feature) ? raw : null;
}

/** `include_translations=true|false|1|0`: validated on every plan; false when not honoured. */
export function includeTranslationsParam(ctx: RequestContext, feature = 'localization'): boolean {
  const raw = present(ctx, 'include_translations');
  if (raw === undefined) return false;
  const value = parseBoolean(raw);
  if (value === null) throw invalidParam('include_translations', `must be true, false, 1 or 0, found '${raw}'`);
  return value && ctx.hasFeature(feature);
}

export function parseBoolean(raw: string): boolean | null {
  const lower = raw.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  return null;
}

export interface QFilter {
  /** Trimmed text as sent. */
  raw: string;
  /** matchKey(raw): diacritic- and case-insensitive form compared with matchKey(name|native). */
  key: string;
}

export interface QBounds {
  min?: number;
  max?: number;
  feature?: string;
  name?: string;
}

/** Default bounds of `q` on the list operations (characters after trimming). */
export const Q_MIN_DEFAULT = 2;
export const Q_MAX_DEFAULT = 100;

/** `q`: 2 to 100 characters after trimming (code points). */
export function qParam(ctx: RequestContext, bounds: QBounds = {}): QFilter | null {
  const name = bounds.name ?? 'q';
  const raw = present(ctx, name);
  if (raw === undefined) return null;
  ctx.requireFeature(bounds.feature ?? 'searchEndpoint');
  const min = bounds.min ?? Q_MIN_DEFAULT;
  const max = bounds.max ?? Q_MAX_DEFAULT;
  const text = raw.trim();
  const length = [...text].length;
  if (length < min) throw invalidParam(name, `Search query must be at least ${min} characters`);
  if (length > max) throw invalidParam(name, `Search query must be at most ${max} characters`);
  const key = matchKey(text);
  if (key === '') throw invalidParam(name, 'Search query must contain letters or digits');
  return { raw: text, key };
}

/** Contains-match of q on the English name or the native name. */
export function matchesQ(q: QFilter, name: string, native: string | null | undefined): boolean {
  return matchKey(name).includes(q.key) || (!!native && matchKey(native).includes(q.key));
}

export interface NumberBounds {
  min: number;
  max: number;
  fallback?: number;
}

const INT_RE = /^[+-]?\d+$/;
const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export function intParam(ctx: RequestContext, name: string, bounds: NumberBounds): number | undefined {
  const raw = present(ctx, name);
  if (raw === undefined) return bounds.fallback;
  if (!INT_RE.test(raw)) throw invalidParam(name, `must be an integer between ${bounds.min} and ${bounds.max}, found '${raw}'`);
  const value = Number(raw);
  if (value < bounds.min || value > bounds.max) {
    throw invalidParam(name, `must be an integer between ${bounds.min} and ${bounds.max}, found ${raw}`);
  }
  return value;
}

export function numberParam(ctx: RequestContext, name: string, bounds: NumberBounds): number | undefined {
  const raw = present(ctx, name);
  if (raw === undefined) return bounds.fallback;
  if (!NUMBER_RE.test(raw)) throw invalidParam(name, `must be a number between ${bounds.min} and ${bounds.max}, found '${raw}'`);
  const value = Number(raw);
  if (!Number.isFinite(value) || value < bounds.min || value > bounds.max) {
    throw invalidParam(name, `must be a number between ${bounds.min} and ${bounds.max}, found ${raw}`);
  }
  return value;
}

export interface ListParams {
  fields: string[] | null;
  sort: SortKey[] | null;
  q: QFilter | null;
  /** Honoured locale, or null. */
  locale: string | null;
  includeTranslations: boolean;
  /** `limit`/`offset` of a cursor-less list, or null: the whole list. */
  page: Page | null;
  /** True when the reply is the operation's default body for the path and tier (memoizable). */
  plain: boolean;
}

/** A slice of a cursor-less list: `offset` rows skipped, at most `limit` returned. */
export interface Page {
  limit: number;
  offset: number;
}

export const PAGE_LIMIT_MAX = 1000;
const OFFSET_MAX = 1_000_000_000;

/**
 * `limit` (1–1000) and `offset` (≥ 0) of a list without a cursor (decisions.md): null when both
 * are absent (the whole list, as the spec says); with either, a page (limit 1000 unless given,
 * offset 0 unless given).
 */
export function pageParams(ctx: RequestContext): Page | null {
  const limit = intParam(ctx, 'limit', { min: 1, max: PAGE_LIMIT_MAX });
  const offset = intParam(ctx, 'offset', { min: 0, max: OFFSET_MAX });
  if (limit === undefined && offset === undefined) return null;
  return { limit: limit ?? PAGE_LIMIT_MAX, offset: offset ?? 0 };
}

export interface ListParamOptions {
  /** Accept `q` (with these bounds). */
  q?: QBounds | boolean;
  /** Accept `locale` and `include_translations` (countries, regions, subregions). */
  localized?: boolean;
  /** Accept `sort`, `limit` and `offset` (cursor-less lists). */
  sort?: boolean;
}

/** What listParams returns for an empty query (most requests): shared, so never mutate a ListParams. */
const PLAIN_PARAMS: ListParams = Object.freeze({ fields: null, sort: null, q: null, locale: null, includeTranslations: false, page: null, plain: true });

/** The shared list/detail parameters in one call; order of checks: 403 gates, then 400 values. */
export function listParams(ctx: RequestContext, set: EntityFields, tier: Tier, options: ListParamOptions = {}): ListParams {
  if (ctx.query.size === 0) return PLAIN_PARAMS;
  // Plan gates first, so a caller below the plan learns that before any value problem.
  if (ctx.query.has('fields')) ctx.requireFeature('fieldsFiltering');
  if (options.sort && ctx.query.has('sort')) ctx.requireFeature('sortParameter');
  if (options.q && ctx.query.has(options.q === true ? 'q' : options.q.name ?? 'q')) {
    ctx.requireFeature(options.q === true ? 'searchEndpoint' : options.q.feature ?? 'searchEndpoint');
  }
  const fields = fieldsParam(ctx, set);
  const sort = options.sort ? sortParam(ctx, set, tier) : null;
  const q = options.q ? qParam(ctx, options.q === true ? {} : options.q) : null;
  const locale = options.localized ? localeParam(ctx) : null;
  const includeTranslations = options.localized ? includeTranslationsParam(ctx) : false;
  const page = options.sort ? pageParams(ctx) : null;
  return { fields, sort, q, locale, includeTranslations, page, plain: !fields && !sort && !q && !locale && !page };
}

// ---- Declarations (ParamSpec) of the parameters parsed above, for the OpenAPI document. --------
// Each mirrors its parser: same names, same bounds constants, same features.

const TIERS: readonly Tier[] = ['basic', 'coordinates', 'full'];

/** `fields` of an entity (fieldsParam). */
export function fieldsSpec(set: EntityFields, feature = 'fieldsFiltering'): ParamSpec {
  return {
    name: 'fields',
    in: 'query',
    type: 'list',
    enum: set.fields.map((f) => f.name),
    feature,
    description: 'Comma-separated field names to return (id is always added); fields above your plan\'s tier are left out.',
    example: set.fields.slice(0, 2).map((f) => f.name).join(','),
  };
}

/** `sort` of an entity (sortParam): the sortable names per tier are listed in the description. */
export function sortSpec(set: EntityFields, feature = 'sortParameter'): ParamSpec {
  const byTier = TIERS.map((tier) => `${tier}: ${sortableNames(set, tier).join(', ')}`).join('; ');
  return {
    name: 'sort',
    in: 'query',
    type: 'string',
    feature,
    description: `field, field:asc or field:desc, comma-separated; only fields your tier returns (${byTier}).`,
    example: 'name',
  };
}

/** `q` (qParam) with these bounds. */
export function qSpec(bounds: QBounds = {}): ParamSpec {
  return {
    name: bounds.name ?? 'q',
    in: 'query',
    type: 'string',
    minLength: bounds.min ?? Q_MIN_DEFAULT,
    maxLength: bounds.max ?? Q_MAX_DEFAULT,
    feature: bounds.feature ?? 'searchEndpoint',
    description: 'Keeps the entries whose English or native name contains this text (case- and accent-insensitive).',
    example: 'an',
  };
}

/** `locale` (localeParam). */
export function localeSpec(feature = 'localization'): ParamSpec {
  return {
    name: 'locale',
    in: 'query',
    type: 'string',
    pattern: LOCALE_RE.source,
    feature,
    ignoredBelow: true,
    description: 'Adds localized_name and matched_locale in this language (e.g. de, pt-BR); ignored below the plan that includes localization.',
    example: 'de',
  };
}

/** `include_translations` (includeTranslationsParam). */
export function includeTranslationsSpec(feature = 'localization'): ParamSpec {
  return {
    name: 'include_translations',
    in: 'query',
    type: 'boolean',
    default: false,
    feature,
    ignoredBelow: true,
    description: 'true or 1 adds the translations object; ignored below the plan that includes localization.',
  };
}

/** What listParams(ctx, set, tier, options) reads, as declarations. */
export function listParamSpecs(set: EntityFields, options: ListParamOptions = {}): ParamSpec[] {
  const specs = [fieldsSpec(set)];
  if (options.sort) specs.push(sortSpec(set));
  if (options.q) specs.push(qSpec(options.q === true ? {} : options.q));
  if (options.localized) specs.push(localeSpec(), includeTranslationsSpec());
  if (options.sort) specs.push(...pageSpecs());
  return specs;
}

/** `limit` and `offset` of a cursor-less list (pageParams): a page, its total in X-GEOAPI-Total-Count. */
export function pageSpecs(): ParamSpec[] {
  return [
    { name: 'limit', in: 'query', type: 'integer', minimum: 1, maximum: PAGE_LIMIT_MAX, description: `Page size (with offset; default ${PAGE_LIMIT_MAX} when only offset is given). Without limit and offset: the whole list. The total is in X-GEOAPI-Total-Count.` },
    { name: 'offset', in: 'query', type: 'integer', minimum: 0, maximum: OFFSET_MAX, description: 'Rows to skip before the page (with limit).' },
  ];
}

/** A path parameter. */
export function pathSpec(name: string, description: string, example: string, extra: Partial<ParamSpec> = {}): ParamSpec {
  return { name, in: 'path', type: 'string', required: true, description, example, ...extra };
}

/** An integer query parameter parsed by intParam(ctx, name, bounds). */
export function intSpec(name: string, bounds: NumberBounds, description: string): ParamSpec {
  return { name, in: 'query', type: 'integer', minimum: bounds.min, maximum: bounds.max, ...(bounds.fallback === undefined ? {} : { default: bounds.fallback }), description };
}

/** A number query parameter parsed by numberParam(ctx, name, bounds). */
export function numberSpec(name: string, bounds: NumberBounds, description: string): ParamSpec {
  return { name, in: 'query', type: 'number', minimum: bounds.min, maximum: bounds.max, ...(bounds.fallback === undefined ? {} : { default: bounds.fallback }), description };
}
