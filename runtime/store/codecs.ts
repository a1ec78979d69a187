// FlatBuffers row → plain record of the model (runtime/format/model.ts), one codec per entity.
// `translations` is stored JSON-escaped (format/json-text.ts): decoded back to its text here.
import * as fb from '../format/generated/geoapi/fb.js';
import { jsonTextFromStored } from '../format/json-text.js';
import type { CityRecord, CountryRecord, PostcodeRecord, RegionRecord, StateRecord, SubregionRecord } from '../format/model.js';
import { FIELD_DOUBLE_OR_NULL, FIELD_INT, FIELD_INT_OR_NULL, FIELD_JSON_STRING, FIELD_STRING, FIELD_STRING_OR_EMPTY, type FieldKind, type FieldLayout } from './types.js';
import type { TableCodec } from './entity-table.js';

/** Layout from (name, kind) in schema field order (slot = 4 + 2 × index, schemas/snapshot/geoapi.fbs). */
function layoutOf(fields: readonly [string, FieldKind][]): readonly FieldLayout[] {
  return Object.freeze(fields.map(([name, kind], i) => Object.freeze({ name, slot: 4 + 2 * i, kind })));
}

export const regionCodec: TableCodec<RegionRecord, fb.Region> = {
  newCursor: () => new fb.Region(),
  name: (r) => r.name() ?? '',
  decode: (r) => ({ id: r.id(), name: r.name() ?? '', translations: jsonTextFromStored(r.translations()), wikiDataId: r.wikiDataId() }),
};

export const subregionCodec: TableCodec<SubregionRecord, fb.Subregion> = {
  newCursor: () => new fb.Subregion(),
  name: (r) => r.name() ?? '',
  decode: (r) => ({ id: r.id(), name: r.name() ?? '', translations: jsonTextFromStored(r.translations()), wikiDataId: r.wikiDataId(), region_id: r.regionId() }),
};

export const countryCodec: TableCodec<CountryRecord, fb.Country> = {
  newCursor: () => new fb.Country(),
  layout: layoutOf([
    ['id', FIELD_INT], ['name', FIELD_STRING_OR_EMPTY], ['iso2', FIELD_STRING_OR_EMPTY], ['iso3', FIELD_STRING_OR_EMPTY],
    ['numeric_code', FIELD_STRING], ['phonecode', FIELD_STRING], ['capital', FIELD_STRING], ['currency', FIELD_STRING],
    ['currency_name', FIELD_STRING], ['currency_symbol', FIELD_STRING], ['tld', FIELD_STRING], ['native', FIELD_STRING],
    ['population', FIELD_DOUBLE_OR_NULL], ['gdp', FIELD_DOUBLE_OR_NULL], ['region', FIELD_STRING], ['region_id', FIELD_INT_OR_NULL],
    ['subregion', FIELD_STRING], ['subregion_id', FIELD_INT_OR_NULL], ['nationality', FIELD_STRING], ['area_sq_km', FIELD_DOUBLE_OR_NULL],
    ['postal_code_format', FIELD_STRING], ['postal_code_regex', FIELD_STRING], ['timezones', FIELD_STRING], ['translations', FIELD_JSON_STRING],
    ['latitude', FIELD_STRING], ['longitude', FIELD_STRING], ['emoji', FIELD_STRING], ['emojiU', FIELD_STRING], ['wikiDataId', FIELD_STRING],
  ]),
  name: (r) => r.name() ?? '',
  decode: (r) => ({
    id: r.id(),
    name: r.name() ?? '',
    iso2: r.iso2() ?? '',
    iso3: r.iso3() ?? '',
    numeric_code: r.numericCode(),
    phonecode: r.phonecode(),
    capital: r.capital(),
    currency: r.currency(),
    currency_name: r.currencyName(),
    currency_symbol: r.currencySymbol(),
    tld: r.tld(),
    native: r.native(),
    population: r.population(),
    gdp: r.gdp(),
    region: r.region(),
    region_id: r.regionId(),
    subregion: r.subregion(),
    subregion_id: r.subregionId(),
    nationality: r.nationality(),
    area_sq_km: r.areaSqKm(),
    postal_code_format: r.postalCodeFormat(),
    postal_code_regex: r.postalCodeRegex(),
    timezones: r.timezones(),
    translations: jsonTextFromStored(r.translations()),
    latitude: r.latitude(),
    longitude: r.longitude(),
    emoji: r.emoji(),
    emojiU: r.emojiU(),
    wikiDataId: r.wikiDataId(),
  }),
};

export const stateCodec: TableCodec<StateRecord, fb.State> = {
  newCursor: () => new fb.State(),
  layout: layoutOf([
    ['id', FIELD_INT], ['name', FIELD_STRING_OR_EMPTY], ['country_id', FIELD_INT], ['country_code', FIELD_STRING_OR_EMPTY],
    ['fips_code', FIELD_STRING], ['iso2', FIELD_STRING], ['iso3166_2', FIELD_STRING], ['type', FIELD_STRING],
    ['level', FIELD_INT_OR_NULL], ['parent_id', FIELD_INT_OR_NULL], ['native', FIELD_STRING], ['latitude', FIELD_STRING],
    ['longitude', FIELD_STRING], ['timezone', FIELD_STRING], ['translations', FIELD_JSON_STRING], ['wikiDataId', FIELD_STRING],
    ['population', FIELD_DOUBLE_OR_NULL],
  ]),
  name: (r) => r.name() ?? '',
  decode: (r) => ({
    id: r.id(),
    name: r.name() ?? '',
    country_id: r.countryId(),
    country_code: r.countryCode() ?? '',
    fips_code: r.fipsCode(),
    iso2: r.iso2(),
    iso3166_2: r.iso31662(),
    type: r.type(),
    level: r.level(),
    parent_id: r.parentId(),
    native: r.native(),
    latitude: r.latitude(),
    longitude: r.longitude(),
    timezone: r.timezone(),
    translations: jsonTextFromStored(r.translations()),
    wikiDataId: r.wikiDataId(),
    population: r.population(),
  }),
};

export const cityCodec: TableCodec<CityRecord, fb.City> = {
  newCursor: () => new fb.City(),
  layout: layoutOf([
    ['id', FIELD_INT], ['name', FIELD_STRING_OR_EMPTY], ['state_id', FIELD_INT], ['state_code', FIELD_STRING_OR_EMPTY],
    ['country_id', FIELD_INT], ['country_code', FIELD_STRING_OR_EMPTY], ['type', FIELD_STRING], ['level', FIELD_STRING],
    ['parent_id', FIELD_INT_OR_NULL], ['latitude', FIELD_STRING], ['longitude', FIELD_STRING], ['native', FIELD_STRING],
    ['population', FIELD_DOUBLE_OR_NULL], ['timezone', FIELD_STRING], ['translations', FIELD_JSON_STRING], ['wikiDataId', FIELD_STRING],
  ]),
  name: (r) => r.name() ?? '',
  decode: (r) => ({
    id: r.id(),
    name: r.name() ?? '',
    state_id: r.stateId(),
    state_code: r.stateCode() ?? '',
    country_id: r.countryId(),
    country_code: r.countryCode() ?? '',
    type: r.type(),
    level: r.level(),
    parent_id: r.parentId(),
    latitude: r.latitude(),
    longitude: r.longitude(),
    native: r.native(),
    population: r.population(),
    timezone: r.timezone(),
    translations: jsonTextFromStored(r.translations()),
    wikiDataId: r.wikiDataId(),
  }),
};

export const postcodeCodec: TableCodec<PostcodeRecord, fb.Postcode> = {
  newCursor: () => new fb.Postcode(),
  layout: layoutOf([
    ['id', FIELD_INT], ['code', FIELD_STRING_OR_EMPTY], ['country_id', FIELD_INT], ['country_code', FIELD_STRING_OR_EMPTY],
    ['state_id', FIELD_INT_OR_NULL], ['state_code', FIELD_STRING], ['city_id', FIELD_INT_OR_NULL], ['locality_name', FIELD_STRING],
    ['type', FIELD_STRING], ['latitude', FIELD_STRING], ['longitude', FIELD_STRING], ['source', FIELD_STRING], ['wikiDataId', FIELD_STRING],
  ]),
  name: (r) => r.code() ?? '',
  decode: (r) => ({
    id: r.id(),
    code: r.code() ?? '',
    country_id: r.countryId(),
    country_code: r.countryCode() ?? '',
    state_id: r.stateId(),
    state_code: r.stateCode(),
    city_id: r.cityId(),
    locality_name: r.localityName(),
    type: r.type(),
    latitude: r.latitude(),
    longitude: r.longitude(),
    source: r.source(),
    wikiDataId: r.wikiDataId(),
  }),
};
