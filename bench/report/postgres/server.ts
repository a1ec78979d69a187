// Baseline 2, the stack most teams would build first: a plain Node `http` server over PostgreSQL 15
// (node-postgres pool, named prepared statements). Lookups and lists on B-tree indexes, fuzzy and
// autocomplete with pg_trgm (`%` on GIN indexes, similarity()) on the names as stored and on their
// unaccent() forms (geoapi's match_score: greatest(similarity(q, name),
// similarity(unaccent(q), unaccent(name)))), autocomplete prefixes with
// text_pattern_ops indexes, nearby as a bounding box on a GiST-indexed point plus haversine.
// Node only turns rows into JSON (and parses phone numbers, as geoapi does, with libphonenumber).
//   node dist/bench/report/postgres/server.js <unused> <port> <workers> <host> <pgport> <user> <schema>
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AUTOCOMPLETE_FUZZY_THRESHOLD, TRANSLATION_MIN_CHARS } from '../../../runtime/engine/search/autocomplete.js';
import { cityKind } from '../../../runtime/engine/search/city-kind.js';
import { roundKm } from '../../../runtime/engine/search/nearby.js';
import { EARTH_RADIUS_KM } from '../../../runtime/indexes/geo-index.js';
import { matchKey, postcodeDisplayQuery, postcodeKey } from '../../../runtime/text/normalise.js';
import { roundScore } from '../../../runtime/text/trigram.js';
import { baselineArgs, errorA, errorB, ok, serveBaseline, type Answer, type BaselineHandlers } from '../baselines/http.js';
import { parsePhone, type PhoneCountry } from '../baselines/phone.js';
import { CITY_FIELDS, COUNTRY_FIELDS, POSTCODE_FIELDS, STATE_FIELDS } from '../dataset.js';
import { quote, UNACCENT_FUNCTION } from './load.js';
import { boxesAround, likeEscape, likePrefix } from './sql-args.js';

const POOL_SIZE = 4;
/**
 * pg_trgm.similarity_threshold (the `%` operator), set per connection: autocomplete's trigram fill
 * threshold, the lowest `%` any query needs; fuzzy search filters its own threshold on top.
 */
const TRGM_THRESHOLD = AUTOCOMPLETE_FUZZY_THRESHOLD;
/** match_score of a column (and its unaccent() column) for the query $1, a float4 like similarity(). */
const matchScore = (column: string): string => `greatest(similarity($1, ${column}), similarity(${UNACCENT_FUNCTION}($1), ${column}_ua))`;
/** The rows whose column (or its unaccent() form) reaches the `%` threshold, on the GIN indexes. */
const trigramMatch = (column: string): string => `(${column} % $1 OR ${column}_ua % ${UNACCENT_FUNCTION}($1))`;

const select = (fields: readonly string[], alias: string): string => fields.map((f) => `${alias}.${quote(f)}`).join(', ');
const POSTCODE_SELECT = POSTCODE_FIELDS.map((f) => (['id', 'country_id', 'state_id', 'city_id'].includes(f) ? `p.${f}::text AS ${f}` : `p.${quote(f)}`)).join(', ');

function countryWhere(ciso: string): { where: string; value: string | number } | null {
  const text = ciso.trim().toUpperCase();
  if (/^[A-Z]{2}$/.test(text)) return { where: 'iso2 = $1', value: text };
  if (/^[A-Z]{3}$/.test(text)) return { where: 'iso3 = $1', value: text };
  if (/^\d{1,9}$/.test(text)) return { where: 'id = $1', value: Number(text) };
  return null;
}

const SQL = {
  countries: `SELECT ${select(COUNTRY_FIELDS, 'c')} FROM countries c ORDER BY c.sort_key, c.name, c.id`,
  states: `SELECT ${select(STATE_FIELDS, 's')} FROM states s WHERE s.country_id = $1 ORDER BY s.sort_key, s.name, s.id`,
  stateCities: `
    SELECT ${select(CITY_FIELDS, 'c')} FROM cities c
    WHERE c.state_id = (SELECT s.id FROM states s WHERE s.country_id = $1 AND s.iso2_key = $2 ORDER BY s.sort_key, s.name, s.id LIMIT 1)
    ORDER BY c.sort_key, c.name, c.id`,
  postcode: `SELECT ${POSTCODE_SELECT} FROM postcodes p WHERE p.country_code = $1 AND p.code_key = $2 ORDER BY p.id`,
  hasPostcodes: `SELECT EXISTS (SELECT 1 FROM postcodes WHERE country_code = $1) AS any`,
  postcodes: `
    SELECT ${POSTCODE_SELECT} FROM postcodes p
    WHERE p.country_code = $1
      AND ($2::text IS NULL OR p.state_key = $2)
      AND ($3::text IS NULL OR ($4 <> '' AND p.code_key LIKE $4 || '%') OR p.locality_key LIKE '%' || $3 || '%')
    ORDER BY p.code_key, p.code, p.id LIMIT $5`,
  // $1 q, $2 matchKey(q), $3 LIKE prefix pattern, $4 UTF-8 bytes of $2, $5 limit, $6 translations on.
  autocomplete: `
    WITH prefix AS (
      SELECT id, population,
        CASE WHEN name_key = $2 OR native_key = $2 THEN 0 ELSE 1 END AS bucket,
        CASE WHEN name_key = $2 OR native_key = $2 THEN 1::float8
             ELSE greatest(CASE WHEN name_key LIKE $3 THEN $4::float8 / octet_length(name_key) END,
                           CASE WHEN native_key LIKE $3 THEN $4::float8 / octet_length(native_key) END) END AS score,
        CASE WHEN name_key = $2 THEN 0 WHEN native_key = $2 THEN 1
             WHEN name_key LIKE $3 AND (native_key IS NULL OR native_key NOT LIKE $3 OR octet_length(name_key) <= octet_length(native_key)) THEN 0
             ELSE 1 END AS field
      FROM cities WHERE name_key LIKE $3 OR native_key LIKE $3
      ORDER BY bucket, population DESC NULLS LAST, id LIMIT $5),
    -- rank: the score as served, round(x::numeric, 2) of the float4 (rule 3 compares served scores).
    others AS (
      SELECT DISTINCT ON (id) id, 2 AS bucket, score, rank, field FROM (
        SELECT city_id AS id, t.score, round(t.score::numeric, 2) AS rank, 2 AS field FROM (
          SELECT city_id, CASE WHEN octet_length(key) = $4 THEN 1::float8 ELSE $4::float8 / octet_length(key) END AS score
          FROM city_translations WHERE $6 AND key LIKE $3) t
        UNION ALL
        SELECT id, t.score::float8, round(t.score::numeric, 2), 0 FROM (SELECT id, ${matchScore('name')} AS score FROM cities WHERE ${trigramMatch('name')}) t
        UNION ALL
        SELECT id, t.score::float8, round(t.score::numeric, 2), 1 FROM (SELECT id, ${matchScore('native')} AS score FROM cities WHERE ${trigramMatch('native')}) t) m
      WHERE (SELECT count(*) FROM prefix) < $5 AND id NOT IN (SELECT id FROM prefix)
      ORDER BY id, score DESC, field)
    SELECT r.bucket, r.score, r.field, ${select(CITY_FIELDS, 'c')}, s.name AS state_name, co.name AS country_name
    FROM (SELECT id, bucket, score, NULL::numeric AS rank, field FROM prefix UNION ALL SELECT id, bucket, score, rank, field FROM others) r
    JOIN cities c ON c.id = r.id LEFT JOIN states s ON s.id = c.state_id LEFT JOIN countries co ON co.id = c.country_id
    ORDER BY r.bucket, r.rank DESC, c.population DESC NULLS LAST, c.id LIMIT $5`,
  // $1 q, $2 limit, $3 threshold (≥ the `%` threshold: the index finds every candidate).
  fuzzy: `
    SELECT ${select(CITY_FIELDS, 'c')}, co.name AS country_name, s.name AS state_name, m.score, m.alias FROM (
      SELECT id, greatest(sn, coalesce(sv, 0)) AS score, coalesce(sv, 0) > sn AS alias FROM (
        SELECT id, ${matchScore('name')} AS sn, ${matchScore('native')} AS sv FROM cities WHERE ${trigramMatch('name')} OR ${trigramMatch('native')}) x
      WHERE greatest(sn, coalesce(sv, 0)) >= $3) m
    JOIN cities c USING (id) LEFT JOIN countries co ON co.id = c.country_id LEFT JOIN states s ON s.id = c.state_id
    ORDER BY m.score DESC, c.population DESC NULLS LAST, c.id LIMIT $2`,
  fuzzyLowThreshold: `
    SELECT ${select(CITY_FIELDS, 'c')}, co.name AS country_name, s.name AS state_name, m.score, m.alias FROM (
      SELECT id, greatest(sn, coalesce(sv, 0)) AS score, coalesce(sv, 0) > sn AS alias FROM (
        SELECT id, ${matchScore('name')} AS sn, ${matchScore('native')} AS sv FROM cities) x
      WHERE greatest(sn, coalesce(sv, 0)) >= $3) m
    JOIN cities c USING (id) LEFT JOIN countries co ON co.id = c.country_id LEFT JOIN states s ON s.id = c.state_id
    ORDER BY m.score DESC, c.population DESC NULLS LAST, c.id LIMIT $2`,
  // $1 lat, $2 lng, $3–$6 and $7–$10 boxes (two across ±180°), $11 radius km, $12 limit.
  nearby: `
    SELECT ${select(CITY_FIELDS, 'c')}, co.name AS country_name, s.name AS state_name, n.d FROM (
      SELECT id, 2 * ${EARTH_RADIUS_KM} * asin(sqrt(least(1,
               cos(radians($1)) * cos(radians(lat)) * sin(radians($2 - lng) / 2) ^ 2 + sin(radians($1 - lat) / 2) ^ 2))) AS d
      FROM cities WHERE geo <@ box(point($3, $4), point($5, $6)) OR geo <@ box(point($7, $8), point($9, $10))) n
    JOIN cities c USING (id) LEFT JOIN countries co ON co.id = c.country_id LEFT JOIN states s ON s.id = c.state_id
    WHERE n.d <= $11 ORDER BY n.d, c.id LIMIT $12`,
  phone: `SELECT iso2, iso3, phonecode FROM countries WHERE phone_prefixes && $1::text[]`,
};

const FIELD_NAMES = ['name', 'native', 'translation'];

function cityOf(row: Record<string, unknown>): Record<string, unknown> {
  const city: Record<string, unknown> = {};
  for (const field of CITY_FIELDS) city[field] = row[field];
  return city;
}

export function pgHandlers(pool: pg.Pool): BaselineHandlers {
  const query = async (name: keyof typeof SQL | string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows;
  const countryId = async (ciso: string): Promise<number | null> => {
    const where = countryWhere(ciso);
    if (!where) return null;
    const rows = await query(`countryId:${where.where}`, `SELECT id FROM countries WHERE ${where.where}`, [where.value]);
    return rows.length > 0 ? (rows[0]!.id as number) : null;
  };

  return {
    async countries() {
      return ok(await query('countries', SQL.countries, []));
    },

    async country(ciso) {
      const where = countryWhere(ciso);
      const rows = where ? await query(`country:${where.where}`, `SELECT ${select(COUNTRY_FIELDS, 'c')} FROM countries c WHERE c.${where.where}`, [where.value]) : [];
      return rows.length > 0 ? ok(rows[0]) : errorA(404, 'Country not found.');
    },

    async states(ciso) {
      const id = await countryId(ciso);
      const rows = id === null ? [] : await query('states', SQL.states, [id]);
      return rows.length > 0 ? ok(rows) : errorA(404, 'No States/Regions found.');
    },

    async stateCities(ciso, siso) {
      const id = await countryId(ciso);
      const rows = id === null ? [] : await query('stateCities', SQL.stateCities, [id, siso.trim().toUpperCase()]);
      return rows.length > 0 ? ok(rows) : errorA(404, 'No Cities found.');
    },

    async postcode(countryCode, code) {
      const cc = countryCode.toUpperCase();
      const display = postcodeDisplayQuery(code);
      const matches = await query('postcode', SQL.postcode, [cc, postcodeKey(code)]);
      const exact = matches.filter((row) => postcodeDisplayQuery(row.code as string) === display);
      const rows = exact.length > 0 ? exact : matches;
      if (rows.length > 0) return ok({ data: rows, meta: { country_code: cc, query: display, match_count: rows.length } });
      if ((await countryId(cc)) === null) return errorB(404, `Country ${cc} not found.`, { reason: 'country_not_found' });
      const [coverage] = await query('hasPostcodes', SQL.hasPostcodes, [cc]);
      if (!coverage!.any) return errorB(404, `No postcode data for ${cc}.`, { reason: 'postcode_coverage_unavailable' });
      return errorB(404, `Postcode not found in ${cc}.`, { reason: 'postcode_not_found' });
    },

    async postcodes(countryCode, { q, stateCode, limit }) {
      const cc = countryCode.toUpperCase();
      const qKey = q === null ? null : matchKey(q.trim());
      const codePrefix = qKey === null ? '' : likeEscape(postcodeKey(qKey));
      const rows = await query('postcodes', SQL.postcodes, [cc, stateCode?.toUpperCase() ?? null, qKey === null ? null : likeEscape(qKey), codePrefix, limit + 1]);
      if (rows.length === 0 && (await countryId(cc)) === null) return errorB(404, `Country ${cc} not found.`, { reason: 'country_not_found' });
      const hasMore = rows.length > limit;
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const nextCursor = hasMore && last ? Buffer.from(JSON.stringify([cc, last.id])).toString('base64url') : null;
      return ok({ data: page, pagination: { limit, next_cursor: nextCursor, has_more: hasMore } });
    },

    async autocomplete({ q, limit }): Promise<Answer> {
      if ([...q].length < 2) return errorB(400, 'Invalid query parameters: q: Search query must be at least 2 characters');
      const key = matchKey(q);
      const values = [q, key, likePrefix(key), Buffer.byteLength(key, 'utf8'), limit, [...key].length >= TRANSLATION_MIN_CHARS];
      const rows = await query('autocomplete', SQL.autocomplete, values);
      return ok(
        rows.map((row) => {
          const label = [row.name, row.state_name, row.country_name].filter((part) => part).join(', ');
          return { ...cityOf(row), type: 'city', label, match_score: roundScore(row.score as number), matched_field: FIELD_NAMES[row.field as number] };
        }),
      );
    },

    async fuzzy({ q, limit, threshold }): Promise<Answer> {
      if ([...q].length < 2) return errorA(400, 'Invalid query parameters: q: Search query must be at least 2 characters');
      const rows = threshold >= TRGM_THRESHOLD ? await query('fuzzy', SQL.fuzzy, [q, limit, threshold]) : await query('fuzzyLowThreshold', SQL.fuzzyLowThreshold, [q, limit, threshold]);
      return ok(
        rows.map((row) => ({
          ...cityOf(row),
          country_name: row.country_name,
          state_name: row.state_name,
          match_score: roundScore(row.score as number),
          matched_alias: row.alias ? row.native : null,
        })),
      );
    },

    async nearby({ lat, lng, radiusKm, limit }): Promise<Answer> {
      if (!(lat >= -90 && lat <= 90)) return errorB(400, 'Invalid query parameters: lat: lat must be between -90 and 90');
      if (!(lng >= -180 && lng <= 180)) return errorB(400, 'Invalid query parameters: lng: lng must be between -180 and 180');
      const [a, b = a] = boxesAround(lat, lng, radiusKm);
      const rows = await query('nearby', SQL.nearby, [lat, lng, ...a!, ...b!, radiusKm, limit]);
      return ok(
        rows.map((row) => ({
          ...cityOf(row),
          country_name: row.country_name,
          state_name: row.state_name,
          distance_km: roundKm(row.d as number),
          kind: cityKind(row.type as string | null),
        })),
      );
    },

    phoneParse(number) {
      return parsePhone(number, async (prefixes) => (await query('phone', SQL.phone, [prefixes])) as unknown as PhoneCountry[]);
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { port, workers, extra } = baselineArgs();
  const [host, pgPort, user, schema] = extra;
  if (!host || !pgPort || !user || !schema) throw new Error(`expected <host> <pgport> <user> <schema> after the common arguments, found ${extra.join(' ')}`);
  await serveBaseline(port, workers, async () => {
    const pool = new pg.Pool({
      host,
      port: Number(pgPort),
      user,
      database: 'postgres',
      max: POOL_SIZE,
      // Parameterised LIKE prefixes use the pattern indexes only in custom plans.
      options: `-c search_path=${schema},public -c plan_cache_mode=force_custom_plan -c pg_trgm.similarity_threshold=${TRGM_THRESHOLD}`,
    });
    // Open the connections now: the first requests should not pay for them.
    const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
    for (const client of clients) client.release();
    return pgHandlers(pool);
  });
}
