// The npm package: what `files` ships, and the package installed as a dependency (unpacked from
// `npm pack` into a project's node_modules) running `geoapi start` with its data outside node_modules.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort, REPO_ROOT, request } from '../support/server.js';
import { fixtureSnapshot, startProcess, tempDir } from '../cli/support.js';

function npm(args: string[], cwd = REPO_ROOT): string {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

test('npm pack ships the runtime, the builder, the policy, schemas and docs; no tests, bench, sources or maps', () => {
  const [pack] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'])) as [{ files: { path: string }[]; size: number }];
  const paths = pack.files.map((f) => f.path);
  for (const needed of ['dist/runtime/cli/main.js', 'dist/runtime/cli/commands.bundle.js', 'dist/runtime/cli/commands.bundle.json', 'dist/runtime/http/worker.js', 'dist/runtime/http/worker.bundle.js', 'dist/runtime/http/worker.bundle.json', 'dist/runtime/routes/registry.js', 'dist/build-index/default-snapshot.js', 'data/policy.json', 'schemas/http/country.full.json', 'schemas/snapshot/geoapi.fbs', 'deploy/nginx/geoapi.conf', 'deploy/systemd/geoapi.service', 'README.md', 'LICENSE', 'ARCHITECTURE.md', 'package.json']) {
    assert.ok(paths.includes(needed), `${needed} is shipped`);
  }
  const unwanted = paths.filter((p) => /^(dist\/)?(test|bench|scripts)\//.test(p) || p.endsWith('.map') || (p.endsWith('.ts') && !p.endsWith('.d.ts')) || p.startsWith('data/snapshots') || p === 'data/keys.json');
  assert.deepEqual(unwanted, []);
});

test('installed as a dependency, geoapi --version works and geoapi start keeps keys and counts outside node_modules', async () => {
  const work = tempDir();
  const tarball = npm(['pack', '--ignore-scripts', '--pack-destination', work, '--silent'], REPO_ROOT).trim().split('\n').at(-1)!;
  const installed = join(work, 'app', 'node_modules', 'geoapi');
  mkdirSync(installed, { recursive: true });
  const untar = spawnSync('tar', ['-xzf', join(work, tarball), '-C', installed, '--strip-components=1']);
  assert.equal(untar.status, 0, String(untar.stderr));
  // The dependencies (not installed here: no network in tests) come from this checkout.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(installed, 'node_modules'));
  const cli = join(installed, 'dist/runtime/cli/main.js');
  const version = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
  assert.match(version.stdout, /^geoapi \d+\.\d+\.\d+/);

  const home = join(work, 'home');
  const port = await freePort();
  const started = startProcess(process.execPath, [cli, 'start', '--threads', '1'], {
    cwd: join(work, 'app'),
    env: { HOME: home, XDG_DATA_HOME: undefined, GEOAPI_HOME: undefined, GEOAPI_KEYS: undefined, GEOAPI_QUOTA_STATE_FILE: undefined, GEOAPI_SNAPSHOT: fixtureSnapshot(), GEOAPI_PORT: String(port) },
  });
  const dataDir = join(home, '.local', 'share', 'geoapi');
  try {
    await started.waitFor(/Try it:[\s\S]*curl/);
    const key = /X-GEOAPI-KEY: (\S+)"/.exec(started.output())![1]!;
    assert.equal((await request(`http://127.0.0.1:${port}/v1/countries/US`, { key })).status, 200);
  } finally {
    started.child.kill('SIGTERM');
    assert.equal(await started.closed, 0, started.output());
  }
  assert.deepEqual(readdirSync(dataDir).sort(), ['keys.json', 'quota-state.json']);
  assert.equal(existsSync(join(installed, 'data', 'keys.json')), false);
  assert.equal(existsSync(join(installed, 'data', 'quota-state.json')), false);
});
