// Postcode exact lookup and cursor-paginated search (spec: GET /v1/countries/{countryCode}/postcodes[/{code}]).
// Both answer in error shape B. Decisions where the spec is silent:
// - `fields` is accepted on the lookup too, behind the policy's fieldsFiltering gate for
//   postcodeLookup (data/policy.json: Starter+ by default, as on other operations; the list
//   overrides it to Supporter+).
// - `sort` on the list is a 400: the order is always code, then id, and silently ignoring it
//   would let a client believe its order was applied. Other unknown parameters are ignored.
// - Lookup: codes match on postcodeKey (spaces removed, case ignored); when some of the matches
//   are spelled exactly like the query (spaces collapsed, case ignored), only those are returned.
// - q: a code matches when postcodeKey(code) starts with postcodeKey(matchKey(q)); a locality when
//   matchKey(locality) contains matchKey(q) (case- and accent-insensitive, decisions.md).
// - A cursor may be sent with all of its filters (q, state_code, city_id, type) or with none of
//   them; anything else (a different value, a filter added or left out) is a filter mismatch.
//   The limit may change between pages. Check order: signature/format and dataVersion (invalid),
//   age (expired), country, filters.
// - Cache-Control is `private` on both operations: bodies depend on the key's plan (field tier),
//   so shared caches must not store them (the spec says `public` for the list).
// - Response cache (the HTTP layer's, keyed by the request's inputs): lookups are kept 24 h, list
//   pages 1 h. A list page served from it carries the next_cursor issued when it was rendered (at
//   most 1 h older). Errors are never cached: cursors and filters are checked on every request.
import { ApiError } from '../../contract/index.js';
import { sameFilters, type PostcodeFilters } from '../../engine/postcodes/engine.js';
import { POSTCODE_FIELDS, postcodeProjection, postcodeRowsBody, serializePostcodes } from '../../render/postcodes.js';
import type { Projection } from '../../render/projection.js';
import { postcodeDisplayQuery, postcodeTypeKey, stateCodeKey } from '../../text/normalise.js';
import { fieldsParam, fieldsSpec, intParam, intSpec, invalidParam, pathSpec, qParam, qSpec } from '../params.js';
import { rendered, type Operation, type ParamSpec, type RequestContext } from '../types.js';
import { CursorCodec, CursorError, cursorSecretsFromEnv, type CursorSecrets } from './cursor.js';

export const POSTCODE_CODE_MAX_CHARS = 20;
export const POSTCODE_LIMIT = { min: 1, max: 100, fallback: 50 } as const;
export const LOOKUP_TTL_MS = 24 * 60 * 60 * 1000;
export const LIST_TTL_MS = 60 * 60 * 1000;
const LOOKUP_HEADERS: Record<string, string> = Object.freeze({ 'Cache-Control': 'private, max-age=86400' });
const LIST_HEADERS: Record<string, string> = Object.freeze({ 'Cache-Control': 'private, max-age=3600' });

const COUNTRY_CODE_RE = /^[A-Za-z]{2}$/;
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;
const STATE_CODE_RE = /^[A-Za-z0-9-]{1,255}$/;
const CITY_ID_RE = /^\d{1,15}$/;
const TYPE_RE = /^[A-Za-z0-9_-]{1,32}$/;

export const POSTCODE_Q = { min: 2, max: 100 } as const;
const COUNTRY_CODE_PATH = pathSpec('countryCode', 'ISO 3166-1 alpha-2 code (any case); alpha-3 codes and numeric ids are refused.', 'US', { pattern: COUNTRY_CODE_RE.source });
// Secrets come from GEOAPI_CURSOR_SECRET(_PREVIOUS) through the configuration (runtime/config.ts,
// routes/registry.ts configureOperations); until then, a random per-process secret.
let cursorCodec = new CursorCodec(cursorSecretsFromEnv({}));
let warnedEphemeral = false;

/** Replaces the cursor secrets (configuration, tests); until then they are random per process. */
export function configurePostcodeCursors(secrets: CursorSecrets): void {
  cursorCodec = new CursorCodec(secrets);
}

function cursors(): CursorCodec {
  if (cursorCodec.ephemeral && !warnedEphemeral) {
    warnedEphemeral = true;
    console.warn('geoapi: GEOAPI_CURSOR_SECRET is not set; postcode cursors are signed with a random per-process secret and stop working after a restart or on another replica.');
  }
  return cursorCodec;
}

function echo(value: string): string {
  return JSON.stringify(value.length > 24 ? `${value.slice(0, 24)}…` : value);
}

function countryCodeParam(ctx: RequestContext): string {
  const raw = ctx.params.countryCode ?? '';
  if (!COUNTRY_CODE_RE.test(raw)) {
    throw new ApiError(400, `countryCode must be a 2-letter ISO code (ISO 3166-1 alpha-2, e.g. US); alpha-3 codes and numeric ids are not accepted, found ${echo(raw)}.`);
  }
  return raw.toUpperCase();
}

/** The trimmed code, validated as the spec's path rules say. */
function codeParam(ctx: RequestContext): string {
  const code = (ctx.params.code ?? '').trim();
  if (code === '') throw new ApiError(400, 'Postcode must not be empty.');
  const chars = [...code].length;
  if (chars > POSTCODE_CODE_MAX_CHARS) throw new ApiError(400, `Postcode must be at most ${POSTCODE_CODE_MAX_CHARS} characters, found ${chars}.`);
  if (code.includes('/') || code.includes('\\')) throw new ApiError(400, 'Postcode must not contain "/" or "\\".');
  if (CONTROL_RE.test(code)) throw new ApiError(400, 'Postcode must not contain control characters.');
  return code;
}

function notFound(reason: 'country_not_found' | 'postcode_coverage_unavailable' | 'postcode_not_found', countryCode: string): ApiError {
  const messages = {
    country_not_found: 'Country not found.',
    postcode_coverage_unavailable: `No postcode data is available for ${countryCode}.`,
    postcode_not_found: `Postcode not found in ${countryCode}.`,
  };
  return new ApiError(404, messages[reason], { reason });
}

const postcodeLookup: Operation = {
  name: 'postcodeLookup',
  path: '/v1/countries/:countryCode/postcodes/:code',
  errorShape: 'B',
  params: [
    COUNTRY_CODE_PATH,
    pathSpec('code', `The postcode, 1 to ${POSTCODE_CODE_MAX_CHARS} characters (spaces and case ignored when matching).`, '90210', { maxLength: POSTCODE_CODE_MAX_CHARS }),
    fieldsSpec(POSTCODE_FIELDS),
  ],
  doc: { tag: 'Postcodes', summary: 'Exact postcode lookup', response: { schema: 'postcode-lookup' }, statuses: [304, 400, 404] },
  handle(ctx) {
    const countryCode = countryCodeParam(ctx);
    const code = codeParam(ctx);
    const fields = fieldsParam(ctx, POSTCODE_FIELDS);
    const engine = ctx.engine.postcodes;
    const query = postcodeDisplayQuery(code);
    const tier = ctx.caller.tier;
    // The outcome is computed before the cache so errors are never cached (they are cheap).
    const outcome = engine.lookup(countryCode, code);
    if (outcome.kind !== 'found') throw notFound(outcome.kind, countryCode);
    return rendered(() => {
      const meta = JSON.stringify({ country_code: countryCode, query, match_count: outcome.rows.length });
      return postcodesBody(ctx, postcodeProjection(tier, fields), outcome.rows, '{"data":', `,"meta":${meta}}`);
    }, LOOKUP_HEADERS, LOOKUP_TTL_MS);
  },
};

/** The filters named in the query, normalised; null when the request names none. */
function requestFilters(ctx: RequestContext): PostcodeFilters | null {
  const q = qParam(ctx, POSTCODE_Q);
  const stateCodeRaw = ctx.query.get('state_code');
  if (stateCodeRaw !== undefined && !STATE_CODE_RE.test(stateCodeRaw)) {
    throw invalidParam('state_code', `must be 1 to 255 letters, digits or hyphens (e.g. CA), found ${echo(stateCodeRaw)}`);
  }
  const cityIdRaw = ctx.query.get('city_id');
  if (cityIdRaw !== undefined && (!CITY_ID_RE.test(cityIdRaw) || Number(cityIdRaw) < 1)) {
    throw invalidParam('city_id', `must be a positive integer of at most 15 digits (e.g. 1234), found ${echo(cityIdRaw)}`);
  }
  const typeRaw = ctx.query.get('type');
  if (typeRaw !== undefined && !TYPE_RE.test(typeRaw)) {
    throw invalidParam('type', `must be 1 to 32 letters, digits, _ or - (e.g. full, po_box), found ${echo(typeRaw)}`);
  }
  if (q === null && stateCodeRaw === undefined && cityIdRaw === undefined && typeRaw === undefined) return null;
  return {
    q: q?.key ?? null,
    stateCode: stateCodeRaw === undefined ? null : stateCodeKey(stateCodeRaw),
    cityId: cityIdRaw === undefined ? null : Number(cityIdRaw),
    type: typeRaw === undefined ? null : postcodeTypeKey(typeRaw),
  };
}

const NO_FILTERS: PostcodeFilters = { q: null, stateCode: null, cityId: null, type: null };

const postcodeSearch: Operation = {
  name: 'postcodeSearch',
  path: '/v1/countries/:countryCode/postcodes',
  errorShape: 'B',
  params: [
    COUNTRY_CODE_PATH,
    fieldsSpec(POSTCODE_FIELDS),
    { name: 'sort', in: 'query', type: 'string', description: 'Not accepted (400): postcodes are always ordered by code, then id.' },
    intSpec('limit', POSTCODE_LIMIT, 'Postcodes per page.'),
    { ...qSpec(POSTCODE_Q), description: 'Codes starting with, or localities containing, this text (case- and accent-insensitive).', example: '90' },
    { name: 'state_code', in: 'query', type: 'string', pattern: STATE_CODE_RE.source, description: 'Only postcodes of this state code.', example: 'CA' },
    { name: 'city_id', in: 'query', type: 'string', pattern: CITY_ID_RE.source, description: 'Only postcodes of this city id (a positive integer).' },
    { name: 'type', in: 'query', type: 'string', pattern: TYPE_RE.source, description: 'Only postcodes of this type (e.g. full, po_box).' },
    { name: 'cursor', in: 'query', type: 'string', description: 'next_cursor of the previous page; send it alone or with exactly the same filters.' },
  ] satisfies ParamSpec[],
  doc: { tag: 'Postcodes', summary: 'Search postcodes of a country, a page at a time', response: { schema: 'postcode-list' }, statuses: [304, 400, 404] },
  handle(ctx) {
    const countryCode = countryCodeParam(ctx);
    if (ctx.query.has('fields')) ctx.requireFeature('fieldsFiltering');
    if (ctx.query.has('sort')) {
      throw invalidParam('sort', 'postcodes are always ordered by code, then id; this operation has no sort parameter');
    }
    const fields = fieldsParam(ctx, POSTCODE_FIELDS);
    const limit = intParam(ctx, 'limit', POSTCODE_LIMIT)!;
    const named = requestFilters(ctx);
    const cursorText = ctx.query.get('cursor');

    const engine = ctx.engine.postcodes;
    const countryRow = engine.countryRow(countryCode);
    if (countryRow < 0) throw notFound('country_not_found', countryCode);

    let filters = named ?? NO_FILTERS;
    let afterRow: number | null = null;
    const nowMs = ctx.now.getTime();
    if (cursorText !== undefined) {
      let state;
      try {
        state = cursors().decode(cursorText, { dataVersion: engine.dataVersion, nowMs });
      } catch (error) {
        if (error instanceof CursorError) throw new ApiError(400, error.message);
        throw error;
      }
      if (state.country !== countryCode) throw new ApiError(400, new CursorError('country').message);
      if (named !== null && !sameFilters(named, state.filters)) throw new ApiError(400, new CursorError('filters').message);
      const [start, end] = engine.countryRange(countryRow);
      if (state.lastRow < start || state.lastRow >= end) throw new ApiError(400, new CursorError('invalid').message);
      filters = state.filters;
      afterRow = state.lastRow;
    }

    const tier = ctx.caller.tier;
    return rendered(() => {
      const page = engine.search({ countryRow, filters, afterRow, limit });
      const nextCursor = page.hasMore
        ? cursors().encode({ country: countryCode, dataVersion: engine.dataVersion, filters, lastRow: page.rows[page.rows.length - 1]!, issuedAtMs: nowMs })
        : null;
      return postcodesBody(ctx, postcodeProjection(tier, fields), page.rows, '{"data":', `,"pagination":${JSON.stringify({ limit, next_cursor: nextCursor, has_more: page.hasMore })}}`);
    }, LIST_HEADERS, LIST_TTL_MS);
  },
};

/** `prefix`, the rows' records as a JSON array, `suffix`: written from the rows' bytes where the table has them. */
function postcodesBody(ctx: RequestContext, projection: Projection, rows: readonly number[], prefix: string, suffix: string): string | Uint8Array {
  const table = ctx.store.postcodes;
  const rowBytes = table.rowBytes;
  if (rowBytes !== null) return postcodeRowsBody(rowBytes, projection, rows, prefix, suffix);
  return `${prefix}${serializePostcodes(projection, rows.map((row) => table.record(row)))}${suffix}`;
}

/** Postcode exact lookup and cursor-paginated search. */
export const postcodeOperations: Operation[] = [postcodeLookup, postcodeSearch];
