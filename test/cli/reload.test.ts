// `geoapi serve` + `geoapi build` into the same --out + `geoapi reload`, as real processes: the
// rebuilt snapshot is swapped in by the watcher, and `geoapi reload` finds the server through the
// pid file beside the snapshot directory.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fixtureSource } from '../support/paths.js';
import { freePort, request } from '../support/server.js';
import { CLI, runCli, startProcess, tempDir, type StartedProcess } from './support.js';

/** The fixture with every city renamed: another dataVersion. */
function renamedFixture(dir: string): string {
  const source = join(dir, 'renamed');
  cpSync(fixtureSource, source, { recursive: true });
  const citiesDir = join(source, 'contributions', 'cities');
  for (const file of readdirSync(citiesDir)) {
    const cities = JSON.parse(readFileSync(join(citiesDir, file), 'utf8')) as Array<Record<string, unknown>>;
    for (const city of cities) city['name'] = `${String(city['name'])} Renamed`;
    writeFileSync(join(citiesDir, file), JSON.stringify(cities));
  }
  return source;
}

describe('geoapi reload and a build into the served directory', () => {
  const dir = tempDir('geoapi-reload-');
  const snapshot = join(dir, 'snapshot');
  const keys = join(dir, 'keys.json');
  let server: StartedProcess | null = null;
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.closed;
  });

  test('the server swaps to the rebuilt snapshot, and geoapi reload reaches it through its pid file', async () => {
    assert.equal(runCli(['build', '--source', fixtureSource, '--out', snapshot]).status, 0);
    const added = runCli(['keys', 'add', '--plan', 'business', '--file', keys]);
    assert.equal(added.status, 0, added.stderr);
    const key = added.stdout.trim().split('\n').at(-1)!;
    const port = await freePort();
    server = startProcess(process.execPath, [CLI, 'serve', '--snapshot', snapshot, '--keys', keys, '--port', String(port), '--host', '127.0.0.1', '--threads', '1', '--quota', 'off']);
    await server.waitFor(/geoapi listening/);
    assert.equal(readFileSync(`${snapshot}.pid`, 'utf8').split('\n')[0], String(server.child.pid));
    const before = await request(`http://127.0.0.1:${port}/v1/countries/GB/cities`, { key });
    const versionBefore = before.headers['x-geoapi-data-version'];

    // A build into the same --out replaces the directory; the watcher sees manifest.json change.
    assert.equal(runCli(['build', '--source', renamedFixture(dir), '--out', snapshot]).status, 0);
    await server.waitFor(/snapshot: now serving .*manifest\.json replaced/);
    const afterBuild = await request(`http://127.0.0.1:${port}/v1/countries/GB/cities`, { key });
    assert.notEqual(afterBuild.headers['x-geoapi-data-version'], versionBefore);
    assert.match(afterBuild.body, /London Renamed/);

    const reload = runCli(['reload', '--snapshot', snapshot]);
    assert.equal(reload.status, 0, reload.stderr);
    assert.match(reload.stdout, new RegExp(`Sent SIGHUP to the geoapi server \\(pid ${server.child.pid}`));
    await server.waitFor(/snapshot: .* unchanged \(SIGHUP\)/);

    server.child.kill('SIGTERM');
    assert.equal(await server.closed, 0);
    server = null;
    assert.equal(existsSync(`${snapshot}.pid`), false, 'the pid file goes with the server');
  });

  test('geoapi reload without a running server says so', () => {
    const result = runCli(['reload', '--snapshot', join(dir, 'nothing-here')]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /no geoapi server pid in .*nothing-here\.pid/);
  });
});
