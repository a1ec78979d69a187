// GET /v1/changes (decisions.md "Data changes"): the change feed, Business only (policy feature
// changeFeed), errors in shape B. Decisions where the text is silent:
// - start_date: `YYYY-MM-DD` (00:00 UTC) or an ISO date-time with `Z` or an offset; events with
//   changed_at at or after it.
// - country_code matches the place's country before or after the change (a state moved from FR
//   to BE is found with either); for countries, their own iso2.
// - next_page_token: send it alone or with exactly the filters it was issued for (limit may
//   change); otherwise 400 `cursor filters do not match this request.`. Tokens are signed with the
//   postcode cursor secrets; from another data version: 400 `cursor is invalid or has been
//   tampered with.`; older than 24 h: 400 `cursor has expired. …`.
// - An event whose changed fields are all above the caller's tier is still listed (with `{}`), so
//   a page holds the same events for every plan.
// - Cache-Control private, no-cache: the feed grows with each build; ETag per body and tier.
import { changeLogOf, changePage, sameChangeFilters, type ChangeFilters } from '../../engine/changes/feed.js';
import { renderChange } from '../../render/changes.js';
import { ChangeTokenCodec } from './token.js';
import { CursorError, type CursorSecrets } from '../signed-token.js';
import { CHANGE_TYPES, PLACE_TYPES } from '../../format/change-log.js';
import { ApiError } from '../../contract/index.js';
import { intParam, intSpec, invalidParam } from '../params.js';
import type { Operation, RequestContext } from '../types.js';

export const CHANGES_LIMIT = { min: 1, max: 100, fallback: 50 } as const;

// Signed with the postcode cursor secrets (configureOperations, routes/registry.ts); until then
// a random per-process secret.
let tokens: ChangeTokenCodec | null = null;
function tokenCodec(): ChangeTokenCodec {
  return (tokens ??= new ChangeTokenCodec());
}

/** Replaces the token secrets (configuration, tests). */
export function configureChangeTokens(secrets: CursorSecrets): void {
  tokens = new ChangeTokenCodec(secrets);
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function echo(value: string): string {
  return JSON.stringify(value.length > 32 ? `${value.slice(0, 32)}…` : value);
}

/** Milliseconds of `start_date`, or null when absent. */
export function parseStartDate(raw: string): number {
  const date = DATE_RE.exec(raw);
  const problem = `must be an ISO date (2026-01-31) or date-time (2026-01-31T12:00:00Z), found ${echo(raw)}`;
  if (date) {
    const ms = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    // Date.UTC rolls 2026-02-30 over into March: refuse dates that do not exist.
    if (new Date(ms).toISOString().slice(0, 10) !== raw) throw invalidParam('start_date', problem);
    return ms;
  }
  if (!DATE_TIME_RE.test(raw)) throw invalidParam('start_date', problem);
  const ms = Date.parse(raw);
  const [y, mo, d] = raw.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (Number.isNaN(ms) || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) throw invalidParam('start_date', problem);
  return ms;
}

function oneOf(ctx: RequestContext, name: string, allowed: readonly string[]): string | null {
  const raw = ctx.query.get(name);
  if (raw === undefined) return null;
  const value = raw.toLowerCase();
  if (!allowed.includes(value)) throw invalidParam(name, `must be one of ${allowed.join(', ')}, found ${echo(raw)}`);
  return value;
}

/** The filters named in the query, normalised; null when it names none. */
function requestFilters(ctx: RequestContext): ChangeFilters | null {
  const startRaw = ctx.query.get('start_date');
  const startMs = startRaw === undefined ? null : parseStartDate(startRaw);
  const placeType = oneOf(ctx, 'place_type', PLACE_TYPES);
  const changeType = oneOf(ctx, 'change_type', CHANGE_TYPES);
  const codeRaw = ctx.query.get('country_code');
  if (codeRaw !== undefined && !/^[A-Za-z]{2}$/.test(codeRaw)) {
    throw invalidParam('country_code', `must be a 2-letter ISO code (ISO 3166-1 alpha-2, e.g. US), found ${echo(codeRaw)}`);
  }
  const countryCode = codeRaw === undefined ? null : codeRaw.toUpperCase();
  if (startMs === null && placeType === null && changeType === null && countryCode === null) return null;
  return { startMs, placeType, countryCode, changeType };
}

const NO_FILTERS: ChangeFilters = { startMs: null, placeType: null, countryCode: null, changeType: null };

const changesList: Operation = {
  name: 'changesList',
  path: '/v1/changes',
  errorShape: 'B',
  params: [
    intSpec('limit', CHANGES_LIMIT, 'Events per page.'),
    { name: 'start_date', in: 'query', type: 'string', description: 'Events changed at or after this ISO date (2026-01-31, 00:00 UTC) or date-time with Z or an offset.', example: '2020-01-01' },
    { name: 'place_type', in: 'query', type: 'string', enum: PLACE_TYPES, description: 'Only events of this kind of place (case-insensitive).' },
    { name: 'change_type', in: 'query', type: 'string', enum: CHANGE_TYPES, description: 'Only events of this kind (case-insensitive).' },
    { name: 'country_code', in: 'query', type: 'string', pattern: '^[A-Za-z]{2}$', description: "Only places in this country before or after the change (ISO 3166-1 alpha-2).", example: 'US' },
    { name: 'next_page_token', in: 'query', type: 'string', description: 'next_page_token of the previous page; send it alone or with exactly the same filters.' },
  ],
  doc: { tag: 'Changes', summary: 'The change feed: what changed between dataset builds', response: { schema: 'changes' }, statuses: [304, 400] },
  handle(ctx) {
    const limit = intParam(ctx, 'limit', CHANGES_LIMIT)!;
    const named = requestFilters(ctx);
    const tokenText = ctx.query.get('next_page_token');
    const log = changeLogOf(ctx.store);
    const dataVersion = ctx.store.manifest.dataVersion;
    const nowMs = ctx.now.getTime();

    let filters = named ?? NO_FILTERS;
    let afterIndex = -1;
    if (tokenText !== undefined) {
      let state;
      try {
        state = tokenCodec().decode(tokenText, { dataVersion, nowMs });
      } catch (error) {
        if (error instanceof CursorError) throw new ApiError(400, error.message);
        throw error;
      }
      if (named !== null && !sameChangeFilters(named, state.filters)) throw new ApiError(400, new CursorError('filters').message);
      if (state.lastIndex >= log.count) throw new ApiError(400, new CursorError('invalid').message);
      filters = state.filters;
      afterIndex = state.lastIndex;
    }

    const page = changePage(log, filters, afterIndex, limit);
    const results = page.indexes.map((i) => renderChange(log, i, ctx.caller));
    const next = page.hasMore ? tokenCodec().encode({ dataVersion, filters, lastIndex: page.indexes[page.indexes.length - 1]!, issuedAtMs: nowMs }) : null;
    const body = JSON.stringify({ results, next_page_token: next });
    // A body written now (its next token carries the time): the HTTP layer ETags it per request.
    return { status: 200, body, headers: CHANGES_HEADERS };
  },
};

const CHANGES_HEADERS: Record<string, string> = Object.freeze({ 'Cache-Control': 'private, no-cache' });

export const changeOperations: Operation[] = [changesList];
