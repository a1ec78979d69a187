// Configuration errors name the file and read well, through the real CLI.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fixtureSnapshot, runCli, tempDir } from './support.js';

test('a key file of NUL bytes is refused at start with a message that says so and names the file', () => {
  const dir = tempDir();
  const keys = join(dir, 'keys.json');
  writeFileSync(keys, Buffer.alloc(512));
  const result = runCli(['serve', '--snapshot', fixtureSnapshot(), '--keys', keys, '--port', '0', '--threads', '1']);
  assert.equal(result.status, 1);
  assert.match(result.stderr, new RegExp(`keys file ${keys.replace(/[.]/g, '\\.')} is not valid JSON: the file holds only NUL bytes \\(512 of them`));
  assert.doesNotMatch(result.stderr, /\u0000/);
});

test('a policy file with a bad field is refused at start naming the file and the field', () => {
  const dir = tempDir();
  const policy = join(dir, 'my-policy.json');
  writeFileSync(policy, JSON.stringify({ format: 'geoapi-policy', formatVersion: '1' }));
  const keys = join(dir, 'keys.json');
  assert.equal(runCli(['keys', 'add', '--plan', 'business', '--file', keys]).status, 0);
  const result = runCli(['serve', '--snapshot', fixtureSnapshot(), '--keys', keys, '--policy', policy, '--port', '0', '--threads', '1']);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /policy .*my-policy\.json: formatVersion: expected 1, found "1"/);
});

test('a policy file of NUL bytes is refused naming the file', () => {
  const dir = tempDir();
  const policy = join(dir, 'zeros.json');
  writeFileSync(policy, Buffer.alloc(64));
  const keys = join(dir, 'keys.json');
  assert.equal(runCli(['keys', 'add', '--plan', 'business', '--file', keys]).status, 0);
  const result = runCli(['serve', '--snapshot', fixtureSnapshot(), '--keys', keys, '--policy', policy, '--port', '0', '--threads', '1']);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /zeros\.json is not valid JSON: the file holds only NUL bytes \(64 of them/);
});
