// The running server follows the key file and the policy file: added keys work, revoked keys stop
// working, a broken edit keeps the previous state (and says why in the log), and a reload that
// finds them as they were sends the threads nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../support/server.js';
import { fixtureModules } from '../http/fixtures/modules.js';

const CLI = fileURLToPath(new URL('../../runtime/cli/main.js', import.meta.url));

function geoapi(...args: string[]): string {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

/** Repeats `probe` until it returns true (the change reaches every worker within a check interval). */
async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) assert.fail(`${what}: not seen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let server: TestServer;
before(async () => {
  server = await startTestServer({ ...fixtureModules, threads: 2 });
});
after(async () => {
  await server.close();
});

describe('reload with nothing changed', () => {
  it('keeps the keys and the policy the threads hold, and logs them as unchanged', async () => {
    process.kill(server.pid, 'SIGHUP');
    await server.waitForLog(/keys: unchanged \S+ \(\d+ not revoked of \d+\)/);
    await server.waitForLog(/policy: unchanged \S*policy\.json/);
    assert.doesNotMatch(server.logs(), /keys: reloaded|policy: reloaded/);
    assert.equal((await server.get('/v1/countries', { plan: 'starter' })).status, 200);
  });
});

describe('key file reload', () => {
  let addedId = '';
  let addedKey = '';

  it('accepts a key added with geoapi keys add while the server runs', async () => {
    assert.equal((await server.get('/v1/countries', { key: 'gk_not_yet' })).status, 401);
    const output = geoapi('keys', 'add', '--plan', 'professional', '--file', server.keysFile);
    addedKey = output.trimEnd().split('\n').at(-1)!;
    addedId = /Added key (k_[0-9a-f]+)/.exec(output)![1]!;
    // Several requests: both worker threads must have the new key.
    await eventually('the new key accepted', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => server.get('/v1/countries', { key: addedKey })));
      return results.every((res) => res.status === 200);
    });
    assert.equal((await server.get('/v1/countries', { key: addedKey })).json().caller.plan, 'professional');
    await server.waitForLog(/keys: reloaded/);
  });

  it('refuses a key revoked with geoapi keys revoke while the server runs', async () => {
    geoapi('keys', 'revoke', addedId, '--file', server.keysFile);
    await eventually('the revoked key refused', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => server.get('/v1/countries', { key: addedKey })));
      return results.every((res) => res.status === 401);
    });
    const res = await server.get('/v1/countries', { key: addedKey });
    assert.deepEqual(res.json(), { error: "Unauthorized. You shouldn't be here." });
  });

  it('keeps the previous keys when the file becomes malformed, and logs why', async () => {
    const good = readFileSync(server.keysFile, 'utf8');
    writeFileSync(server.keysFile, '{"format": "geoapi-keys", "version": 1, "secret": "x"');
    await server.waitForLog(/keys: keeping the previous keys: keys file .* is not valid JSON/);
    assert.equal((await server.get('/v1/countries', { plan: 'starter' })).status, 200);
    writeFileSync(server.keysFile, good);
  });
});

describe('policy file reload', () => {
  it('applies an edited policy without a restart', async () => {
    const policy = JSON.parse(readFileSync(server.policyFile, 'utf8'));
    policy.upgradeUrl = 'https://example.test/upgrade';
    policy.features.fuzzySearch = 'supporter';
    writeFileSync(server.policyFile, JSON.stringify(policy));
    await eventually('the new policy applied', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => server.get('/v1/search/fuzzy?q=ab', { plan: 'starter' })));
      return results.every((res) => res.json().upgradeUrl === 'https://example.test/upgrade');
    });
    const res = await server.get('/v1/search/fuzzy?q=ab', { plan: 'starter' });
    assert.deepEqual(res.json(), { error: 'This feature is not available on your current plan.', feature: 'fuzzySearch', upgradeUrl: 'https://example.test/upgrade' });
    assert.equal((await server.get('/v1/search/fuzzy?q=ab', { plan: 'supporter' })).status, 200);
  });

  it('keeps the previous policy when the edit is invalid, and logs why', async () => {
    const policy = JSON.parse(readFileSync(server.policyFile, 'utf8'));
    policy.plans.starter.tier = 'silver';
    writeFileSync(server.policyFile, JSON.stringify(policy));
    await server.waitForLog(/policy: keeping the previous policy: policy \S*policy\.json: plans\.starter\.tier: expected one of basic, coordinates, full, found \\"silver\\"/);
    assert.equal((await server.get('/v1/search/fuzzy?q=ab', { plan: 'supporter' })).status, 200);
    assert.equal((await server.get('/v1/countries', { plan: 'starter' })).json().caller.tier, 'basic');
  });
});
