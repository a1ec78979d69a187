// Live snapshot swap (runtime/http/snapshot-swap.ts) on a real server in a child process: two real
// snapshots — the fixture and a copy whose cities are renamed and repopulated — behind a
// `current` symlink that the test flips, then SIGHUP; a corrupt snapshot; the old store's release.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildSnapshot } from '../../build-index/build.js';
import { fixtureSource } from '../support/paths.js';
import { corruptCopy } from '../support/snapshots.js';
import { startTestServer, type TestServer } from '../support/server.js';

const work = mkdtempSync(join(tmpdir(), 'geoapi-swap-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));

/** The fixture with every city and postcode locality renamed ("… Nova") and 1,000 more inhabitants per city: bodies differ from the fixture's. */
function modifiedSource(): string {
  const source = join(work, 'src-b');
  cpSync(fixtureSource, source, { recursive: true });
  const citiesDir = join(source, 'contributions', 'cities');
  for (const file of readdirSync(citiesDir)) {
    const cities = JSON.parse(readFileSync(join(citiesDir, file), 'utf8')) as Array<Record<string, unknown>>;
    for (const city of cities) {
      city['name'] = `${String(city['name'])} Nova`;
      city['population'] = Number(city['population'] ?? 0) + 1000;
    }
    writeFileSync(join(citiesDir, file), JSON.stringify(cities));
  }
  const postcodesDir = join(source, 'contributions', 'postcodes');
  for (const file of readdirSync(postcodesDir)) {
    const postcodes = JSON.parse(readFileSync(join(postcodesDir, file), 'utf8')) as Array<Record<string, unknown>>;
    for (const postcode of postcodes) if (typeof postcode['locality_name'] === 'string') postcode['locality_name'] = `${postcode['locality_name']} Nova`;
    writeFileSync(join(postcodesDir, file), JSON.stringify(postcodes));
  }
  return source;
}

const snapshotA = join(work, 'a');
const snapshotB = join(work, 'b');
const corrupt = join(work, 'corrupt');
const current = join(work, 'current');

/** Points `current` at `target` atomically (a new link renamed over the old one), as a deploy would. */
function flip(target: string): void {
  const next = `${current}.next`;
  rmSync(next, { force: true });
  symlinkSync(target, next);
  renameSync(next, current);
}

function count(text: string, pattern: RegExp): number {
  return text.split('\n').filter((line) => pattern.test(line)).length;
}

async function until(what: string, check: () => boolean, server: TestServer, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; logs:\n${server.logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const SWAPPED = /snapshot: now serving/;
// Swaps on SIGHUP only, so that each flip is reloaded once (the watcher has a test of its own).
const NO_WATCH = { GEOAPI_SNAPSHOT_WATCH: 'off' };

/** Flips `current` to `target`, sends SIGHUP and waits for the server to say it swapped. */
async function swapTo(server: TestServer, target: string): Promise<void> {
  const before = count(server.logs(), SWAPPED);
  flip(target);
  process.kill(server.pid, 'SIGHUP');
  await until(`swap to ${target}`, () => count(server.logs(), SWAPPED) > before, server);
}

// Requests whose answers differ between the two versions, several operations.
const PATHS = [
  '/v1/meta/data-version',
  '/v1/countries/GB/cities',
  '/v1/countries/US/cities',
  '/v1/countries/GB/states/MAN/cities',
  '/v1/search/autocomplete?q=Lon',
  '/v1/countries/GB/postcodes?limit=100',
  '/v1/countries/GB',
];

interface Answer {
  status: number;
  version: string;
  etag: string | undefined;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function get(server: TestServer, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${server.url}${path}`, { agent, headers: { 'X-GEOAPI-KEY': server.keys.business } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, version: String(res.headers['x-geoapi-data-version'] ?? ''), etag: res.headers.etag, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

before(() => {
  buildSnapshot({ source: fixtureSource, out: snapshotA });
  buildSnapshot({ source: modifiedSource(), out: snapshotB });
  corruptCopy(snapshotA, corrupt);
});

after(() => agent.destroy());

describe('live snapshot swap under load', () => {
  let server: TestServer;
  before(async () => {
    flip(snapshotA);
    server = await startTestServer({ snapshotDir: current, threads: 2, fixedNow: '2025-06-01T12:00:00Z', env: NO_WATCH });
  });
  after(() => server.close());

  test('every answer while the snapshot is swapped 20 times matches exactly one of the two versions, none fails', async () => {
    // What each version answers, learnt before the load: version → path → {body, etag}.
    const expected = new Map<string, Map<string, Answer>>();
    const learn = async (): Promise<string> => {
      const answers = new Map<string, Answer>();
      for (const path of PATHS) {
        const answer = await get(server, path);
        assert.equal(answer.status, 200, `${path}: ${answer.body}`);
        answers.set(path, answer);
      }
      const version = answers.get('/v1/meta/data-version')!.version;
      expected.set(version, answers);
      return version;
    };
    const versionA = await learn();
    await swapTo(server, snapshotB);
    const versionB = await learn();
    assert.notEqual(versionA, versionB);
    // The country detail is the same in both (its header still names the version answering).
    for (const path of PATHS.filter((p) => p !== '/v1/countries/GB')) assert.notEqual(expected.get(versionA)!.get(path)!.body, expected.get(versionB)!.get(path)!.body, `${path} differs between the versions`);
    await swapTo(server, snapshotA);

    const problems: string[] = [];
    const seen = new Map<string, number>([[versionA, 0], [versionB, 0]]);
    let answered = 0;
    let running = true;
    const client = async (lane: number): Promise<void> => {
      for (let i = lane; running; i++) {
        const path = PATHS[i % PATHS.length]!;
        let answer: Answer;
        try {
          answer = await get(server, path);
        } catch (error) {
          problems.push(`${path}: ${(error as Error).message}`);
          continue;
        }
        answered++;
        const known = expected.get(answer.version)?.get(path);
        if (answer.status !== 200) problems.push(`${path}: ${answer.status} ${answer.body.slice(0, 200)}`);
        else if (known === undefined) problems.push(`${path}: unknown data version ${JSON.stringify(answer.version)}`);
        else if (answer.body !== known.body) problems.push(`${path}: body of another version under X-GEOAPI-Data-Version ${answer.version}`);
        else if (answer.etag !== known.etag) problems.push(`${path}: ETag ${answer.etag} is not version ${answer.version}'s ${known.etag}`);
        else if (path === '/v1/meta/data-version' && (JSON.parse(answer.body) as { dataVersion: string }).dataVersion !== answer.version) problems.push(`${path}: body names another version than its header`);
        else seen.set(answer.version, seen.get(answer.version)! + 1);
      }
    };
    const clients = Array.from({ length: 12 }, (_, lane) => client(lane));

    const started = Date.now();
    const perSwap: number[] = [];
    for (let swap = 0; swap < 20; swap++) {
      const target = swap % 2 === 0 ? snapshotB : snapshotA;
      const version = swap % 2 === 0 ? versionB : versionA;
      const answeredBefore = answered;
      await swapTo(server, target);
      // Let the load run on the new version for a while before the next swap.
      const seenBefore = seen.get(version)!;
      await until('answers on the new version', () => seen.get(version)! >= seenBefore + 50 || problems.length > 0, server);
      perSwap.push(answered - answeredBefore);
    }
    running = false;
    await Promise.all(clients);
    const seconds = (Date.now() - started) / 1000;
    console.log(`# ${answered} answers in ${seconds.toFixed(1)} s (${Math.round(answered / seconds)}/s) across 20 swaps; per version ${JSON.stringify(Object.fromEntries(seen))}`);

    assert.deepEqual(problems.slice(0, 10), []);
    assert.ok(perSwap.every((n) => n > 0), 'requests were answered during every swap');
    assert.ok(seen.get(versionA)! > 500 && seen.get(versionB)! > 500);
    assert.equal(count(server.logs(), /snapshot: refused/), 0);
  });
});

describe('a snapshot that fails its checks', () => {
  let server: TestServer;
  before(async () => {
    flip(snapshotA);
    server = await startTestServer({ snapshotDir: current, env: NO_WATCH });
  });
  after(() => server.close());

  test('is refused with one log line naming the file, and the old snapshot keeps serving', async () => {
    const servedBefore = await server.get('/v1/countries/GB/cities', { plan: 'business' });
    assert.equal(servedBefore.status, 200);
    flip(corrupt);
    process.kill(server.pid, 'SIGHUP');
    const line = await server.waitForLog(/snapshot: refused/);
    assert.match(line, new RegExp(`${corrupt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[^ ]*records\\.cities`));
    assert.match(line, /CRC/);
    assert.match(line, new RegExp(`still serving dataVersion ${server.dataVersion}`));
    assert.equal(count(server.logs(), /snapshot: refused/), 1, 'one line');

    const after = await server.get('/v1/countries/GB/cities', { plan: 'business' });
    assert.equal(after.status, 200);
    assert.equal(after.headers['x-geoapi-data-version'], server.dataVersion);
    assert.equal(after.body, servedBefore.body);
    assert.equal(after.headers.etag, servedBefore.headers.etag);
  });

  test('a snapshot missing a section is refused too; a good one afterwards is taken', async () => {
    const missing = join(work, 'missing');
    cpSync(snapshotB, missing, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(missing, 'manifest.json'), 'utf8')) as { sections: Record<string, { file: string }> };
    rmSync(join(missing, manifest.sections['geo.cities']!.file));
    const refusedBefore = count(server.logs(), /snapshot: refused/);
    flip(missing);
    process.kill(server.pid, 'SIGHUP');
    await until('refusal', () => count(server.logs(), /snapshot: refused/) > refusedBefore, server);
    assert.match(server.logs().split('\n').filter((l) => /snapshot: refused/.test(l)).at(-1)!, /missing section \\?"geo\.cities\\?"/);
    assert.equal((await server.get('/v1/meta/data-version', { plan: 'business' })).headers['x-geoapi-data-version'], server.dataVersion);

    await swapTo(server, snapshotB);
    assert.notEqual((await server.get('/v1/meta/data-version', { plan: 'business' })).headers['x-geoapi-data-version'], server.dataVersion);
  });
});

describe('after a swap', () => {
  let server: TestServer;
  before(async () => {
    flip(snapshotA);
    // As shipped (no --expose-gc): each worker collects once shortly after a swap (runtime/http/collect.ts).
    server = await startTestServer({ snapshotDir: current, env: NO_WATCH });
  });
  after(() => server.close());

  test('postcode cursors of the previous version are answered 400 invalid', async () => {
    const first = await server.get('/v1/countries/GB/postcodes?limit=2', { plan: 'business' });
    assert.equal(first.status, 200);
    const cursor = (first.json() as { pagination: { next_cursor: string | null } }).pagination.next_cursor;
    assert.ok(cursor);
    await swapTo(server, snapshotB);
    const next = await server.get(`/v1/countries/GB/postcodes?limit=2&cursor=${encodeURIComponent(cursor)}`, { plan: 'business' });
    assert.equal(next.status, 400);
    assert.equal((next.json() as { message: string }).message, 'cursor is invalid or has been tampered with.');
  });

  test('the new snapshot is prepared before it serves: its lists without parameters are answered from its cache at once', async () => {
    // Rendered into the new snapshot's response cache before the threads switch to it (worker.ts,
    // snapshot-prepare), so the first request for them after the swap is a hit of the new version.
    await swapTo(server, snapshotA);
    const dataVersion = (await server.get('/v1/meta/data-version', { plan: 'business' })).headers['x-geoapi-data-version'];
    for (const path of ['/v1/countries', '/v1/regions']) {
      const answer = await server.get(path, { plan: 'business' });
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers['x-cache'], 'HIT', path);
      assert.equal(answer.headers['x-geoapi-data-version'], dataVersion, path);
    }
  });

  test('the previous store becomes unreachable (collected) in the worker', async () => {
    // The swap above replaced the fixture's store: the worker logs when the FinalizationRegistry sees it collected.
    const line = await server.waitForLog(new RegExp(`previous store \\(dataVersion ${server.dataVersion}\\) released`), 15_000);
    assert.match(line, /"thread":0/);
  });
});

describe('a snapshot replaced on disk', () => {
  let server: TestServer;
  before(async () => {
    flip(snapshotA);
    server = await startTestServer({ snapshotDir: current, watchIntervalMs: 50 });
  });
  after(() => server.close());

  test('is swapped in without a signal when the `current` symlink moves', async () => {
    flip(snapshotB);
    await until('the watcher swaps', () => count(server.logs(), SWAPPED) === 1, server);
    assert.match(server.logs(), /manifest\.json replaced/);
    const answer = await server.get('/v1/meta/data-version', { plan: 'business' });
    assert.notEqual(answer.headers['x-geoapi-data-version'], server.dataVersion);
    assert.equal((answer.json() as { dataVersion: string }).dataVersion, answer.headers['x-geoapi-data-version']);
  });
});
