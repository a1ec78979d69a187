// GET /v1/iso/country, /v1/iso/state, /v1/iso/country/convert (feature isoLookup).
import { ApiError } from '../../contract/index.js';
import { paddedNumericCode } from '../../engine/countries.js';
import type { Engine } from '../../engine/index.js';
import { ISO_COUNTRY_FIELDS, ISO_STATE_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { invalidParam, listParams, listParamSpecs } from '../params.js';
import type { Operation } from '../types.js';
import { CACHE_HOUR, renderedJson, notFound, projectionOf } from './common.js';

const COUNTRY_NOT_FOUND = 'Country not found for the given code';
export type CountryCodeKind = 'iso2' | 'iso3' | 'numeric';
const CODE_KINDS: readonly CountryCodeKind[] = ['iso2', 'iso3', 'numeric'];

/** Row of the country with `value` as a code of `kind` (validated with 400s naming `paramName`), or -1. */
function countryRowByCode(engine: Engine, kind: CountryCodeKind, value: string, paramName: string): number {
  const text = value.trim();
  switch (kind) {
    case 'iso2':
      if (!/^[A-Za-z]{2}$/.test(text)) throw invalidParam(paramName, 'must be a 2-letter code');
      return engine.countryRowByIso2(text);
    case 'iso3':
      if (!/^[A-Za-z]{3}$/.test(text)) throw invalidParam(paramName, 'must be a 3-letter code');
      return engine.countryRowByIso3(text);
    case 'numeric':
      if (!/^\d{1,3}$/.test(text)) throw invalidParam(paramName, 'must be 1 to 3 digits (e.g. 4, 004, 840)');
      if (/^0+$/.test(text)) throw invalidParam(paramName, 'must not be all zeros');
      return engine.countryRowByNumericCode(Number(text));
  }
}

export const isoCountry: Operation = {
  name: 'isoCountry',
  path: '/v1/iso/country',
  errorShape: 'A',
  params: [
    ...listParamSpecs(ISO_COUNTRY_FIELDS),
    { name: 'iso2', in: 'query', type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 code; exactly one of iso2, iso3, numeric.', example: 'NO' },
    { name: 'iso3', in: 'query', type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 3166-1 alpha-3 code; exactly one of iso2, iso3, numeric.' },
    { name: 'numeric', in: 'query', type: 'string', pattern: '^[0-9]{1,3}$', description: 'ISO 3166-1 numeric code (4, 004); exactly one of iso2, iso3, numeric.' },
  ],
  doc: { tag: 'ISO codes', summary: 'A country by one of its ISO 3166-1 codes', response: { schema: 'iso-country' }, statuses: [400, 404] },
  handle(ctx) {
    const params = listParams(ctx, ISO_COUNTRY_FIELDS, 'basic');
    const given = CODE_KINDS.filter((kind) => ctx.query.has(kind));
    if (given.length !== 1) throw new ApiError(400, 'Invalid query parameters: Provide exactly one of: iso2, iso3, numeric');
    const kind = given[0]!;
    const row = countryRowByCode(ctx.engine, kind, ctx.query.get(kind)!, kind);
    if (row < 0) throw notFound(COUNTRY_NOT_FOUND);
    const country = ctx.store.countries.record(row);
    const body = { id: country.id, name: country.name, iso2: country.iso2, iso3: country.iso3, numeric_code: paddedNumericCode(country.numeric_code) };
    return renderedJson(() => serializeObject(projectionOf(ISO_COUNTRY_FIELDS, 'basic', params), body), CACHE_HOUR);
  },
};

const ISO3166_2_RE = /^[A-Z]{2}-[A-Z0-9]{1,3}$/;

export const isoState: Operation = {
  name: 'isoState',
  path: '/v1/iso/state',
  errorShape: 'A',
  params: [
    ...listParamSpecs(ISO_STATE_FIELDS),
    { name: 'iso', in: 'query', type: 'string', required: true, description: 'ISO 3166-2 code (any case), e.g. US-CA.', example: 'US-CA' },
  ],
  doc: { tag: 'ISO codes', summary: 'A state by its ISO 3166-2 code', response: { schema: 'iso-state' }, statuses: [400, 404] },
  handle(ctx) {
    const params = listParams(ctx, ISO_STATE_FIELDS, 'basic');
    const raw = ctx.query.get('iso');
    if (raw === undefined || raw.trim() === '') throw invalidParam('iso', 'is required (e.g. iso=US-CA)');
    const code = raw.trim().toUpperCase();
    if (!ISO3166_2_RE.test(code)) throw invalidParam('iso', 'must be an ISO 3166-2 code (e.g. US-CA)');
    const row = ctx.engine.stateRowByIso3166(code);
    if (row < 0) throw notFound('State not found for the given ISO code');
    const state = ctx.store.states.record(row);
    const body = {
      id: state.id,
      name: state.name,
      iso2: state.iso2,
      iso3166_2: state.iso3166_2,
      country_id: state.country_id,
      country_code: state.country_code,
    };
    return renderedJson(() => serializeObject(projectionOf(ISO_STATE_FIELDS, 'basic', params), body), CACHE_HOUR);
  },
};

function codeKindParam(raw: string | undefined, name: string): CountryCodeKind {
  if (raw === undefined || raw.trim() === '') throw invalidParam(name, 'is required (one of iso2, iso3, numeric)');
  const kind = raw.trim().toLowerCase() as CountryCodeKind;
  if (!CODE_KINDS.includes(kind)) throw invalidParam(name, `must be one of iso2, iso3, numeric, found '${raw}'`);
  return kind;
}

export const isoConvert: Operation = {
  name: 'isoConvert',
  path: '/v1/iso/country/convert',
  errorShape: 'A',
  params: [
    { name: 'from', in: 'query', type: 'string', required: true, enum: CODE_KINDS, description: 'The kind of code given in value.', example: 'iso2' },
    { name: 'to', in: 'query', type: 'string', required: true, enum: CODE_KINDS, description: 'The kind of code wanted (not the same as from).', example: 'numeric' },
    { name: 'value', in: 'query', type: 'string', required: true, description: 'The code to convert.', example: 'BR' },
  ],
  doc: { tag: 'ISO codes', summary: 'Convert a country code between iso2, iso3 and numeric', response: { schema: 'iso-convert' }, statuses: [400, 404] },
  handle(ctx) {
    const from = codeKindParam(ctx.query.get('from'), 'from');
    const to = codeKindParam(ctx.query.get('to'), 'to');
    if (from === to) throw invalidParam('to', 'must differ from from');
    const value = ctx.query.get('value');
    if (value === undefined || value.trim() === '') throw invalidParam('value', `is required (a ${from} code)`);
    const row = countryRowByCode(ctx.engine, from, value, 'value');
    if (row < 0) throw notFound(COUNTRY_NOT_FOUND);
    const country = ctx.store.countries.record(row);
    const result = to === 'iso2' ? country.iso2 : to === 'iso3' ? country.iso3 : paddedNumericCode(country.numeric_code);
    return renderedJson(() => JSON.stringify({ from, to, input: value.trim(), result }), CACHE_HOUR);
  },
};
