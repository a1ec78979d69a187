// Checks the collected records and resolves their references. Rules (see VALIDATION.md):
// duplicate ids are fatal; dangling references and bad coordinates are warnings, and the record
// is kept with the link dropped (-1) or the coordinates set to null.
// References are resolved here, once, as indexes into the collected (unsorted) arrays; ordering
// and the relations section reuse them, so validation and relations cannot disagree.
import type { EntityName } from '../runtime/format/model.js';
import { parseDecimal, plainDecimalText } from '../runtime/text/decimal.js';
import type { DatasetCollector, EntityRecords } from './collect.js';
import type { Diagnostics } from './diagnostics.js';

/** Parent indexes into the collected arrays, -1 when absent or dangling. */
export interface IndexLinks {
  subregionRegion: Int32Array;
  countryRegion: Int32Array;
  countrySubregion: Int32Array;
  stateCountry: Int32Array;
  cityCountry: Int32Array;
  cityState: Int32Array;
  postcodeCountry: Int32Array;
  postcodeState: Int32Array;
  postcodeCity: Int32Array;
}

const NOUN: Record<EntityName, string> = {
  regions: 'region', subregions: 'subregion', countries: 'country', states: 'state', cities: 'city', postcodes: 'postcode',
};

type Named = { id: number; name?: string; code?: string };

function label(record: Named): string {
  return JSON.stringify(record.name ?? record.code ?? '');
}

/** id → index; duplicate ids are fatal and name both files. */
function indexIds(entity: EntityName, records: readonly Named[], files: readonly string[], diagnostics: Diagnostics): Map<number, number> {
  const byId = new Map<number, number>();
  records.forEach((record, i) => {
    const first = byId.get(record.id);
    if (first === undefined) {
      byId.set(record.id, i);
      return;
    }
    diagnostics.fatal(
      `duplicate ${NOUN[entity]} ids`,
      `duplicate ${NOUN[entity]} id ${record.id}: ${files[first]} (${label(records[first]!)}) and ${files[i]} (${label(record)})`,
    );
  });
  return byId;
}

export function validateAndLink(collector: DatasetCollector, diagnostics: Diagnostics): IndexLinks {
  const { records, files } = collector;
  const ids = {} as Record<EntityName, Map<number, number>>;
  for (const entity of Object.keys(records) as EntityName[]) {
    ids[entity] = indexIds(entity, records[entity] as Named[], files[entity], diagnostics);
  }
  diagnostics.throwIfFatal('checking ids');

  checkCoordinates(records, files, diagnostics);

  const where = (entity: EntityName, i: number): string => {
    const record = records[entity][i] as Named;
    return `${files[entity][i]}: ${NOUN[entity]} ${record.id} ${label(record)}`;
  };
  /** Resolves `parentId` in `parent`; a non-null id that is not found is reported. */
  const resolve = (child: EntityName, i: number, field: string, parent: EntityName, parentId: number | null): number => {
    if (parentId === null) return -1;
    const index = ids[parent].get(parentId);
    if (index !== undefined) return index;
    diagnostics.warn(`dangling ${NOUN[child]} → ${NOUN[parent]} references (link dropped)`, `${where(child, i)}: ${field} ${parentId}: no such ${NOUN[parent]}`);
    return -1;
  };
  /** A state link must also agree on the country, or the state's city range would break. */
  const sameCountry = (child: EntityName, i: number, stateIndex: number, countryId: number): number => {
    if (stateIndex < 0) return -1;
    const state = records.states[stateIndex]!;
    if (state.country_id === countryId) return stateIndex;
    diagnostics.warn(
      `${NOUN[child]} → state references across countries (link dropped)`,
      `${where(child, i)}: state_id ${state.id} belongs to country_id ${state.country_id}, not ${countryId}`,
    );
    return -1;
  };
  const link = <E extends EntityName>(entity: E, fn: (record: EntityRecords[E][number], i: number) => number): Int32Array => {
    const list = records[entity] as EntityRecords[E][number][];
    const out = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) out[i] = fn(list[i]!, i);
    return out;
  };

  const links: IndexLinks = {
    subregionRegion: link('subregions', (r, i) => resolve('subregions', i, 'region_id', 'regions', r.region_id)),
    countryRegion: link('countries', (r, i) => resolve('countries', i, 'region_id', 'regions', r.region_id)),
    countrySubregion: link('countries', (r, i) => resolve('countries', i, 'subregion_id', 'subregions', r.subregion_id)),
    stateCountry: link('states', (r, i) => resolve('states', i, 'country_id', 'countries', r.country_id)),
    cityCountry: link('cities', (r, i) => resolve('cities', i, 'country_id', 'countries', r.country_id)),
    cityState: link('cities', (r, i) => sameCountry('cities', i, resolve('cities', i, 'state_id', 'states', r.state_id), r.country_id)),
    postcodeCountry: link('postcodes', (r, i) => resolve('postcodes', i, 'country_id', 'countries', r.country_id)),
    postcodeState: link('postcodes', (r, i) => sameCountry('postcodes', i, resolve('postcodes', i, 'state_id', 'states', r.state_id), r.country_id)),
    postcodeCity: link('postcodes', (r, i) => resolve('postcodes', i, 'city_id', 'cities', r.city_id)),
  };
  return links;
}

type WithCoordinates = Named & { latitude: string | null; longitude: string | null };

/** Coordinates must both be decimal numbers in range; otherwise both become null (warning). */
function checkCoordinates(records: EntityRecords, files: Record<EntityName, string[]>, diagnostics: Diagnostics): void {
  for (const entity of ['countries', 'states', 'cities', 'postcodes'] as const) {
    const list = records[entity] as WithCoordinates[];
    for (let i = 0; i < list.length; i++) {
      const record = list[i]!;
      const problem = coordinateProblem(record.latitude, record.longitude);
      if (problem === null) {
        // Exponent notation (`0E-8`) is served as plain decimal text (`0.00000000`).
        if (record.latitude !== null) record.latitude = plainDecimalText(record.latitude);
        if (record.longitude !== null) record.longitude = plainDecimalText(record.longitude);
        continue;
      }
      diagnostics.warn(
        'bad coordinates (set to null)',
        `${files[entity][i]}: ${NOUN[entity]} ${record.id} ${label(record)}: ${problem}`,
      );
      record.latitude = null;
      record.longitude = null;
    }
  }
}

export function coordinateProblem(latitude: string | null, longitude: string | null): string | null {
  if (latitude === null && longitude === null) return null;
  if (latitude === null || longitude === null) return `expected both latitude and longitude, found only ${latitude === null ? 'longitude' : 'latitude'}`;
  const lat = parseDecimal(latitude);
  const lon = parseDecimal(longitude);
  if (Number.isNaN(lat) || Number.isNaN(lon)) return `expected decimal coordinates, found ${JSON.stringify(latitude)}, ${JSON.stringify(longitude)}`;
  if (lat < -90 || lat > 90) return `latitude out of range: expected -90…90, found ${latitude}`;
  if (lon < -180 || lon > 180) return `longitude out of range: expected -180…180, found ${longitude}`;
  return null;
}
