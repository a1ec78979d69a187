// The normalised record model: what every source adapter produces, what the FlatBuffers record
// tables hold, and what the runtime store gives back for a row. Field names follow the spec.
// Absent source keys are null. Coordinates keep the source's decimal text (the spec serves them
// as strings); numeric copies for the KD-trees are derived from them.
// JSON-text fields (`timezones`, `translations`) hold the compact JSON.stringify of the source
// value, or null. An empty source object/array (`{}`, `[]`) is stored as null: it carries no data,
// and the npm package writes `{}` where the contributions layout writes null for the same rows.

export interface RegionRecord {
  id: number;
  name: string;
  translations: string | null;
  wikiDataId: string | null;
}

export interface SubregionRecord extends RegionRecord {
  region_id: number;
}

export interface CountryRecord {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  numeric_code: string | null;
  phonecode: string | null;
  capital: string | null;
  currency: string | null;
  currency_name: string | null;
  currency_symbol: string | null;
  tld: string | null;
  native: string | null;
  population: number | null;
  gdp: number | null;
  region: string | null;
  region_id: number | null;
  subregion: string | null;
  subregion_id: number | null;
  nationality: string | null;
  area_sq_km: number | null;
  postal_code_format: string | null;
  postal_code_regex: string | null;
  timezones: string | null;
  translations: string | null;
  latitude: string | null;
  longitude: string | null;
  emoji: string | null;
  emojiU: string | null;
  wikiDataId: string | null;
}

export interface StateRecord {
  id: number;
  name: string;
  country_id: number;
  country_code: string;
  fips_code: string | null;
  iso2: string | null;
  iso3166_2: string | null;
  type: string | null;
  level: number | null;
  parent_id: number | null;
  native: string | null;
  latitude: string | null;
  longitude: string | null;
  timezone: string | null;
  translations: string | null;
  wikiDataId: string | null;
  population: number | null;
}

export interface CityRecord {
  id: number;
  name: string;
  state_id: number;
  state_code: string;
  country_id: number;
  country_code: string;
  type: string | null;
  /** The source holds small integers; the spec serves level as a string. */
  level: string | null;
  parent_id: number | null;
  latitude: string | null;
  longitude: string | null;
  native: string | null;
  population: number | null;
  timezone: string | null;
  translations: string | null;
  wikiDataId: string | null;
}

export interface PostcodeRecord {
  id: number;
  code: string;
  country_id: number;
  country_code: string;
  state_id: number | null;
  state_code: string | null;
  city_id: number | null;
  locality_name: string | null;
  type: string | null;
  latitude: string | null;
  longitude: string | null;
  source: string | null;
  wikiDataId: string | null;
}

export interface NormalisedDataset {
  regions: RegionRecord[];
  subregions: SubregionRecord[];
  countries: CountryRecord[];
  states: StateRecord[];
  cities: CityRecord[];
  postcodes: PostcodeRecord[];
  /** Where the data came from, e.g. `@countrystatecity/countries@1.0.9` or `contributions`. */
  sourceRelease: string;
}

export type EntityName = 'regions' | 'subregions' | 'countries' | 'states' | 'cities' | 'postcodes';
export const ENTITY_NAMES: readonly EntityName[] = ['regions', 'subregions', 'countries', 'states', 'cities', 'postcodes'];
