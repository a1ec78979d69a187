// Projection of a record onto a caller's tier (+ optional `fields` selection) and the JSON
// serialiser for large lists (fixed-shape projected objects through V8's JSON.stringify; measured
// below). The field lists themselves are in ./fields.ts.
//
//   Tier order           TIER_RANK[tier]: basic 0 < coordinates 1 < full 2.
//   defineEntityFields(entity, defs) → EntityFields (ordered FieldDef[] + byName).
//   projectionFor(set, tier, {fields?, includeTranslations?, localized?, extra?}) → Projection
//       - tier: the caller's tier (countries: pass caller.countryTier, which is 'basic' | 'full').
//       - fields: names already validated by params.fieldsParam (unknown names are a 400 there);
//         `id` is always included (sets that have one); names above the tier are dropped (absent,
//         not null).
//       - onRequest fields (translations of countries/regions/subregions) appear only when named in
//         `fields` or includeTranslations is true (and the tier allows them).
//       - localized: adds localized_name, matched_locale (computed) when the tier allows them.
//       - extra: further computed names appended last (search: match_score, distance_km …).
//       Built once per (set, tier, options) and shared (frozen): never mutate one.
//   serializeObject(projection, object) → JSON text of one object; serializeList(projection, count, at)
//       → JSON array text. JSON.stringify semantics: undefined → key ABSENT, null → null,
//       non-finite numbers → null, objects (currency) nested.
//   projectObject(projection, object) → plain object with only the projected keys (for JSON.stringify
//       or further mutation).
//   sortableFields(set) → names `sort` accepts; isFieldInTier(set, name, tier); sortableNames(set, tier) → both.
import type { Tier } from '../contract/index.js';

export const TIER_RANK: Readonly<Record<Tier, number>> = { basic: 0, coordinates: 1, full: 2 };

export interface FieldDef {
  readonly name: string;
  /** Lowest tier that receives the field. */
  readonly tier: Tier;
  /** Only returned when named in `fields` or when include_translations=true. */
  readonly onRequest?: boolean;
  /** Computed per request (localized_name, matched_locale): never read from the record. */
  readonly computed?: boolean;
  /** How `sort` compares the values: numbers, decimal text as numbers, folded text; 'none' = not sortable (objects). */
  readonly sortAs: 'number' | 'text' | 'none';
}

export interface EntityFields {
  readonly entity: string;
  readonly fields: readonly FieldDef[];
  readonly byName: ReadonlyMap<string, FieldDef>;
  /** Names `sort` accepts, in the order error messages list them (decisions.md per entity). */
  readonly sortable: readonly string[];
}

type FieldSpec = [name: string, tier: Tier, sortAs?: 'number' | 'text' | 'none', flags?: 'onRequest' | 'computed'];

/**
 * A field list. `sortable`: the names `sort` accepts (decisions.md lists them per entity); by
 * default every stored field that has an order (not computed, not 'none').
 */
export function defineEntityFields(entity: string, specs: readonly FieldSpec[], sortable?: readonly string[]): EntityFields {
  const fields: FieldDef[] = specs.map(([name, tier, sortAs, flag]) => ({
    name,
    tier,
    sortAs: sortAs ?? 'text',
    ...(flag === 'onRequest' ? { onRequest: true } : {}),
    ...(flag === 'computed' ? { computed: true } : {}),
  }));
  if (fields.some((f, i) => f.name === 'id' && i !== 0)) throw new Error(`field list of ${entity}: id must come first`);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const sortableNames = sortable ?? fields.filter((f) => !f.computed && f.sortAs !== 'none').map((f) => f.name);
  for (const name of sortableNames) {
    const field = byName.get(name);
    if (field === undefined || field.computed || field.sortAs === 'none') throw new Error(`field list of ${entity}: sortable field ${name} must be a stored field with an order`);
  }
  return { entity, fields, byName, sortable: Object.freeze([...sortableNames]) };
}

export interface ProjectionOptions {
  /** Requested names (validated); null/undefined = every field of the tier. */
  fields?: readonly string[] | null;
  includeTranslations?: boolean;
  /** A locale was supplied and is honoured: add localized_name, matched_locale. */
  localized?: boolean;
  /** Computed names appended after the entity's fields, included whenever the object holds a value. */
  extra?: readonly string[];
}

export interface Projection {
  readonly names: readonly string[];
  /** names joined by ','. */
  readonly key: string;
  /**
   * Unique per projection object (projectionFor hands out the same object for the same tier and
   * options): a short memo key part. Same id ⇒ same names.
   */
  readonly id: number;
  /**
   * Copies the projected keys of an object into a new object with one fixed shape (a function
   * compiled per projection: monomorphic objects keep JSON.stringify on its fast path; undefined
   * values are then left out by JSON.stringify itself).
   */
  readonly project: (object: object) => Record<string, unknown>;
}

/** Per field list: default projections by (tier, flags) slot, others by a key of their options. */
interface ProjectionCache {
  defaults: (Projection | undefined)[];
  byOptions: Map<string, Projection>;
}

const projectionCaches = new WeakMap<EntityFields, ProjectionCache>();
/** Distinct `fields` selections kept per field list; the cache starts over when full. */
const PROJECTION_CACHE_LIMIT = 512;

/**
 * The projection of `set` for a caller's tier and options. Projections are compiled functions, so
 * each distinct (tier, options) is built once and then shared: callers must not mutate them.
 */
export function projectionFor(set: EntityFields, tier: Tier, options: ProjectionOptions = {}): Projection {
  let cache = projectionCaches.get(set);
  if (cache === undefined) {
    cache = { defaults: [], byOptions: new Map() };
    projectionCaches.set(set, cache);
  }
  const flags = (options.includeTranslations ? 1 : 0) | (options.localized ? 2 : 0);
  // An empty `fields` list is a selection (id only), not the default.
  const hasFields = options.fields !== null && options.fields !== undefined;
  const hasExtra = options.extra !== undefined && options.extra.length > 0;
  if (!hasFields && !hasExtra) {
    // The common case (no fields, no extras): an array slot, no key to build.
    const slot = TIER_RANK[tier] * 4 + flags;
    let projection = cache.defaults[slot];
    if (projection === undefined) {
      projection = buildProjection(set, tier, options);
      cache.defaults[slot] = projection;
    }
    return projection;
  }
  const key = `${tier}|${flags}|${hasFields ? options.fields!.join(',') : '*'}|${hasExtra ? options.extra!.join(',') : ''}`;
  let projection = cache.byOptions.get(key);
  if (projection === undefined) {
    projection = buildProjection(set, tier, options);
    if (cache.byOptions.size >= PROJECTION_CACHE_LIMIT) cache.byOptions.clear();
    cache.byOptions.set(key, projection);
  }
  return projection;
}

function buildProjection(set: EntityFields, tier: Tier, options: ProjectionOptions): Projection {
  const rank = TIER_RANK[tier];
  const requested = options.fields ? new Set(options.fields) : null;
  const names: string[] = [];
  for (const field of set.fields) {
    if (TIER_RANK[field.tier] > rank) continue;
    if (field.computed) {
      if (options.localized) names.push(field.name);
      continue;
    }
    if (field.name === 'id') {
      names.push('id');
      continue;
    }
    if (field.onRequest) {
      if (requested?.has(field.name) || options.includeTranslations) names.push(field.name);
      continue;
    }
    if (!requested || requested.has(field.name)) names.push(field.name);
  }
  for (const name of options.extra ?? []) if (!names.includes(name)) names.push(name);
  return makeProjection(names);
}

/** A projection over explicit names, in the given order. */
export function makeProjection(names: readonly string[]): Projection {
  // Names are JSON-quoted into the source, so any field name is safe here.
  const literal = names.map((name) => `${JSON.stringify(name)}: o[${JSON.stringify(name)}]`).join(', ');
  const project = new Function('o', `return { ${literal} };`) as (object: object) => Record<string, unknown>;
  const key = names.join(',');
  return Object.freeze({ names: Object.freeze([...names]), key, id: ++lastProjectionId, project });
}

/** Never reused, so a memo entry keyed by an id always belongs to that projection's names. */
let lastProjectionId = 0;

/** Names `sort` accepts for the entity, whatever the tier (decisions.md). */
export function sortableFields(set: EntityFields): readonly string[] {
  return set.sortable;
}

/** Whether a caller at `tier` receives the field. */
export function isFieldInTier(set: EntityFields, name: string, tier: Tier): boolean {
  const field = set.byName.get(name);
  return field !== undefined && TIER_RANK[field.tier] <= TIER_RANK[tier];
}

/** Names a caller at `tier` may sort by: the entity's sortable fields the tier returns. */
export function sortableNames(set: EntityFields, tier: Tier): string[] {
  return set.sortable.filter((name) => isFieldInTier(set, name, tier));
}

// Measured on the 16.7k US cities (full tier, 5 MB): JSON.stringify over objects from the
// compiled projector takes 16–44 ms against 70–170 ms for string building per value, so the
// serialiser is V8's own over fixed-shape objects.

export function serializeObject(projection: Projection, object: object): string {
  return JSON.stringify(projection.project(object));
}

/** JSON array of `count` objects produced by `at(i)`. */
export function serializeList(projection: Projection, count: number, at: (index: number) => object): string {
  if (count === 0) return '[]';
  const items: Record<string, unknown>[] = new Array(count);
  for (let i = 0; i < count; i++) items[i] = projection.project(at(i));
  return JSON.stringify(items);
}

/** Plain object with only the projected keys that hold a value (undefined ones left out). */
export function projectObject(projection: Projection, object: object): Record<string, unknown> {
  const source = object as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const name of projection.names) {
    const value = source[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
