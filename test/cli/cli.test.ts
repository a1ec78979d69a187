// The geoapi command line: --version, --help for every command, where `geoapi start` keeps its
// data (GEOAPI_HOME), and snapshot permissions.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataHome, installedAsDependency } from '../../runtime/cli/paths.js';
import { freePort, REPO_ROOT, request } from '../support/server.js';
import { buildFixtureSnapshot, fixtureSnapshot, runCli, startProcess, tempDir } from './support.js';

test('geoapi --version prints the package name and version', () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  const result = runCli(['--version']);
  assert.equal(result.status, 0);
  assert.equal(result.stdout, `geoapi ${version}\n`);
});

test('--help on every command prints that command\'s usage and exits 0 without running it', () => {
  const expected: Record<string, RegExp> = {
    serve: /serve --snapshot <dir> --keys <file>.*\n[\s\S]*--redis <url>/,
    start: /start +build the default snapshot/,
    build: /build \[--source <dir>\|npm\]/,
    keys: /keys add --plan[\s\S]*keys list[\s\S]*keys revoke/,
    verify: /verify <snapshot-dir>/,
  };
  for (const [command, pattern] of Object.entries(expected)) {
    const result = runCli([command, '--help']);
    assert.equal(result.status, 0, `${command} --help: ${result.stderr}`);
    assert.match(result.stdout, new RegExp(`^usage: geoapi ${command} `));
    assert.match(result.stdout, pattern);
    for (const other of Object.keys(expected).filter((name) => name !== command && !(command === 'serve' && name === 'start'))) {
      assert.doesNotMatch(result.stdout, new RegExp(`^  ${other} `, 'm'), `${command} --help shows only ${command}`);
    }
  }
  assert.equal(runCli(['keys', 'add', '-h']).status, 0);
  const unknown = runCli(['teleport', '--help']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "teleport"/);
});

test('the data home is GEOAPI_HOME, else data/ in a clone, else the XDG data directory when installed in node_modules', () => {
  assert.equal(dataHome({ GEOAPI_HOME: '/srv/geoapi' }, '/app/node_modules/geoapi/'), '/srv/geoapi');
  assert.equal(dataHome({ HOME: '/home/ann' }, '/app/node_modules/geoapi/'), '/home/ann/.local/share/geoapi');
  assert.equal(dataHome({ HOME: '/home/ann', XDG_DATA_HOME: '/xdg' }, '/app/node_modules/geoapi/'), '/xdg/geoapi');
  assert.equal(dataHome({ HOME: '/home/ann' }, '/src/geoapi/'), '/src/geoapi/data');
  assert.equal(installedAsDependency('/app/node_modules/@scope/geoapi/'), true);
  assert.equal(installedAsDependency(REPO_ROOT), false);
});

test('geoapi start keeps its keys and quota counts in GEOAPI_HOME', async () => {
  const home = tempDir();
  const port = await freePort();
  const started = startProcess(process.execPath, [join(REPO_ROOT, 'dist/runtime/cli/main.js'), 'start', '--threads', '1'], {
    env: { GEOAPI_HOME: home, GEOAPI_SNAPSHOT: fixtureSnapshot(), GEOAPI_PORT: String(port), GEOAPI_KEYS: undefined, GEOAPI_QUOTA_STATE_FILE: undefined },
  });
  try {
    await started.waitFor(/Try it:[\s\S]*curl/);
    assert.match(started.output(), new RegExp(`Created ${join(home, 'keys.json').replace(/[.]/g, '\\.')} with one development key per plan`));
    const key = /X-GEOAPI-KEY: (\S+)"/.exec(started.output())![1]!;
    assert.equal((await request(`http://127.0.0.1:${port}/v1/countries/US`, { key })).status, 200);
    assert.match(started.output(), new RegExp(`restored from ${join(home, 'quota-state.json').replace(/[.]/g, '\\.')}`));
  } finally {
    started.child.kill('SIGTERM');
    assert.equal(await started.closed, 0, started.output());
  }
  assert.deepEqual(readdirSync(home).sort(), ['keys.json', 'quota-state.json']);
});

test('a snapshot written by build is readable by other users (0755 directory, 0644 files) whatever the umask', () => {
  const previous = process.umask(0o077);
  let dir: string;
  try {
    dir = buildFixtureSnapshot();
  } finally {
    process.umask(previous);
  }
  assert.equal(statSync(dir).mode & 0o777, 0o755);
  for (const name of readdirSync(dir)) assert.equal(statSync(join(dir, name)).mode & 0o777, 0o644, name);
  assert.ok(existsSync(join(dir, 'manifest.json')));
});
