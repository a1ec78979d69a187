// Loads the raw dataset into one schema of the PostgreSQL baseline: one table per entity with the
// API's columns, the keys an import script would precompute (matchKey forms, postcode keys, dial
// prefixes), and the indexes the queries need: B-trees for lookups and ordered lists, pg_trgm GIN
// for similarity (on the names as stored and on their unaccent() forms, stored columns `name_ua`,
// `native_ua` generated through an IMMUTABLE wrapper of the `unaccent` extension), a GiST index
// on the city points for the nearby bounding box.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { matchKey, postcodeKey } from '../../../runtime/text/normalise.js';
import { CITY_FIELDS, COUNTRY_FIELDS, POSTCODE_FIELDS, STATE_FIELDS, type RawDataset } from '../dataset.js';
import { prefixesOf } from '../baselines/phone.js';

export interface PgConnection {
  host: string;
  port: number;
  user: string;
}

/** Column types of the API fields (the rest are text). */
const TYPES: Record<string, string> = {
  id: 'int',
  region_id: 'int',
  subregion_id: 'int',
  country_id: 'int',
  state_id: 'int',
  city_id: 'int',
  parent_id: 'int',
  population: 'float8',
  gdp: 'float8',
  area_sq_km: 'float8',
};

export const quote = (column: string): string => (/^[a-z_]+$/.test(column) ? column : `"${column}"`);

function columns(fields: readonly string[], overrides: Record<string, string> = {}): string {
  return fields.map((f) => `${quote(f)} ${overrides[f] ?? TYPES[f] ?? 'text'}`).join(', ');
}

/**
 * unaccent() with the extension's default dictionary, declared IMMUTABLE so that generated columns
 * (and expression indexes) may use it — the usual wrapper, since unaccent() itself is only STABLE.
 */
export const UNACCENT_FUNCTION = 'immutable_unaccent';

const DDL = (schema: string): string[] => [
  `DROP SCHEMA IF EXISTS ${schema} CASCADE`,
  `CREATE SCHEMA ${schema}`,
  `CREATE FUNCTION ${schema}.${UNACCENT_FUNCTION}(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
     AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$`,
  `CREATE TABLE ${schema}.countries (${columns(COUNTRY_FIELDS)}, sort_key text COLLATE "C" NOT NULL, phone_prefixes text[] NOT NULL)`,
  `CREATE TABLE ${schema}.states (${columns(STATE_FIELDS, { level: 'int' })}, sort_key text COLLATE "C" NOT NULL, iso2_key text)`,
  `CREATE TABLE ${schema}.cities (${columns(CITY_FIELDS)}, sort_key text COLLATE "C" NOT NULL, name_key text COLLATE "C" NOT NULL,
     native_key text COLLATE "C", lat float8, lng float8, geo point GENERATED ALWAYS AS (point(lng, lat)) STORED,
     name_ua text GENERATED ALWAYS AS (${schema}.${UNACCENT_FUNCTION}(name)) STORED,
     native_ua text GENERATED ALWAYS AS (${schema}.${UNACCENT_FUNCTION}(native)) STORED)`,
  `CREATE TABLE ${schema}.city_translations (city_id int NOT NULL, key text COLLATE "C" NOT NULL)`,
  `CREATE TABLE ${schema}.postcodes (${columns(POSTCODE_FIELDS, { latitude: 'float8', longitude: 'float8' })},
     code_key text COLLATE "C" NOT NULL, locality_key text, state_key text)`,
];

const INDEXES = (schema: string): string[] => [
  `ALTER TABLE ${schema}.countries ADD PRIMARY KEY (id)`,
  `CREATE UNIQUE INDEX ON ${schema}.countries (iso2)`,
  `CREATE UNIQUE INDEX ON ${schema}.countries (iso3)`,
  `CREATE INDEX ON ${schema}.countries (sort_key, name, id)`,
  `CREATE INDEX ON ${schema}.countries USING gin (phone_prefixes)`,
  `ALTER TABLE ${schema}.states ADD PRIMARY KEY (id)`,
  `CREATE INDEX ON ${schema}.states (country_id, sort_key, name, id)`,
  `CREATE INDEX ON ${schema}.states (country_id, iso2_key)`,
  `ALTER TABLE ${schema}.cities ADD PRIMARY KEY (id)`,
  `CREATE INDEX ON ${schema}.cities (state_id, sort_key, name, id)`,
  `CREATE INDEX ON ${schema}.cities (name_key text_pattern_ops)`,
  `CREATE INDEX ON ${schema}.cities (native_key text_pattern_ops)`,
  `CREATE INDEX ON ${schema}.cities USING gin (name gin_trgm_ops)`,
  `CREATE INDEX ON ${schema}.cities USING gin (native gin_trgm_ops)`,
  `CREATE INDEX ON ${schema}.cities USING gin (name_ua gin_trgm_ops)`,
  `CREATE INDEX ON ${schema}.cities USING gin (native_ua gin_trgm_ops)`,
  `CREATE INDEX ON ${schema}.cities USING gist (geo)`,
  `CREATE INDEX ON ${schema}.city_translations (key text_pattern_ops)`,
  `CREATE INDEX ON ${schema}.postcodes (country_code, code_key, code, id)`,
  `CREATE INDEX ON ${schema}.postcodes (country_code, state_key, code_key, code, id)`,
  `CREATE INDEX ON ${schema}.postcodes USING gin (locality_key gin_trgm_ops)`,
  `ANALYZE`,
];

/** Inserts rows (objects keyed by column) in batches; the columns are those of the first row. */
async function insertJson(client: pg.Client, table: string, rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  const list = Object.keys(rows[0]!).map(quote).join(', ');
  const BATCH = 5000;
  for (let start = 0; start < rows.length; start += BATCH) {
    await client.query(`INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(null::${table}, $1::json)`, [
      JSON.stringify(rows.slice(start, start + BATCH)),
    ]);
  }
}

export interface LoadStats {
  ms: number;
  rows: number;
}

/** Creates `schema` and loads `dataset` into it (cities' translations, postcodes when present). */
export async function loadSchema(connection: PgConnection, schema: string, dataset: RawDataset): Promise<LoadStats> {
  const t = performance.now();
  const client = new pg.Client({ ...connection, database: 'postgres' });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await client.query('CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public');
    for (const ddl of DDL(schema)) await client.query(ddl);
    let rows = 0;
    const countries = dataset.countries.map((c) => ({ ...c, sort_key: matchKey(c.name), phone_prefixes: prefixesOf(c) }));
    await insertJson(client, `${schema}.countries`, countries);
    const states = dataset.states.map((s) => ({ ...s, sort_key: matchKey(s.name), iso2_key: s.iso2?.toUpperCase() ?? null }));
    await insertJson(client, `${schema}.states`, states);
    rows += countries.length + states.length;
    for (const list of dataset.citiesByCountry.values()) {
      const cities = list.map((c) => ({
        ...c,
        sort_key: matchKey(c.name),
        name_key: matchKey(c.name),
        native_key: c.native ? matchKey(c.native) : null,
        lat: c.latitude === null ? null : Number(c.latitude),
        lng: c.longitude === null ? null : Number(c.longitude),
      }));
      await insertJson(client, `${schema}.cities`, cities);
      const translations: { city_id: number; key: string }[] = [];
      for (const city of list) {
        if (!city.translations) continue;
        const keys = new Set(Object.values(JSON.parse(city.translations) as Record<string, unknown>).filter((t): t is string => typeof t === 'string').map(matchKey));
        for (const key of keys) if (key !== '') translations.push({ city_id: city.id, key });
      }
      await insertJson(client, `${schema}.city_translations`, translations);
      rows += cities.length + translations.length;
    }
    for (const list of dataset.postcodesByCountry.values()) {
      const postcodes = list.map((p) => ({
        ...p,
        code_key: postcodeKey(p.code),
        locality_key: p.locality_name ? matchKey(p.locality_name) : null,
        state_key: p.state_code?.toUpperCase() ?? null,
      }));
      await insertJson(client, `${schema}.postcodes`, postcodes);
      rows += postcodes.length;
    }
    for (const ddl of INDEXES(schema)) await client.query(ddl);
    return { ms: performance.now() - t, rows };
  } finally {
    await client.end();
  }
}

/**
 * Leaves the loaded database with nothing left to write, so its background processes stay idle
 * while the other systems are measured (the cluster keeps running then): every table vacuumed and
 * frozen (the first reads of a loaded table otherwise set each row's hint bits, dirtying every page
 * again), every dirty buffer written out by a checkpoint now rather than by the timed ones spread
 * over the next minutes, and the kernel's dirty pages flushed (`sync`, which also writes what the
 * snapshot build left). With autovacuum off and a day's checkpoint timeout (cluster.ts) nothing
 * starts later: the data never changes.
 */
export async function settleDatabase(connection: PgConnection): Promise<number> {
  const t = performance.now();
  const client = new pg.Client({ ...connection, database: 'postgres' });
  await client.connect();
  try {
    await client.query('VACUUM (FREEZE, ANALYZE)');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
  spawnSync('sync');
  return performance.now() - t;
}
