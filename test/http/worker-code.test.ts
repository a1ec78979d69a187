// Which code the request threads and the `geoapi` command run: the bundles `npm run build` makes,
// each only when it was made from the compiled modules beside it (runtime/http/worker-code.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chooseCode, chooseWorkerCode, TS_BUILD_INFO } from '../../runtime/http/worker-code.js';
import { startTestServer } from '../support/server.js';

const HTTP_DIR = new URL('../../runtime/http/', import.meta.url);
const CLI_DIR = new URL('../../runtime/cli/', import.meta.url);

/** A directory laid out as dist/runtime/http/ plus a build info file, with what `files` names. */
function layout(files: { bundle?: boolean; stamp?: string | null; buildInfo?: string | null }): { dir: URL; buildInfo: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'geoapi-worker-code-'));
  writeFileSync(join(root, 'worker.js'), '');
  if (files.bundle !== false) writeFileSync(join(root, 'worker.bundle.js'), '');
  const buildInfo = join(root, '.tsbuildinfo');
  if (files.buildInfo !== null) {
    writeFileSync(buildInfo, files.buildInfo ?? '{"version":"5.9.3"}');
    utimesSync(buildInfo, 1_700_000_000, 1_700_000_000);
  }
  if (files.stamp !== null) writeFileSync(join(root, 'worker.bundle.json'), files.stamp ?? JSON.stringify({ format: 1, tsBuildInfo: { size: 19, mtimeMs: 1_700_000_000_000 } }));
  return { dir: pathToFileURL(`${root}/`), buildInfo, root };
}

describe('the worker code', () => {
  const roots: string[] = [];
  const made = (files: Parameters<typeof layout>[0]) => {
    const made = layout(files);
    roots.push(made.root);
    return made;
  };
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it('is the bundle when its stamp matches the build info of the modules beside it', () => {
    const { dir, buildInfo } = made({});
    const code = chooseWorkerCode(dir, buildInfo);
    assert.equal(code.bundled, true);
    assert.equal(code.url.href, new URL('./worker.bundle.js', dir).href);
    assert.equal(code.description, 'one bundle (worker.bundle.js, made by `npm run build`)');
  });

  it('is the modules when tsc has compiled again since the bundle was made', () => {
    const { dir, buildInfo } = made({});
    writeFileSync(buildInfo, '{"version":"5.9.3","x":1}');
    const code = chooseWorkerCode(dir, buildInfo);
    assert.equal(code.bundled, false);
    assert.equal(code.url.href, new URL('./worker.js', dir).href);
    assert.equal(code.description, 'modules (the bundle is older than the compiled modules: `npm run build` bundles them again)');
    // The same size at another time is another build too.
    const sameSize = made({});
    utimesSync(sameSize.buildInfo, 1_700_000_001, 1_700_000_001);
    assert.equal(chooseWorkerCode(sameSize.dir, sameSize.buildInfo).bundled, false);
  });

  it('is the bundle where nothing compiles (an installed package has no build info)', () => {
    const { dir, buildInfo } = made({ buildInfo: null });
    assert.equal(chooseWorkerCode(dir, buildInfo).bundled, true);
  });

  it('is the modules without a bundle, its stamp, or with a stamp it cannot read', () => {
    for (const files of [{ bundle: false }, { stamp: null }, { stamp: 'not json' }, { stamp: '{"format":2,"tsBuildInfo":null}' }]) {
      const { dir, buildInfo } = made(files);
      const code = chooseWorkerCode(dir, buildInfo);
      assert.equal(code.bundled, false, JSON.stringify(files));
      assert.equal(code.description, 'modules (no bundle: `npm run build` makes one)');
    }
  });

  it('is the modules when the caller needs them (a test seam importing runtime modules)', () => {
    const { dir, buildInfo } = made({});
    assert.deepEqual(chooseWorkerCode(dir, buildInfo, 'a test seam replaces the operations'), {
      url: new URL('./worker.js', dir),
      bundled: false,
      description: 'modules (a test seam replaces the operations)',
    });
  });

  it('is the bundle in this build (`npm test` builds it), and a server runs it', async () => {
    assert.equal(chooseWorkerCode(HTTP_DIR, TS_BUILD_INFO).bundled, true, 'npm run build makes dist/runtime/http/worker.bundle.js and its stamp');
    const server = await startTestServer({ threads: 2 });
    try {
      assert.deepEqual(server.workerCode, { bundled: true, description: 'one bundle (worker.bundle.js, made by `npm run build`)' });
      const answer = await server.get('/v1/countries/US', { plan: 'business' });
      assert.equal(answer.status, 200);
      assert.equal(answer.json().iso2, 'US');
    } finally {
      await server.close();
    }
  });
});

describe("the geoapi command's code", () => {
  it('is its bundle by the same rules, under its own names (commands.bundle.js and its stamp)', () => {
    const root = mkdtempSync(join(tmpdir(), 'geoapi-command-code-'));
    try {
      const dir = pathToFileURL(`${root}/`);
      const buildInfo = join(root, '.tsbuildinfo');
      writeFileSync(join(root, 'commands.js'), '');
      // The worker's bundle beside it is not the command's.
      writeFileSync(join(root, 'worker.bundle.js'), '');
      writeFileSync(join(root, 'worker.bundle.json'), JSON.stringify({ format: 1, tsBuildInfo: null }));
      assert.deepEqual(chooseCode(dir, 'commands', buildInfo), { url: new URL('./commands.js', dir), bundled: false, description: 'modules (no bundle: `npm run build` makes one)' });
      writeFileSync(join(root, 'commands.bundle.js'), '');
      writeFileSync(join(root, 'commands.bundle.json'), JSON.stringify({ format: 1, tsBuildInfo: null }));
      assert.deepEqual(chooseCode(dir, 'commands', buildInfo), { url: new URL('./commands.bundle.js', dir), bundled: true, description: 'one bundle (commands.bundle.js, made by `npm run build`)' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('is the bundle in this build, and the command runs from it as from its modules', () => {
    assert.equal(chooseCode(CLI_DIR, 'commands', TS_BUILD_INFO).bundled, true, 'npm run build makes dist/runtime/cli/commands.bundle.js and its stamp');
    const cli = fileURLToPath(new URL('./main.js', CLI_DIR));
    const version = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, /^geoapi \d+\.\d+\.\d+\n$/);
    const unknown = spawnSync(process.execPath, [cli, 'nonsense'], { encoding: 'utf8' });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /^geoapi: unknown command "nonsense"\n\nusage: geoapi <command>/);
  });
});
