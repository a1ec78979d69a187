// `geoapi keys add|list|revoke` as a user runs them (the real CLI in a child process).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { hashKey, parseKeyFile } from '../../runtime/access/keys.js';

const CLI = fileURLToPath(new URL('../../runtime/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'geoapi-keys-cli-'));
const file = join(dir, 'nested', 'keys.json');

function geoapi(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, GEOAPI_KEYS: '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

after(() => rmSync(dir, { recursive: true, force: true }));

describe('geoapi keys', () => {
  let firstId = '';
  let firstKey = '';

  it('add creates the file, prints the key once as the last line and stores only its HMAC', () => {
    const run = geoapi('keys', 'add', '--plan', 'supporter', '--name', 'CI runner', '--file', file);
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    firstKey = lines.at(-1)!;
    assert.match(firstKey, /^gk_[A-Za-z0-9_-]{43}$/);
    assert.equal(lines.filter((line) => line.includes(firstKey)).length, 1, 'printed once');
    assert.match(run.stdout, /Creating .*keys\.json with a new HMAC secret/);

    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(firstKey), 'the plaintext key is not in the file');
    const keyFile = parseKeyFile(text);
    assert.equal(keyFile.keys.length, 1);
    const record = keyFile.keys[0]!;
    firstId = record.id;
    assert.equal(record.hash, hashKey(keyFile.secret, firstKey));
    assert.equal(record.plan, 'supporter');
    assert.equal(record.name, 'CI runner');
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it('add appends to an existing file, keeping its secret, and takes an expiry date', () => {
    const before = parseKeyFile(readFileSync(file, 'utf8'));
    const run = geoapi('keys', 'add', '--plan', 'business', '--expires', '2099-12-31', '--file', file);
    assert.equal(run.status, 0, run.stderr);
    const after = parseKeyFile(readFileSync(file, 'utf8'));
    assert.equal(after.secret, before.secret);
    assert.equal(after.keys.length, 2);
    assert.equal(after.keys[1]!.expires, '2100-01-01T00:00:00.000Z');
    assert.match(run.stdout.trimEnd().split('\n').at(-1)!, /^gk_/);
  });

  it('list shows ids, plans and status, never keys or hashes', () => {
    const run = geoapi('keys', 'list', '--file', file);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^ID\s+PLAN\s+STATUS\s+EXPIRES\s+CREATED\s+NAME/);
    assert.match(run.stdout, new RegExp(`${firstId}\\s+supporter\\s+active\\s+never\\s+\\S+\\s+CI runner`));
    const keyFile = parseKeyFile(readFileSync(file, 'utf8'));
    assert.ok(!run.stdout.includes(firstKey));
    assert.ok(!run.stdout.includes(keyFile.keys[0]!.hash));
  });

  it('revoke marks the key revoked', () => {
    const run = geoapi('keys', 'revoke', firstId, '--file', file);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(parseKeyFile(readFileSync(file, 'utf8')).keys[0]!.revoked, true);
    assert.match(geoapi('keys', 'list', '--file', file).stdout, new RegExp(`${firstId}\\s+supporter\\s+revoked`));
  });

  it('refuses bad input with exit code 2 or 1 and a clear message', () => {
    const badPlan = geoapi('keys', 'add', '--plan', 'gold', '--file', file);
    assert.equal(badPlan.status, 2);
    assert.match(badPlan.stderr, /--plan: expected one of community, starter, supporter, professional, business, legacy, playground, found "gold"/);
    const past = geoapi('keys', 'add', '--plan', 'starter', '--expires', '2001-01-01', '--file', file);
    assert.equal(past.status, 2);
    assert.match(past.stderr, /--expires 2001-01-01 is already past/);
    const unknownId = geoapi('keys', 'revoke', 'k_000000000000', '--file', file);
    assert.equal(unknownId.status, 1);
    assert.match(unknownId.stderr, /no key with id "k_000000000000"/);
    const missing = geoapi('keys', 'list', '--file', join(dir, 'absent.json'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /does not exist; create it with: geoapi keys add/);
    const unknownOption = geoapi('keys', 'add', '--plan', 'starter', '--colour', 'red', '--file', file);
    assert.equal(unknownOption.status, 2);
  });
});
