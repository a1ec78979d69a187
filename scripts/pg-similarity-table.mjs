#!/usr/bin/env node
// Asks a running PostgreSQL 15 (pg_trgm) for the ground truth our runtime/text/trigram.ts must
// reproduce, so the fuzzy match_score stays pg_trgm's similarity() exactly.
//
//   node scripts/pg-similarity-table.mjs            rewrites test/fixtures/pg-similarity.json:
//                                                   ~1,500 (query, name) pairs drawn from the full
//                                                   dataset (../shared/data/csc) with typo'd
//                                                   queries, PG's similarity(), its 2-decimal
//                                                   rounding, and show_trgm() for a subset, then
//                                                   what --unaccent adds.
//   node scripts/pg-similarity-table.mjs --unaccent adds to the existing fixture (pairs kept):
//                                                   accent edge pairs, and per pair
//                                                   similarity(unaccent(q), unaccent(name)) and
//                                                   the match_score (the higher of the two,
//                                                   decisions.md) with its 2-decimal rounding.
//   node scripts/pg-similarity-table.mjs --ctype    prints the character tables (word characters
//                                                   and lower-case mapping of the server's
//                                                   LC_CTYPE) in the encoding trigram.ts embeds.
//
// Connection: psql CLI with GEOAPI_TEST_PG_HOST (127.0.0.1), GEOAPI_TEST_PG_PORT (5432),
// GEOAPI_TEST_PG_USER (postgres), GEOAPI_TEST_PG_DATABASE (postgres). The server must be a
// UTF8 database with LC_CTYPE C.UTF-8 (the locale the fixture records). A throwaway server:
//
//   apt-get install -y postgresql-15          # Debian 12; pg_trgm ships in postgresql-15
//   mkdir -p /tmp/pg && chown postgres /tmp/pg
//   su postgres -c "/usr/lib/postgresql/15/bin/initdb -D /tmp/pg/data --locale=C.UTF-8 --encoding=UTF8 -U postgres"
//   su postgres -c "/usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pg/data -l /tmp/pg/log -o '-p 54329 -k /tmp/pg -c listen_addresses=127.0.0.1' -w start"
//   GEOAPI_TEST_PG_PORT=54329 node scripts/pg-similarity-table.mjs
//   su postgres -c "/usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pg/data -w stop"
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataRoot = path.resolve(repoRoot, '../shared/data/csc/contributions');
const fixtureFile = path.join(repoRoot, 'test/fixtures/pg-similarity.json');

/** Runs SQL through psql (stdin), returns unaligned rows split on '|'. */
function psql(sql) {
  const env = process.env;
  const args = [
    '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1',
    '-h', env.GEOAPI_TEST_PG_HOST ?? '127.0.0.1',
    '-p', env.GEOAPI_TEST_PG_PORT ?? '5432',
    '-U', env.GEOAPI_TEST_PG_USER ?? 'postgres',
    '-d', env.GEOAPI_TEST_PG_DATABASE ?? 'postgres',
  ];
  const out = execFileSync('psql', args, { input: sql, encoding: 'utf8', maxBuffer: 1 << 30 });
  return out.split('\n').filter((line) => line.length > 0).map((line) => line.split('|'));
}

function sqlString(text) {
  return `'${text.replaceAll("'", "''")}'`;
}

function serverFacts() {
  const [[version, lcCtype, lcCollate, encoding]] = psql(
    "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS pg_trgm; SELECT current_setting('server_version'), current_setting('lc_ctype'), current_setting('lc_collate'), current_setting('server_encoding');",
  );
  return { version, lcCtype, lcCollate, encoding };
}

// ---- --ctype: word characters and towlower() of the server's LC_CTYPE -------------------------

function ctypeTables() {
  // A code point is a word character for pg_trgm when 'a' || chr(cp) || 'a' is one word (4
  // trigrams, fewer only if hashes collide) rather than two (2 trigrams).
  const rows = psql(
    "SELECT cp, array_length(show_trgm('a' || chr(cp) || 'a'), 1), ascii(lower(chr(cp))) FROM generate_series(1, 1114111) cp WHERE cp NOT BETWEEN 55296 AND 57343 ORDER BY cp;",
  );
  const wordRanges = [];
  const lowerPairs = [];
  for (const [cpText, countText, lowerText] of rows) {
    const cp = Number(cpText);
    const lower = Number(lowerText);
    if (Number(countText) > 2) {
      const last = wordRanges[wordRanges.length - 1];
      if (last && last[1] === cp - 1) last[1] = cp;
      else wordRanges.push([cp, cp]);
    }
    if (lower !== cp) lowerPairs.push([cp, lower - cp]);
  }
  // Word ranges: "gap.length" per range, base 36, gap from the previous range's end.
  let previousEnd = 0;
  const word = wordRanges.map(([start, end]) => {
    const item = `${(start - previousEnd).toString(36)}.${(end - start).toString(36)}`;
    previousEnd = end;
    return item;
  });
  // Lower-case runs: code points start, start+step, … (count of them) all map by +delta.
  const runs = [];
  for (const [cp, delta] of lowerPairs) {
    const run = runs[runs.length - 1];
    if (run && run.delta === delta && (run.count === 1 ? cp - run.start <= 2 : cp - run.last === run.step)) {
      if (run.count === 1) run.step = cp - run.start;
      run.last = cp;
      run.count++;
    } else {
      runs.push({ start: cp, last: cp, step: 1, count: 1, delta });
    }
  }
  let previousStart = 0;
  const lower = runs.map((run) => {
    const item = [run.start - previousStart, run.count, run.step, run.delta].map((n) => n.toString(36)).join('.');
    previousStart = run.start;
    return item;
  });
  return { word: word.join(','), lower: lower.join(','), wordRanges: wordRanges.length, lowerRuns: runs.length };
}

// ---- pairs ----------------------------------------------------------------------------------

/** Deterministic PRNG (mulberry32) so the fixture regenerates identically. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function loadNames() {
  const read = (file) => JSON.parse(fs.readFileSync(path.join(dataRoot, file), 'utf8'));
  const names = [];
  const push = (value) => {
    if (typeof value === 'string' && value.trim() !== '') names.push(value);
  };
  for (const country of read('countries/countries.json')) {
    push(country.name);
    push(country.native);
    for (const value of Object.values(country.translations ?? {})) push(value);
  }
  for (const state of read('states/states.json')) {
    push(state.name);
    push(state.native);
  }
  for (const file of fs.readdirSync(path.join(dataRoot, 'cities')).sort()) {
    for (const city of read(`cities/${file}`)) {
      push(city.name);
      push(city.native);
    }
  }
  return names;
}

const TYPO_LETTERS = 'abcdefghijklmnopqrstuvwxyzéüöñçаоеинтя';

/** One to three edits: delete, insert, substitute, transpose, case flip, accent strip, separator swap. */
function typo(text, random) {
  let chars = [...text];
  const edits = 1 + Math.floor(random() * 3);
  for (let e = 0; e < edits && chars.length > 0; e++) {
    const i = Math.floor(random() * chars.length);
    const kind = Math.floor(random() * 7);
    if (kind === 0 && chars.length > 1) chars.splice(i, 1);
    else if (kind === 1) chars.splice(i, 0, TYPO_LETTERS[Math.floor(random() * TYPO_LETTERS.length)]);
    else if (kind === 2) chars[i] = TYPO_LETTERS[Math.floor(random() * TYPO_LETTERS.length)];
    else if (kind === 3 && i + 1 < chars.length) [chars[i], chars[i + 1]] = [chars[i + 1], chars[i]];
    else if (kind === 4) chars = [...(random() < 0.5 ? chars.join('').toUpperCase() : chars.join('').toLowerCase())];
    else if (kind === 5) chars = [...chars.join('').normalize('NFD').replace(/\p{M}/gu, '')];
    else chars = [...chars.join('').replace(/[\s'’-]/gu, () => [' ', '-', "'", ''][Math.floor(random() * 4)])];
  }
  return chars.join('');
}

const EDGE_CASES = [
  ['İstanbul', 'istanbul'], ['ISTANBUL', 'İstanbul'], ['ΣΟΦΊΑ', 'Σόφια'], ['Straße', 'STRASSE'], ['straße', 'strasse'],
  ['Ærøskøbing', 'aeroskobing'], ['Łódź', 'Lodz'], ['São Paulo', 'Sao Paulo'], ['Sa\u0303o Paulo', 'São Paulo'],
  ["Côte d'Ivoire", 'Cote dIvoire'], ['Saint-Étienne', 'Saint Etienne'], ['Москва', 'москва'], ['Moskva', 'Москва'],
  ['東京', '東京都'], ['北京', '北京市'], ['القاهرة', 'القاهره'], ['ישראל', 'ישר'], ['ab', 'ab'], ['a', 'a'], ['a', 'b'],
  ['--', 'Foo'], ['', 'Foo'], ['   ', '   '], ['123', '1234'], ['Route 66', 'route66'], ['٣٤٥', '٣٤'], ['x²', 'x2'],
  ['Ⅻ Street', 'XII Street'], ['ǅemal', 'džemal'], ['Kraków', 'Krakow'], ['Åland', 'Aland Islands'], ['Nuuk', 'Nûk'],
  ['Hà Nội', 'Ha Noi'], ['Thành phố Hồ Chí Minh', 'Ho Chi Minh City'], ['München', 'Munchen'], ['Zürich', 'Zurich'],
  ['ℌello', 'hello'], ['ﬁnland', 'finland'], ['🏙 City', 'City'], ['Ｔｏｋｙｏ', 'tokyo'], ['Ꭰ', 'ꭰ'], ['ΐ', 'ΐ'],
  ['New   York', 'new york'], ['N.Y.', 'NY'], ['St. Louis', 'Saint Louis'], ['O\u2019Higgins', "O'Higgins"],
];

function makePairs(names, random) {
  const pickFrom = (list) => list[Math.floor(random() * list.length)];
  const scripts = [
    /[\u00c0-\u024f]/u, /\p{Script=Cyrillic}/u, /\p{Script=Han}/u, /\p{Script=Arabic}/u, /\p{Script=Greek}/u,
    /\p{Script=Hangul}/u, /\p{Script=Devanagari}/u, /\p{Script=Thai}/u, /\p{Script=Hebrew}/u, /['’]/u, /-/u, /\s\S+\s/u,
  ].map((re) => names.filter((name) => re.test(name)));
  // Names by their first two lower-cased characters, to pair a query with near neighbours.
  const byStart = new Map();
  const startOf = (name) => [...name.toLowerCase()].slice(0, 2).join('');
  for (const name of names) {
    const start = startOf(name);
    if (!byStart.has(start)) byStart.set(start, []);
    byStart.get(start).push(name);
  }
  const pairs = EDGE_CASES.map(([q, name]) => ({ q, name }));
  // Per round: a typo'd name against itself (high scores), then against a neighbour sharing its
  // first two letters (mid/low) or a typo'd prefix of it (what a user types); every other name
  // comes from one script/shape class in turn.
  for (let round = 0; pairs.length < 1500; round++) {
    const name = round % 2 === 0 ? pickFrom(scripts[(round / 2) % scripts.length]) : pickFrom(names);
    const q = typo(name, random);
    pairs.push({ q, name });
    if (round % 3 !== 2) pairs.push({ q, name: pickFrom(byStart.get(startOf(name))) });
    else pairs.push({ q: typo([...name].slice(0, 3 + Math.floor(random() * 6)).join(''), random), name });
  }
  return pairs;
}

function similarityTable() {
  const server = serverFacts();
  if (server.encoding !== 'UTF8') throw new Error(`expected a UTF8 database, found ${server.encoding}`);
  const random = prng(20250515);
  const pairs = makePairs(loadNames(), random);
  // extra_float_digits = 1: float4 printed in its shortest exact form, so the JSON number
  // read back with Math.fround is PG's float4 bit for bit.
  const values = pairs.map((p, i) => `(${i}, ${sqlString(p.q)}, ${sqlString(p.name)})`).join(',\n');
  const rows = psql(
    `SET extra_float_digits = 1;\nSELECT i, similarity(q, name), round(similarity(q, name)::numeric, 2) FROM (VALUES ${values}) AS t(i, q, name) ORDER BY i;`,
  );
  for (const [i, sim, rounded] of rows) {
    pairs[Number(i)].similarity = Number(sim);
    pairs[Number(i)].rounded = Number(rounded);
  }
  // show_trgm for the first 400 distinct strings: checks the trigrams themselves (hashed ones
  // included), not only their counts.
  const texts = [...new Set(pairs.flatMap((p) => [p.q, p.name]))].slice(0, 400);
  const trgmRows = psql(
    `SELECT i, array_to_json(show_trgm(t)) FROM (VALUES ${texts.map((t, i) => `(${i}, ${sqlString(t)})`).join(',\n')}) AS v(i, t) ORDER BY i;`,
  );
  const showTrgm = trgmRows.map(([i, json]) => ({ text: texts[Number(i)], trigrams: JSON.parse(json) }));
  const fixture = {
    about: 'PostgreSQL pg_trgm ground truth for runtime/text/trigram.ts; regenerate with scripts/pg-similarity-table.mjs',
    postgres: server,
    pairs,
    showTrgm,
  };
  addUnaccent(fixture);
  fs.mkdirSync(path.dirname(fixtureFile), { recursive: true });
  fs.writeFileSync(fixtureFile, JSON.stringify(fixture, null, 1) + '\n');
  console.log(`wrote ${pairs.length} pairs and ${showTrgm.length} show_trgm cases to ${path.relative(repoRoot, fixtureFile)} (PostgreSQL ${server.version}, LC_CTYPE ${server.lcCtype})`);
}

// Accent cases for the unaccent half of match_score (decisions.md): typed without accents, with
// other accents, letters unaccent rewrites (ß, Æ, Œ, Ł, ligatures), Cyrillic ё/й, Greek tonos.
const UNACCENT_EDGE_CASES = [
  ['Zurch', 'Zürich'], ['Zurich', 'Zürich'], ['Zûrich', 'Zürich'], ['Munchen', 'München'], ['Sao Paulo', 'São Paulo'],
  ['Bogota', 'Bogotá'], ['Malmo', 'Malmö'], ['Strasse', 'Straße'], ['Aeroskobing', 'Ærøskøbing'], ['Lodz', 'Łódź'],
  ['Oeuvre', 'Œuvre'], ['finland', 'ﬁnland'], ['Королев', 'Королёв'], ['Иошкар', 'Йошкар-Ола'], ['Αθηνα', 'Αθήνα'],
  ['Hanoi', 'Hà Nội'], ['Ho Chi Minh', 'Thành phố Hồ Chí Minh'], ['Cote dIvoire', "Côte d'Ivoire"], ['Reykjavik', 'Reykjavík'],
  ['Sa\u0303o Paulo', 'Sao Paulo'], ['Dusseldorf', 'Düsseldorf'], ['Kobenhavn', 'København'], ['Gdansk', 'Gdańsk'],
];

/** Adds the accent edge pairs (once) and, per pair, PostgreSQL's unaccent similarity and match_score. */
function addUnaccent(fixture) {
  psql('SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS unaccent;');
  const known = new Set(fixture.pairs.map((p) => `${p.q}\u0000${p.name}`));
  for (const [q, name] of UNACCENT_EDGE_CASES) if (!known.has(`${q}\u0000${name}`)) fixture.pairs.push({ q, name });
  const values = fixture.pairs.map((p, i) => `(${i}, ${sqlString(p.q)}, ${sqlString(p.name)})`).join(',\n');
  const rows = psql(
    `SET extra_float_digits = 1;\nSELECT i, similarity(q, name), round(similarity(q, name)::numeric, 2), similarity(unaccent(q), unaccent(name)),
       greatest(similarity(q, name), similarity(unaccent(q), unaccent(name))), round(greatest(similarity(q, name), similarity(unaccent(q), unaccent(name)))::numeric, 2)
     FROM (VALUES ${values}) AS t(i, q, name) ORDER BY i;`,
  );
  for (const [i, sim, rounded, unaccented, score, scoreRounded] of rows) {
    Object.assign(fixture.pairs[Number(i)], {
      similarity: Number(sim), rounded: Number(rounded), unaccentSimilarity: Number(unaccented), matchScore: Number(score), matchScoreRounded: Number(scoreRounded),
    });
  }
  fixture.about = 'PostgreSQL pg_trgm + unaccent ground truth for runtime/text/trigram.ts and unaccent.ts; regenerate with scripts/pg-similarity-table.mjs';
}

if (process.argv.includes('--unaccent')) {
  const fixture = JSON.parse(fs.readFileSync(fixtureFile, 'utf8'));
  addUnaccent(fixture);
  fs.writeFileSync(fixtureFile, JSON.stringify(fixture, null, 1) + '\n');
  console.log(`added unaccent scores to ${fixture.pairs.length} pairs in ${path.relative(repoRoot, fixtureFile)}`);
} else if (process.argv.includes('--ctype')) {
  const server = serverFacts();
  const tables = ctypeTables();
  console.log(`// PostgreSQL ${server.version}, LC_CTYPE ${server.lcCtype}: ${tables.wordRanges} word ranges, ${tables.lowerRuns} lower-case runs`);
  console.log(`const WORD_RANGES = '${tables.word}';`);
  console.log(`const LOWER_RUNS = '${tables.lower}';`);
} else {
  similarityTable();
}
