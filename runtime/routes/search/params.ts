// Query parameters of the three search operations. Each check throws ApiError 400
// `Invalid query parameters: <name>: <problem>` (runtime/routes/params.ts), rendered by the HTTP
// layer in the operation's error shape. Checks run in a fixed order, so a request with several
// problems always gets the same message.
import { CITY_KINDS, isCityKind, type CityKind } from '../../engine/search/city-kind.js';
import type { SearchType } from '../../engine/search/context.js';
import { matchKey } from '../../text/normalise.js';
import { intParam, intSpec, invalidParam, numberParam, numberSpec, type NumberBounds } from '../params.js';
import type { ParamSpec, RequestContext } from '../types.js';

export const Q_MIN_CHARS = 2;
export const Q_MAX_CHARS = 100;
export const STATE_MAX_CHARS = 20;

export interface SearchText {
  /** Trimmed q. */
  raw: string;
  /** matchKey(raw). */
  key: string;
}

const Q_TOO_SHORT = `Search query must be at least ${Q_MIN_CHARS} characters`;

/** `q`: required, 2 to 100 characters (code points) after trimming. */
export function searchText(ctx: RequestContext): SearchText {
  const raw = (ctx.query.get('q') ?? '').trim();
  let length = 0;
  for (const _ of raw) length++;
  if (length < Q_MIN_CHARS) throw invalidParam('q', Q_TOO_SHORT);
  if (length > Q_MAX_CHARS) throw invalidParam('q', `Search query must be at most ${Q_MAX_CHARS} characters, found ${length}`);
  return { raw, key: matchKey(raw) };
}

/** `type`: city (default), state or country; case-insensitive. */
export function searchType(ctx: RequestContext): SearchType {
  const raw = ctx.query.get('type');
  if (raw === undefined) return 'city';
  const value = raw.trim().toLowerCase();
  if ((SEARCH_TYPES as readonly string[]).includes(value)) return value as SearchType;
  throw invalidParam('type', `must be one of ${SEARCH_TYPES.join(', ')}, found '${raw}'`);
}

/** Nearby's `type`: the search types, and postcode (postcodes with coordinates). */
export type NearbyType = SearchType | 'postcode';

/** Nearby's `type`: city (default), state, country or postcode; case-insensitive. */
export function nearbyType(ctx: RequestContext): NearbyType {
  const raw = ctx.query.get('type');
  if (raw === undefined) return 'city';
  const value = raw.trim().toLowerCase();
  if (value === 'city' || value === 'state' || value === 'country' || value === 'postcode') return value;
  throw invalidParam('type', `must be one of city, state, country, postcode, found '${raw}'`);
}

const ALPHA2_RE = /^[A-Za-z]{2}$/;

/** `country`: an alpha-2 code (upper-cased); not with type=country. */
export function countryFilter(ctx: RequestContext, type: NearbyType): string | null {
  const raw = ctx.query.get('country');
  if (raw === undefined) return null;
  if (type === 'country') throw invalidParam('country', 'country is not a valid filter when type=country');
  const value = raw.trim();
  if (!ALPHA2_RE.test(value)) throw invalidParam('country', `must be a 2-letter ISO 3166-1 alpha-2 code (e.g. US), found '${raw}'`);
  return value.toUpperCase();
}

/** `state`: 1 to 20 characters; only with type=city, and only together with country. */
export function stateFilter(ctx: RequestContext, type: NearbyType, country: string | null): string | null {
  const raw = ctx.query.get('state');
  if (raw === undefined) return null;
  if (type !== 'city') throw invalidParam('state', 'state is only a valid filter when type=city');
  if (country === null) throw invalidParam('state', 'country is required when filtering by state');
  const value = raw.trim();
  let length = 0;
  for (const _ of value) length++;
  if (length < 1 || length > STATE_MAX_CHARS) throw invalidParam('state', `must be 1 to ${STATE_MAX_CHARS} characters (a state code, e.g. CA), found ${length}`);
  return value.toUpperCase();
}

/** `kind`: only with type=city; one of settlement, administrative, section, unknown. */
export function kindFilter(ctx: RequestContext, type: NearbyType): CityKind | null {
  const raw = ctx.query.get('kind');
  if (raw === undefined) return null;
  if (type !== 'city') throw invalidParam('kind', 'kind is only a valid filter when type=city');
  const value = raw.trim().toLowerCase();
  if (!isCityKind(value)) throw invalidParam('kind', `must be one of ${CITY_KINDS.join(', ')}, found '${raw}'`);
  return value;
}

export function limitParam(ctx: RequestContext, max: number, fallback: number): number {
  return intParam(ctx, 'limit', { min: 1, max, fallback })!;
}

export const THRESHOLD: NumberBounds = { min: 0.1, max: 1, fallback: 0.3 };
export const RADIUS_KM: NumberBounds = { min: 1, max: 500, fallback: 25 };
export const SEARCH_TYPES = ['city', 'state', 'country'] as const;

/** `threshold`: 0.1 to 1, default 0.3. */
export function thresholdParam(ctx: RequestContext): number {
  return numberParam(ctx, 'threshold', THRESHOLD)!;
}

const DECIMAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;

/** `lat` / `lng`: required decimal degrees within ±limit. The spec's message, whatever the problem. */
export function coordinateParam(ctx: RequestContext, name: 'lat' | 'lng', limit: 90 | 180): number {
  const raw = ctx.query.get(name);
  const problem = `${name} must be between -${limit} and ${limit}`;
  if (raw === undefined || raw.trim() === '') throw invalidParam(name, `${problem} (required)`);
  const text = raw.trim();
  if (!DECIMAL_RE.test(text)) throw invalidParam(name, `${problem}, found '${raw}'`);
  const value = Number(text);
  if (!(value >= -limit && value <= limit)) throw invalidParam(name, problem);
  return value === 0 ? 0 : value; // -0 → 0, so "-0" and "0" share a cache entry
}

/** `radius`: kilometres, 1 to 500, default 25 (reverse lookup: 50). */
export function radiusParam(ctx: RequestContext, bounds: NumberBounds = RADIUS_KM): number {
  return numberParam(ctx, 'radius', bounds)!;
}

/** `min_population`: an integer ≥ 0 (0 = no filter); not with type=postcode (postcodes have no population). */
export function minPopulationParam(ctx: RequestContext, type: NearbyType = 'city'): number {
  const raw = ctx.query.get('min_population');
  if (raw === undefined) return 0;
  if (type === 'postcode') throw invalidParam('min_population', 'min_population is not a valid filter when type=postcode');
  const text = raw.trim();
  const value = /^\+?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value)) throw invalidParam('min_population', `must be an integer of 0 or more, found '${raw}'`);
  return value;
}

// ---- Declarations of the parameters above (ParamSpec), for the OpenAPI document. ----------------

export const Q_SPEC: ParamSpec = {
  name: 'q', in: 'query', type: 'string', required: true, minLength: Q_MIN_CHARS, maxLength: Q_MAX_CHARS,
  description: `Search text, ${Q_MIN_CHARS} to ${Q_MAX_CHARS} characters after trimming.`, example: 'San',
};
export const TYPE_SPEC: ParamSpec = {
  name: 'type', in: 'query', type: 'string', enum: SEARCH_TYPES, default: 'city', description: 'What to search (case-insensitive).',
};
export const COUNTRY_SPEC: ParamSpec = {
  name: 'country', in: 'query', type: 'string', pattern: ALPHA2_RE.source, description: 'Only places in this country (ISO 3166-1 alpha-2); not with type=country.', example: 'US',
};
export const STATE_SPEC: ParamSpec = {
  name: 'state', in: 'query', type: 'string', minLength: 1, maxLength: STATE_MAX_CHARS,
  description: 'Only cities of this state (its code, e.g. CA); with type=city and country only.', example: 'CA',
};
export const KIND_SPEC: ParamSpec = {
  name: 'kind', in: 'query', type: 'string', enum: CITY_KINDS, description: 'Only cities of this kind; with type=city only.',
};
export const THRESHOLD_SPEC = numberSpec('threshold', THRESHOLD, 'Minimum trigram similarity of a match.');
export const RADIUS_SPEC = numberSpec('radius', RADIUS_KM, 'Search radius in kilometres.');
export const MIN_POPULATION_SPEC: ParamSpec = {
  name: 'min_population', in: 'query', type: 'integer', minimum: 0, default: 0, description: 'Only places with at least this population (0: no filter).',
};
export const LAT_SPEC: ParamSpec = { name: 'lat', in: 'query', type: 'number', required: true, minimum: -90, maximum: 90, description: 'Latitude in decimal degrees.', example: '34.05' };
export const LNG_SPEC: ParamSpec = { name: 'lng', in: 'query', type: 'number', required: true, minimum: -180, maximum: 180, description: 'Longitude in decimal degrees.', example: '-118.24' };

/** `limit` with this operation's maximum and default (limitParam). */
export function limitSpec(max: number, fallback: number): ParamSpec {
  return intSpec('limit', { min: 1, max, fallback }, 'Most results returned.');
}
