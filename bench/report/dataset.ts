// The raw dataset (upstream `contributions/` layout) read with JSON.parse, and each record turned
// into the Full-tier JSON object geoapi serves (field order and types of the API; absent keys →
// null, translations/timezones → JSON text, city level → string). Shared by the two baselines,
// the PostgreSQL loader and the workload generator; geoapi itself reads the snapshot instead.
// Also writes the reduced copies (10 %, 50 % of the cities) for the growth benchmark.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { percentileOfId } from './random.js';

type Json = Record<string, unknown>;

/** Full-tier fields, in the order geoapi writes them. Countries: translations only on request. */
export const COUNTRY_FIELDS = [
  'id', 'name', 'iso2', 'iso3', 'phonecode', 'capital', 'currency', 'native', 'emoji', 'latitude', 'longitude',
  'region', 'region_id', 'subregion', 'subregion_id', 'timezones', 'numeric_code', 'currency_name',
  'currency_symbol', 'tld', 'nationality', 'population', 'gdp', 'area_sq_km', 'postal_code_format',
  'postal_code_regex', 'emojiU', 'wikiDataId',
] as const;
export const STATE_FIELDS = [
  'id', 'name', 'iso2', 'country_id', 'country_code', 'latitude', 'longitude', 'timezone', 'fips_code', 'iso3166_2',
  'type', 'level', 'parent_id', 'native', 'population', 'translations', 'wikiDataId',
] as const;
export const CITY_FIELDS = [
  'id', 'name', 'state_id', 'state_code', 'country_id', 'country_code', 'latitude', 'longitude', 'timezone',
  'population', 'type', 'level', 'parent_id', 'native', 'translations', 'wikiDataId',
] as const;
export const POSTCODE_FIELDS = [
  'id', 'code', 'country_code', 'state_code', 'locality_name', 'type', 'country_id', 'state_id', 'city_id',
  'latitude', 'longitude', 'source', 'wikiDataId',
] as const;

export interface Country extends Json {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  phonecode: string | null;
}
export interface State extends Json {
  id: number;
  name: string;
  iso2: string | null;
  country_id: number;
  country_code: string;
}
export interface City extends Json {
  id: number;
  name: string;
  state_id: number;
  state_code: string;
  country_id: number;
  country_code: string;
  latitude: string | null;
  longitude: string | null;
  population: number | null;
  type: string | null;
  native: string | null;
  translations: string | null;
}
export interface Postcode extends Json {
  id: string;
  code: string;
  country_code: string;
  state_code: string | null;
  locality_name: string | null;
}

export interface RawDataset {
  /** The contributions/ directory read. */
  root: string;
  countries: Country[];
  states: State[];
  /** One array per cities/XX.json file, in file order (the files are per country). */
  citiesByCountry: Map<string, City[]>;
  /** One array per postcodes/XX.json file (empty when postcodes were not read). */
  postcodesByCountry: Map<string, Postcode[]>;
}

/** The contributions/ directory of a dataset directory (the directory itself or its child). */
export function contributionsRoot(dir: string): string {
  const direct = resolve(dir);
  if (existsSync(join(direct, 'countries', 'countries.json'))) return direct;
  const nested = join(direct, 'contributions');
  if (existsSync(join(nested, 'countries', 'countries.json'))) return nested;
  throw new Error(`expected a contributions/ dataset (countries/countries.json) in ${dir}, found none`);
}

function readJsonArray(path: string): Json[] {
  const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!Array.isArray(value)) throw new Error(`${path}: expected a JSON array, found ${typeof value}`);
  return value as Json[];
}

function jsonFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.json')).sort() : [];
}

const nullable = (value: unknown): unknown => (value === undefined ? null : value);

/** A JSON value served as JSON text; empty objects/arrays carry nothing and are null (as geoapi). */
function jsonText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && Object.keys(value as object).length === 0) return null;
  return JSON.stringify(value);
}

function shape(raw: Json, fields: readonly string[], convert: Record<string, (value: unknown) => unknown> = {}): Json {
  const out: Json = {};
  for (const field of fields) {
    const value = raw[field];
    out[field] = convert[field] ? convert[field]!(value) : nullable(value);
  }
  return out;
}

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined || value === '' ? null : Number(value));
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

export function countryOf(raw: Json): Country {
  return shape(raw, COUNTRY_FIELDS, { timezones: jsonText }) as Country;
}

export function stateOf(raw: Json): State {
  // The source holds some state populations as digit strings; the API serves integers.
  return shape(raw, STATE_FIELDS, { translations: jsonText, population: numberOrNull }) as State;
}

export function cityOf(raw: Json): City {
  return shape(raw, CITY_FIELDS, { translations: jsonText, level: textOrNull }) as City;
}

export function postcodeOf(raw: Json): Postcode {
  return shape(raw, POSTCODE_FIELDS, {
    id: textOrNull,
    country_id: textOrNull,
    state_id: textOrNull,
    city_id: textOrNull,
    latitude: numberOrNull,
    longitude: numberOrNull,
  }) as Postcode;
}

/** Reads the dataset; `postcodes: false` skips the (large) postcode files. */
export function readDataset(dir: string, options: { postcodes: boolean }): RawDataset {
  const root = contributionsRoot(dir);
  const countries = readJsonArray(join(root, 'countries', 'countries.json')).map(countryOf);
  const states = readJsonArray(join(root, 'states', 'states.json')).map(stateOf);
  const citiesByCountry = new Map<string, City[]>();
  for (const file of jsonFiles(join(root, 'cities'))) {
    // Upstream assigns ids on import: rows without one are not served (geoapi skips them too).
    const rows = readJsonArray(join(root, 'cities', file)).filter((row) => typeof row.id === 'number');
    citiesByCountry.set(file.slice(0, -5).toUpperCase(), rows.map(cityOf));
  }
  const postcodesByCountry = new Map<string, Postcode[]>();
  if (options.postcodes) {
    for (const file of jsonFiles(join(root, 'postcodes'))) {
      postcodesByCountry.set(file.slice(0, -5).toUpperCase(), readJsonArray(join(root, 'postcodes', file)).map(postcodeOf));
    }
  }
  return { root, countries, states, citiesByCountry, postcodesByCountry };
}

export function allCities(dataset: RawDataset): City[] {
  return [...dataset.citiesByCountry.values()].flat();
}

/**
 * Writes a copy of `source` keeping `percent` % of the cities (chosen by id, so nested sizes are
 * subsets) and no postcodes; the other files are symlinked. Returns the new dataset directory.
 */
export function writeSampledDataset(source: string, outDir: string, percent: number): string {
  const root = contributionsRoot(source);
  const out = join(outDir, 'contributions');
  for (const folder of ['regions', 'subregions', 'countries', 'states']) {
    mkdirSync(join(out, folder), { recursive: true });
    for (const file of jsonFiles(join(root, folder))) symlinkSync(join(root, folder, file), join(out, folder, file));
  }
  mkdirSync(join(out, 'cities'), { recursive: true });
  let kept = 0;
  for (const file of jsonFiles(join(root, 'cities'))) {
    const rows = readJsonArray(join(root, 'cities', file)).filter((row) => typeof row.id === 'number' && percentileOfId(row.id) < percent);
    kept += rows.length;
    writeFileSync(join(out, 'cities', file), JSON.stringify(rows));
  }
  if (kept === 0) throw new Error(`sampling ${percent} % of the cities of ${source}: expected some cities, found none`);
  return outDir;
}
