// Field lists with access tiers (and, as decisions.md lists them, the sortable fields) of every entity and fixed-shape answer the API serves (spec
// "Data-access tiers", decisions.md). Projection and serialisation: ./projection.ts.
import { defineEntityFields } from './projection.js';

const N = 'number' as const;
const T = 'text' as const;

/** Countries have two tiers, Basic and Full (which plan gets which: `countryTier` in data/policy.json). */
export const COUNTRY_FIELDS = defineEntityFields('countries', [
  ['id', 'basic', N], ['name', 'basic', T], ['iso2', 'basic', T], ['iso3', 'basic', T], ['phonecode', 'basic', N],
  ['capital', 'basic', T], ['currency', 'basic', T], ['native', 'basic', T], ['emoji', 'basic', T],
  ['latitude', 'basic', N], ['longitude', 'basic', N], ['region', 'basic', T], ['region_id', 'basic', N],
  ['subregion', 'basic', T], ['subregion_id', 'basic', N], ['timezones', 'basic', T],
  ['numeric_code', 'full', N], ['currency_name', 'full', T], ['currency_symbol', 'full', T], ['tld', 'full', T],
  ['nationality', 'full', T], ['population', 'full', N], ['gdp', 'full', N], ['area_sq_km', 'full', N],
  ['postal_code_format', 'full', T], ['postal_code_regex', 'full', T], ['emojiU', 'full', T],
  ['translations', 'full', T, 'onRequest'], ['wikiDataId', 'full', T],
  ['localized_name', 'full', T, 'computed'], ['matched_locale', 'full', T, 'computed'],
], ['id', 'name', 'iso2', 'iso3', 'population', 'gdp', 'area_sq_km', 'latitude', 'longitude']);

/** decisions.md: Basic = id … timezone; Coordinates adds fips_code … population; Full adds translations, wikiDataId. */
export const STATE_FIELDS = defineEntityFields('states', [
  ['id', 'basic', N], ['name', 'basic', T], ['iso2', 'basic', T], ['country_id', 'basic', N], ['country_code', 'basic', T],
  ['latitude', 'basic', N], ['longitude', 'basic', N], ['timezone', 'basic', T],
  ['fips_code', 'coordinates', T], ['iso3166_2', 'coordinates', T], ['type', 'coordinates', T], ['level', 'coordinates', N],
  ['parent_id', 'coordinates', N], ['native', 'coordinates', T], ['population', 'coordinates', N],
  ['translations', 'full', T], ['wikiDataId', 'full', T],
], ['id', 'name', 'iso2', 'country_code', 'population', 'latitude', 'longitude']);

/** The spec's City table: Basic is only id and name. */
export const CITY_FIELDS = defineEntityFields('cities', [
  ['id', 'basic', N], ['name', 'basic', T],
  ['state_id', 'coordinates', N], ['state_code', 'coordinates', T], ['country_id', 'coordinates', N],
  ['country_code', 'coordinates', T], ['latitude', 'coordinates', N], ['longitude', 'coordinates', N],
  ['timezone', 'coordinates', T], ['population', 'coordinates', N], ['type', 'coordinates', T],
  ['level', 'coordinates', T], ['parent_id', 'coordinates', N], ['native', 'coordinates', T],
  ['translations', 'full', T], ['wikiDataId', 'full', T],
], ['id', 'name', 'state_code', 'country_code', 'population', 'latitude', 'longitude']);

/** wikiDataId from Coordinates; translations and localized names Supporter+ (= Coordinates tier), on request. */
export const REGION_FIELDS = defineEntityFields('regions', [
  ['id', 'basic', N], ['name', 'basic', T], ['wikiDataId', 'coordinates', T],
  ['translations', 'coordinates', T, 'onRequest'],
  ['localized_name', 'coordinates', T, 'computed'], ['matched_locale', 'coordinates', T, 'computed'],
], ['id', 'name']);

export const SUBREGION_FIELDS = defineEntityFields('subregions', [
  ['id', 'basic', N], ['name', 'basic', T], ['region_id', 'basic', N], ['wikiDataId', 'coordinates', T],
  ['translations', 'coordinates', T, 'onRequest'],
  ['localized_name', 'coordinates', T, 'computed'], ['matched_locale', 'coordinates', T, 'computed'],
], ['id', 'name', 'region_id']);

// Fixed-shape answers (every field Basic): `fields` trims them like the entity lists.
export const PHONE_FIELDS = defineEntityFields('phone', [
  ['country', 'basic', T], ['dial_code', 'basic', N], ['area_code', 'basic', N], ['iso2', 'basic', T], ['iso3', 'basic', T],
]);

export const PHONE_PARSE_FIELDS = defineEntityFields('phoneParse', [
  ['country', 'basic', T], ['dial_code', 'basic', N], ['area_code', 'basic', N], ['iso2', 'basic', T], ['iso3', 'basic', T],
  ['national_number', 'basic', T], ['e164', 'basic', T],
]);

export const CURRENCY_FIELDS = defineEntityFields('currency', [['country', 'basic', T], ['currency', 'basic', 'none']]);

export const TIMEZONE_FIELDS = defineEntityFields('timezone', [
  ['iana', 'basic', T], ['abbreviation', 'basic', T], ['offset_utc', 'basic', T], ['dst_offset_utc', 'basic', T],
  ['is_dst_now', 'basic', T],
]);

export const ISO_COUNTRY_FIELDS = defineEntityFields('isoCountry', [
  ['id', 'basic', N], ['name', 'basic', T], ['iso2', 'basic', T], ['iso3', 'basic', T], ['numeric_code', 'basic', N],
]);

export const ISO_STATE_FIELDS = defineEntityFields('isoState', [
  ['id', 'basic', N], ['name', 'basic', T], ['iso2', 'basic', T], ['iso3166_2', 'basic', T], ['country_id', 'basic', N],
  ['country_code', 'basic', T],
]);
