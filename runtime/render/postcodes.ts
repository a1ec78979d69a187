// The postcode record as the API serves it (spec "Postcode record"): ids as numeric strings,
// coordinates as JSON numbers, fields above the caller's tier absent (not blanked). Tiers and
// projection go through the shared field machinery (./projection.ts).
import type { Tier } from '../contract/index.js';
import type { PostcodeRecord } from '../format/model.js';
import type { RowBytes } from '../store/types.js';
import { defineEntityFields, projectionFor, serializeObject, type Projection } from './projection.js';
import { IntAsText, NumberFromText, rowJsonWriter, rowsBody, writeRowsArray } from './row-json.js';
import { integerText } from '../text/number-text.js';

export const POSTCODE_FIELDS = defineEntityFields('postcodes', [
  ['id', 'basic', 'number'], ['code', 'basic'], ['country_code', 'basic'], ['state_code', 'basic'],
  ['locality_name', 'basic'], ['type', 'basic'],
  ['country_id', 'coordinates', 'number'], ['state_id', 'coordinates', 'number'], ['city_id', 'coordinates', 'number'],
  ['latitude', 'coordinates', 'number'], ['longitude', 'coordinates', 'number'],
  ['source', 'full'], ['wikiDataId', 'full'],
]);

export interface ApiPostcode {
  id: string;
  code: string;
  country_code: string;
  state_code: string | null;
  locality_name: string | null;
  type: string | null;
  country_id: string;
  state_id: string | null;
  city_id: string | null;
  latitude: number | null;
  longitude: number | null;
  source: string | null;
  wikiDataId: string | null;
}

/** The projection for a tier and an optional validated `fields` list (id always kept). */
export function postcodeProjection(tier: Tier, fields: readonly string[] | null): Projection {
  return projectionFor(POSTCODE_FIELDS, tier, { fields });
}

function idText(id: number | null): string | null {
  return id === null ? null : integerText(id);
}

function coordinate(text: string | null): number | null {
  if (text === null || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** Every served field of a record, typed as the spec serves it. */
export function toApiPostcode(record: PostcodeRecord): ApiPostcode {
  return {
    id: integerText(record.id),
    code: record.code,
    country_code: record.country_code,
    state_code: record.state_code,
    locality_name: record.locality_name,
    type: record.type,
    country_id: integerText(record.country_id),
    state_id: idText(record.state_id),
    city_id: idText(record.city_id),
    latitude: coordinate(record.latitude),
    longitude: coordinate(record.longitude),
    source: record.source,
    wikiDataId: record.wikiDataId,
  };
}

/** JSON array text of the rows' records under `projection`. */
export function serializePostcodes(projection: Projection, records: readonly PostcodeRecord[]): string {
  if (records.length === 0) return '[]';
  return `[${records.map((r) => serializeObject(projection, toApiPostcode(r))).join(',')}]`;
}

/** The served fields that are not the stored value as it is: ids as strings, coordinates as numbers. */
const CONVERTED = ['id', 'country_id', 'state_id', 'city_id', 'latitude', 'longitude'] as const;
const CONVERSIONS: readonly unknown[] = [
  new IntAsText('id'), new IntAsText('country_id'), new IntAsText('state_id'), new IntAsText('city_id'),
  new NumberFromText('latitude'), new NumberFromText('longitude'),
];

/**
 * `prefix`, the JSON array of the rows' records under `projection` (what serializePostcodes
 * gives, written from the rows' bytes: no record decoded), then `suffix`; borrowed bytes.
 */
export function postcodeRowsBody(rows: RowBytes, projection: Projection, rowNumbers: readonly number[], prefix: string, suffix: string): Buffer {
  return rowsBody(prefix, rowJsonWriter(rows, projection, CONVERTED), rowNumbers, CONVERSIONS, suffix);
}

const NEARBY_ADDITIONS = [...CONVERTED, 'distance_km'];
/** Per-row values of NEARBY_ADDITIONS: the conversions, then the distance (reused: one render at a time per thread). */
const nearbyExtras: unknown[] = [...CONVERSIONS, null];

/** The JSON array of nearby postcodes (projection with distance_km), from the rows' bytes; borrowed bytes. */
export function nearbyPostcodeRows<T extends { readonly row: number; readonly distanceKm: number }>(rows: RowBytes, projection: Projection, hits: readonly T[], roundKm: (km: number) => number): Buffer {
  return writeRowsArray(rowJsonWriter(rows, projection, NEARBY_ADDITIONS), hits, nearbyExtras, (values, hit) => {
    values[CONVERTED.length] = roundKm(hit.distanceKm);
  });
}
