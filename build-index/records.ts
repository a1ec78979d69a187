// Encodes each entity's records, in row order, as one FlatBuffers table (schemas/snapshot/geoapi.fbs),
// and its ids section (layout: runtime/format/sections.ts).
// Low-cardinality strings (codes, types, timezones, sources) are shared within a table.
// `translations` is stored JSON-escaped (runtime/format/json-text.ts).
import * as flatbuffers from 'flatbuffers';
import { ArrayPackBuilder } from '../runtime/format/array-pack.js';
import * as fb from '../runtime/format/generated/geoapi/fb.js';
import type { CityRecord, CountryRecord, EntityName, NormalisedDataset, PostcodeRecord, RegionRecord, StateRecord, SubregionRecord } from '../runtime/format/model.js';
import { ENTITY_NAMES } from '../runtime/format/model.js';
import { storedJsonText } from '../runtime/format/json-text.js';
import { IDS_DENSE_MAX_RATIO, IDS_MODE_DENSE, IDS_MODE_SORTED, idsSection, recordsSection } from '../runtime/format/sections.js';

type B = flatbuffers.Builder;

/** Offset of a unique string, or 0 (= field absent, reads back null). */
function str(b: B, s: string | null): number {
  return s === null ? 0 : b.createString(s);
}

/** Offset of a repeated string, stored once per table. `createSharedString('')` returns 0, so '' is not shared. */
function shared(b: B, s: string | null): number {
  return s === null ? 0 : s === '' ? b.createString(s) : b.createSharedString(s);
}

function encodeRegion(b: B, r: RegionRecord): number {
  const name = str(b, r.name);
  const translations = str(b, storedJsonText(r.translations));
  const wiki = str(b, r.wikiDataId);
  fb.Region.startRegion(b);
  fb.Region.addId(b, r.id);
  fb.Region.addName(b, name);
  if (translations) fb.Region.addTranslations(b, translations);
  if (wiki) fb.Region.addWikiDataId(b, wiki);
  return fb.Region.endRegion(b);
}

function encodeSubregion(b: B, r: SubregionRecord): number {
  const name = str(b, r.name);
  const translations = str(b, storedJsonText(r.translations));
  const wiki = str(b, r.wikiDataId);
  fb.Subregion.startSubregion(b);
  fb.Subregion.addId(b, r.id);
  fb.Subregion.addName(b, name);
  fb.Subregion.addRegionId(b, r.region_id);
  if (translations) fb.Subregion.addTranslations(b, translations);
  if (wiki) fb.Subregion.addWikiDataId(b, wiki);
  return fb.Subregion.endSubregion(b);
}

function encodeCountry(b: B, r: CountryRecord): number {
  const C = fb.Country;
  const o = {
    name: str(b, r.name), iso2: str(b, r.iso2), iso3: str(b, r.iso3), numeric: str(b, r.numeric_code),
    phonecode: shared(b, r.phonecode), capital: str(b, r.capital), currency: shared(b, r.currency),
    currencyName: shared(b, r.currency_name), currencySymbol: shared(b, r.currency_symbol), tld: str(b, r.tld),
    native: str(b, r.native), region: shared(b, r.region), subregion: shared(b, r.subregion),
    nationality: str(b, r.nationality), pcFormat: shared(b, r.postal_code_format), pcRegex: shared(b, r.postal_code_regex),
    timezones: str(b, r.timezones), translations: str(b, storedJsonText(r.translations)), latitude: str(b, r.latitude),
    longitude: str(b, r.longitude), emoji: str(b, r.emoji), emojiU: str(b, r.emojiU), wiki: str(b, r.wikiDataId),
  };
  C.startCountry(b);
  C.addId(b, r.id);
  C.addName(b, o.name);
  C.addIso2(b, o.iso2);
  C.addIso3(b, o.iso3);
  if (o.numeric) C.addNumericCode(b, o.numeric);
  if (o.phonecode) C.addPhonecode(b, o.phonecode);
  if (o.capital) C.addCapital(b, o.capital);
  if (o.currency) C.addCurrency(b, o.currency);
  if (o.currencyName) C.addCurrencyName(b, o.currencyName);
  if (o.currencySymbol) C.addCurrencySymbol(b, o.currencySymbol);
  if (o.tld) C.addTld(b, o.tld);
  if (o.native) C.addNative(b, o.native);
  if (r.population !== null) C.addPopulation(b, r.population);
  if (r.gdp !== null) C.addGdp(b, r.gdp);
  if (o.region) C.addRegion(b, o.region);
  if (r.region_id !== null) C.addRegionId(b, r.region_id);
  if (o.subregion) C.addSubregion(b, o.subregion);
  if (r.subregion_id !== null) C.addSubregionId(b, r.subregion_id);
  if (o.nationality) C.addNationality(b, o.nationality);
  if (r.area_sq_km !== null) C.addAreaSqKm(b, r.area_sq_km);
  if (o.pcFormat) C.addPostalCodeFormat(b, o.pcFormat);
  if (o.pcRegex) C.addPostalCodeRegex(b, o.pcRegex);
  if (o.timezones) C.addTimezones(b, o.timezones);
  if (o.translations) C.addTranslations(b, o.translations);
  if (o.latitude) C.addLatitude(b, o.latitude);
  if (o.longitude) C.addLongitude(b, o.longitude);
  if (o.emoji) C.addEmoji(b, o.emoji);
  if (o.emojiU) C.addEmojiU(b, o.emojiU);
  if (o.wiki) C.addWikiDataId(b, o.wiki);
  return C.endCountry(b);
}

function encodeState(b: B, r: StateRecord): number {
  const S = fb.State;
  const o = {
    name: str(b, r.name), countryCode: shared(b, r.country_code), fips: str(b, r.fips_code), iso2: str(b, r.iso2),
    iso31662: str(b, r.iso3166_2), type: shared(b, r.type), native: str(b, r.native), latitude: str(b, r.latitude),
    longitude: str(b, r.longitude), timezone: shared(b, r.timezone), translations: str(b, storedJsonText(r.translations)), wiki: str(b, r.wikiDataId),
  };
  S.startState(b);
  S.addId(b, r.id);
  S.addName(b, o.name);
  S.addCountryId(b, r.country_id);
  S.addCountryCode(b, o.countryCode);
  if (o.fips) S.addFipsCode(b, o.fips);
  if (o.iso2) S.addIso2(b, o.iso2);
  if (o.iso31662) S.addIso31662(b, o.iso31662);
  if (o.type) S.addType(b, o.type);
  if (r.level !== null) S.addLevel(b, r.level);
  if (r.parent_id !== null) S.addParentId(b, r.parent_id);
  if (o.native) S.addNative(b, o.native);
  if (o.latitude) S.addLatitude(b, o.latitude);
  if (o.longitude) S.addLongitude(b, o.longitude);
  if (o.timezone) S.addTimezone(b, o.timezone);
  if (o.translations) S.addTranslations(b, o.translations);
  if (o.wiki) S.addWikiDataId(b, o.wiki);
  if (r.population !== null) S.addPopulation(b, r.population);
  return S.endState(b);
}

function encodeCity(b: B, r: CityRecord): number {
  const C = fb.City;
  const name = str(b, r.name);
  const stateCode = shared(b, r.state_code);
  const countryCode = shared(b, r.country_code);
  const type = shared(b, r.type);
  const level = shared(b, r.level);
  const latitude = str(b, r.latitude);
  const longitude = str(b, r.longitude);
  // Native often equals the name: share the bytes then.
  const native = r.native === null ? 0 : r.native === r.name ? name : str(b, r.native);
  const timezone = shared(b, r.timezone);
  const translations = str(b, storedJsonText(r.translations));
  const wiki = str(b, r.wikiDataId);
  C.startCity(b);
  C.addId(b, r.id);
  C.addName(b, name);
  C.addStateId(b, r.state_id);
  C.addStateCode(b, stateCode);
  C.addCountryId(b, r.country_id);
  C.addCountryCode(b, countryCode);
  if (type) C.addType(b, type);
  if (level) C.addLevel(b, level);
  if (r.parent_id !== null) C.addParentId(b, r.parent_id);
  if (latitude) C.addLatitude(b, latitude);
  if (longitude) C.addLongitude(b, longitude);
  if (native) C.addNative(b, native);
  if (r.population !== null) C.addPopulation(b, r.population);
  if (timezone) C.addTimezone(b, timezone);
  if (translations) C.addTranslations(b, translations);
  if (wiki) C.addWikiDataId(b, wiki);
  return C.endCity(b);
}

function encodePostcode(b: B, r: PostcodeRecord): number {
  const P = fb.Postcode;
  const code = str(b, r.code);
  const countryCode = shared(b, r.country_code);
  const stateCode = shared(b, r.state_code);
  const locality = shared(b, r.locality_name);
  const type = shared(b, r.type);
  const latitude = str(b, r.latitude);
  const longitude = str(b, r.longitude);
  const source = shared(b, r.source);
  const wiki = str(b, r.wikiDataId);
  P.startPostcode(b);
  P.addId(b, r.id);
  P.addCode(b, code);
  P.addCountryId(b, r.country_id);
  P.addCountryCode(b, countryCode);
  if (r.state_id !== null) P.addStateId(b, r.state_id);
  if (stateCode) P.addStateCode(b, stateCode);
  if (r.city_id !== null) P.addCityId(b, r.city_id);
  if (locality) P.addLocalityName(b, locality);
  if (type) P.addType(b, type);
  if (latitude) P.addLatitude(b, latitude);
  if (longitude) P.addLongitude(b, longitude);
  if (source) P.addSource(b, source);
  if (wiki) P.addWikiDataId(b, wiki);
  return P.endPostcode(b);
}

/** One root table per entity: `rows` in row order. */
function encodeTable<R>(rows: readonly R[], encodeRow: (b: B, r: R) => number, initialBytes: number): Uint8Array {
  const b = new flatbuffers.Builder(initialBytes);
  const offsets = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) offsets[i] = encodeRow(b, rows[i]!);
  b.startVector(4, rows.length, 4);
  for (let i = rows.length - 1; i >= 0; i--) b.addOffset(offsets[i]!);
  const vector = b.endVector();
  // All root tables share one layout: field 0 = rows (see the *Table tables in the schema).
  b.startObject(1);
  b.addFieldOffset(0, vector, 0);
  const root = b.endObject();
  b.finish(root);
  return b.asUint8Array().slice();
}

export function encodeRecords(ds: NormalisedDataset): Record<string, Uint8Array> {
  return {
    [recordsSection('regions')]: encodeTable(ds.regions, encodeRegion, 1 << 12),
    [recordsSection('subregions')]: encodeTable(ds.subregions, encodeSubregion, 1 << 12),
    [recordsSection('countries')]: encodeTable(ds.countries, encodeCountry, 1 << 16),
    [recordsSection('states')]: encodeTable(ds.states, encodeState, 1 << 20),
    [recordsSection('cities')]: encodeTable(ds.cities, encodeCity, 1 << 24),
    [recordsSection('postcodes')]: encodeTable(ds.postcodes, encodePostcode, 1 << 24),
  };
}

/** ids.<entity>: ids by row, plus a dense id→row table or sorted ids with their rows. */
export function encodeIds(ids: Int32Array): Uint8Array {
  const count = ids.length;
  let min = 0;
  let max = -1;
  if (count > 0) {
    min = ids[0]!;
    max = ids[0]!;
    for (let i = 1; i < count; i++) {
      const id = ids[i]!;
      if (id < min) min = id;
      if (id > max) max = id;
    }
  }
  const span = max - min + 1;
  const pack = new ArrayPackBuilder().add(ids);
  if (span <= Math.max(16, IDS_DENSE_MAX_RATIO * count)) {
    const rowById = new Int32Array(Math.max(span, 0)).fill(-1);
    for (let row = 0; row < count; row++) rowById[ids[row]! - min] = row;
    return pack.add(Int32Array.of(IDS_MODE_DENSE, min)).add(rowById).add(new Int32Array(0)).finish();
  }
  const rows = Int32Array.from({ length: count }, (_, i) => i).sort((a, b) => ids[a]! - ids[b]!);
  const sortedIds = rows.map((row) => ids[row]!);
  return pack.add(Int32Array.of(IDS_MODE_SORTED, min)).add(sortedIds).add(rows).finish();
}

export function encodeIdSections(ds: NormalisedDataset): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const entity of ENTITY_NAMES as readonly EntityName[]) {
    const list = ds[entity] as readonly { id: number }[];
    out[idsSection(entity)] = encodeIds(Int32Array.from(list, (r) => r.id));
  }
  return out;
}
