// `geoapi start` (npm start) from nothing: default snapshot, development keys printed once,
// a ready-to-paste curl example that answers 200, SIGTERM exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseKeyFile } from '../../runtime/access/keys.js';
import { freePort, request } from '../support/server.js';

const CLI = fileURLToPath(new URL('../../runtime/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'geoapi-start-'));
const keysFile = join(dir, 'keys.json');
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `geoapi start` until the curl example is printed; returns its output and a stopper. */
async function start(port: number): Promise<{ stdout: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'start'], {
    env: { ...process.env, GEOAPI_KEYS: keysFile, GEOAPI_PORT: String(port), GEOAPI_THREADS: '1', GEOAPI_QUOTA: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/curl .*\n/.test(stdout)) resolve();
    });
    void exited.then((code) => reject(new Error(`geoapi start exited (${code}):\n${stdout}\n${stderr}`)));
  });
  return {
    stdout,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('geoapi start', () => {
  it('creates development keys, prints them once with a curl example that answers 200', async () => {
    const port = await freePort();
    const run = await start(port);
    try {
      assert.match(run.stdout, new RegExp(`Created ${keysFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} with one development key per plan`));
      for (const plan of ['community', 'starter', 'supporter', 'professional', 'business', 'legacy', 'playground']) {
        assert.match(run.stdout, new RegExp(`^  ${plan}\\s+k_[0-9a-f]{12}  gk_[A-Za-z0-9_-]{43}$`, 'm'));
      }
      assert.match(run.stdout, /geoapi listening on http:\/\/localhost:\d+ \(1 thread\)/);
      assert.match(run.stdout, /uWS: @\S+ \(native, ABI \d+\)/);
      assert.match(run.stdout, /snapshot: .* \(dataVersion \w+; .*\d+ countries/);
      assert.match(run.stdout, /quotas: off$/m, 'GEOAPI_QUOTA=off: the banner says off');
      const curl = /curl -s -H "X-GEOAPI-KEY: (gk_[A-Za-z0-9_-]+)" (http:\/\/\S+)/.exec(run.stdout);
      assert.ok(curl, run.stdout);
      const res = await request(curl[2]!.replace('localhost', '127.0.0.1'), { key: curl[1]! });
      assert.equal(res.status, 200);
      assert.equal(res.json().iso2, 'US');
      const stored = readFileSync(keysFile, 'utf8');
      assert.ok(!stored.includes(curl[1]!), 'the key file holds no plaintext key');
      assert.equal(parseKeyFile(stored).keys.length, 7);
    } finally {
      assert.equal(await run.stop(), 0);
    }
  });

  it('reuses an existing key file without printing keys', async () => {
    const run = await start(await freePort());
    try {
      assert.match(run.stdout, /Using the keys in /);
      assert.doesNotMatch(run.stdout, /gk_[A-Za-z0-9_-]{43}/);
    } finally {
      assert.equal(await run.stop(), 0);
    }
  });
});
