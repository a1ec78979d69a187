// Opens a Store over loaded snapshot bytes: zero-copy views, no per-record work, so it is as
// cheap in a worker thread (which receives the same SharedArrayBuffers) as in the main thread.
import { ArrayPack, type TypedArray } from '../format/array-pack.js';
import type { EntityName } from '../format/model.js';
import { SnapshotFormatError } from '../format/section.js';
import { RELATION_ARRAYS, RELATIONS_SECTION, idsSection, recordsSection, type RelationArrayName } from '../format/sections.js';
import { cityCodec, countryCodec, postcodeCodec, regionCodec, stateCodec, subregionCodec } from './codecs.js';
import { FlatEntityTable, IdIndex, type RowCursor, type TableCodec } from './entity-table.js';
import type { SnapshotBytes } from './load.js';
import type { Relations, Store } from './types.js';

function requireSection(bytes: SnapshotBytes, name: string): SharedArrayBuffer {
  const buffer = bytes.sections[name];
  if (!buffer) throw new SnapshotFormatError(`${bytes.dir}: missing section "${name}" (expected in manifest.json)`);
  return buffer;
}

function openTable<R, C extends RowCursor>(bytes: SnapshotBytes, entity: EntityName, codec: TableCodec<R, C>): FlatEntityTable<R, C> {
  const ids = new IdIndex(requireSection(bytes, idsSection(entity)), `${bytes.dir}: ${idsSection(entity)}`);
  const table = new FlatEntityTable(entity, requireSection(bytes, recordsSection(entity)), ids, codec);
  const expected = bytes.manifest.recordCounts[entity];
  if (table.count !== expected) {
    throw new SnapshotFormatError(`${bytes.dir}: ${recordsSection(entity)}: expected ${expected} records (manifest.json), found ${table.count}`);
  }
  return table;
}

function openRelations(bytes: SnapshotBytes): Relations {
  const what = `${bytes.dir}: ${RELATIONS_SECTION}`;
  const pack = ArrayPack.from(requireSection(bytes, RELATIONS_SECTION), 0, what);
  const arrays = {} as Record<RelationArrayName, TypedArray>;
  RELATION_ARRAYS.forEach(([name, entity], i) => {
    const array: TypedArray = name.endsWith('Population') ? pack.get(i, Float64Array, `${what} ${name}`) : pack.get(i, Int32Array, `${what} ${name}`);
    const expected = bytes.manifest.recordCounts[entity];
    if (array.length !== expected) throw new SnapshotFormatError(`${what} ${name}: expected ${expected} entries (one per ${entity} row), found ${array.length}`);
    arrays[name] = array;
  });
  const i32 = (name: RelationArrayName) => arrays[name] as Int32Array;
  const f64 = (name: RelationArrayName) => arrays[name] as Float64Array;
  return {
    countryStates: { start: i32('countryStates.start'), end: i32('countryStates.end') },
    countryCities: { start: i32('countryCities.start'), end: i32('countryCities.end') },
    stateCities: { start: i32('stateCities.start'), end: i32('stateCities.end') },
    countryPostcodes: { start: i32('countryPostcodes.start'), end: i32('countryPostcodes.end') },
    stateCountryRow: i32('stateCountryRow'),
    cityStateRow: i32('cityStateRow'),
    cityCountryRow: i32('cityCountryRow'),
    countrySubregionRow: i32('countrySubregionRow'),
    subregionRegionRow: i32('subregionRegionRow'),
    cityPopulation: f64('cityPopulation'),
    statePopulation: f64('statePopulation'),
    countryPopulation: f64('countryPopulation'),
  };
}

export function openStore(bytes: SnapshotBytes): Store {
  const sections = bytes.sections;
  let derivedByName = bytes.derived;
  return {
    manifest: bytes.manifest,
    regions: openTable(bytes, 'regions', regionCodec),
    subregions: openTable(bytes, 'subregions', subregionCodec),
    countries: openTable(bytes, 'countries', countryCodec),
    states: openTable(bytes, 'states', stateCodec),
    cities: openTable(bytes, 'cities', cityCodec),
    postcodes: openTable(bytes, 'postcodes', postcodeCodec),
    relations: openRelations(bytes),
    section(name: string): ArrayBufferLike {
      return requireSection(bytes, name);
    },
    hasSection(name: string): boolean {
      return Object.prototype.hasOwnProperty.call(sections, name);
    },
    derived(name: string): ArrayBufferLike | null {
      const derived = derivedByName;
      return derived !== undefined && Object.prototype.hasOwnProperty.call(derived, name) ? derived[name]! : null;
    },
    adoptDerived(derived: Record<string, SharedArrayBuffer>): void {
      derivedByName = { ...derived, ...derivedByName };
    },
  };
}
