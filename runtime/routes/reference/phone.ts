// GET /v1/phone?code=, /v1/phone/parse?number=, /v1/phone/{ciso} (feature phoneDialCode).
// The dial-code-by-country operation answers errors in shape B, the others in shape A.
import { PHONE_FIELDS, PHONE_PARSE_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { sortObjects } from '../../engine/sort.js';
import { parsedPhoneJson } from '../../render/phone.js';
import { listParams, listParamSpecs, type ListParamOptions } from '../params.js';
import { ApiError } from '../../contract/index.js';
import type { Operation } from '../types.js';
import { CACHE_DAY, CISO_PATH, NO_STORE, notFound, pagedListReply, projectionOf, renderedJson } from './common.js';

const LIST: ListParamOptions = { sort: true };

/**
 * `code` filter: 1 to 4 digits, optional leading + (a space when the + arrived unencoded),
 * leading zeros stripped (`001` = `1`). Returns the digits, or throws the spec's 400.
 */
export function dialCodeFilter(raw: string): string {
  const text = raw.trim().replace(/^\+/, '');
  if (text === '') throw new ApiError(400, 'Invalid dial code. Provide a non-empty value (e.g., +1, 44).');
  if (!/^\d{1,4}$/.test(text) || /^0+$/.test(text)) {
    throw new ApiError(400, 'Invalid dial code format. Expected digits (e.g., 91, 1, 44).');
  }
  return text.replace(/^0+/, '');
}

export const phoneList: Operation = {
  name: 'phoneList',
  path: '/v1/phone',
  errorShape: 'A',
  params: [
    ...listParamSpecs(PHONE_FIELDS, LIST),
    { name: 'code', in: 'query', type: 'string', pattern: '^\\+?[0-9]{1,4}$', description: 'Dial code, 1 to 4 digits with an optional + (encode it as %2B): only the countries using it.', example: '44' },
  ],
  doc: { tag: 'Phone', summary: 'Dial codes of every country', response: { schema: 'phone-entry', list: true }, statuses: [400] },
  handle(ctx) {
    const params = listParams(ctx, PHONE_FIELDS, 'basic', LIST);
    const raw = ctx.query.get('code');
    let entries = raw === undefined ? [...ctx.engine.phoneEntries()] : ctx.engine.phoneEntriesByCode(dialCodeFilter(raw));
    if (params.sort) entries = sortObjects(entries, params.sort, PHONE_FIELDS);
    return pagedListReply(entries, projectionOf(PHONE_FIELDS, 'basic', params), CACHE_DAY, params.page);
  },
};

// Separators a person may type inside a number; they are dropped before counting digits.
const SEPARATORS_RE = /[\s\-.()]/g;
const DIGITS_RE = /^\d{5,15}$/;
const LEADING_SPACE_RE = /^\s/;
// The answer depends on the number: never stored by any cache.
const INDEX_HIT_HEADERS: Record<string, string> = Object.freeze({ 'Cache-Control': NO_STORE, 'X-Parse-Index-Cache': 'HIT' });
const INDEX_MISS_HEADERS: Record<string, string> = Object.freeze({ 'Cache-Control': NO_STORE, 'X-Parse-Index-Cache': 'MISS' });

export const phoneParse: Operation = {
  name: 'phoneParse',
  path: '/v1/phone/parse',
  errorShape: 'A',
  params: [
    ...listParamSpecs(PHONE_PARSE_FIELDS),
    { name: 'number', in: 'query', type: 'string', required: true, description: 'E.164 number: + then 5 to 15 digits (spaces, dashes, dots and brackets are ignored; encode + as %2B).', example: '+14155552671' },
  ],
  doc: { tag: 'Phone', summary: 'The country of a phone number', response: { schema: 'phone-parse' }, statuses: [400, 404] },
  handle(ctx) {
    const params = listParams(ctx, PHONE_PARSE_FIELDS, 'basic');
    const raw = ctx.query.get('number');
    if (raw === undefined || raw.trim() === '') throw new ApiError(400, 'Missing required query parameter: number');
    // `+` decoded as a space by a client that did not encode it: accept the leading space(s).
    const text = raw.startsWith('+') ? raw.slice(1) : LEADING_SPACE_RE.test(raw) ? raw.trimStart().replace(/^\+/, '') : null;
    if (text === null) throw new ApiError(400, 'Phone number must be in E.164 format starting with + (e.g., +14155552671).');
    let digits = text;
    if (!DIGITS_RE.test(digits)) {
      digits = text.replace(SEPARATORS_RE, '');
      if (!DIGITS_RE.test(digits)) throw new ApiError(400, 'Invalid phone number. Must contain 5-15 digits after the +.');
    }
    const match = ctx.engine.matchPhone(digits, ctx.now.getTime());
    if (match.row < 0) throw new ApiError(404, 'Could not identify a country for the given phone number.');
    const headers = match.indexHit ? INDEX_HIT_HEADERS : INDEX_MISS_HEADERS;
    // Without `fields` the shape is fixed: the prepared country prefix plus the number's two fields.
    if (params.fields === null) return { status: 200, body: parsedPhoneJson(ctx.store, match, digits), headers };
    const entry = ctx.engine.phoneEntryOfRow(match.row)!;
    const parsed = { ...entry, national_number: digits.slice(match.callingCodeLength), e164: `+${digits}` };
    return { status: 200, body: serializeObject(projectionOf(PHONE_PARSE_FIELDS, 'basic', params), parsed), headers };
  },
};

export const phoneByCountry: Operation = {
  name: 'phoneByCountry',
  path: '/v1/phone/:ciso',
  errorShape: 'B',
  params: [CISO_PATH, ...listParamSpecs(PHONE_FIELDS)],
  doc: { tag: 'Phone', summary: "A country's dial code", response: { schema: 'phone-entry' }, statuses: [400, 404] },
  handle(ctx) {
    const params = listParams(ctx, PHONE_FIELDS, 'basic');
    const row = ctx.engine.countryRow(ctx.params.ciso ?? '');
    if (row < 0) throw notFound('Country not found.');
    const entry = ctx.engine.phoneEntryOfRow(row);
    if (!entry) throw notFound('No dial code available for this country.');
    return renderedJson(() => serializeObject(projectionOf(PHONE_FIELDS, 'basic', params), entry), CACHE_DAY);
  },
};
