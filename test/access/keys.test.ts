import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyIndex, keySnapshotOf } from '../../runtime/access/key-index.js';
import { addKey, hashKey, keyStatus, newKeyFile, parseExpiry, parseKeyFile, revokeKey } from '../../runtime/access/keys.js';
import { loadPolicy } from '../../runtime/access/policy.js';

const policy = loadPolicy();

describe('key file', () => {
  it('stores only the HMAC of a new key, with the file secret', () => {
    const file = newKeyFile();
    const { record, key } = addKey(file, { plan: 'supporter', name: 'ci', now: new Date('2026-01-02T03:04:05Z') });
    assert.match(key, /^gk_[A-Za-z0-9_-]{43}$/);
    assert.equal(record.hash, hashKey(file.secret, key));
    assert.ok(!JSON.stringify(file).includes(key));
    assert.deepEqual({ ...record, id: 'x', hash: 'y' }, { id: 'x', hash: 'y', plan: 'supporter', name: 'ci', created: '2026-01-02T03:04:05.000Z', expires: null, revoked: false });
    assert.deepEqual(parseKeyFile(JSON.stringify(file)), file, 'round trip');
  });

  it('gives every file its own secret, so one key hashes differently in two files', () => {
    const a = newKeyFile();
    const b = newKeyFile();
    assert.notEqual(a.secret, b.secret);
    assert.notEqual(hashKey(a.secret, 'gk_same'), hashKey(b.secret, 'gk_same'));
  });

  it('refuses malformed files, saying where and what was expected', () => {
    const good = newKeyFile();
    addKey(good, { plan: 'starter' });
    const cases: [unknown, RegExp][] = [
      ['{', /is not valid JSON/],
      [{ ...good, format: 'other' }, /format: expected "geoapi-keys", found "other"/],
      [{ ...good, secret: 'abc' }, /secret: expected 64 lowercase hex digits, found a string of 3 characters/],
      [{ ...good, keys: {} }, /keys: expected an array/],
      [{ ...good, keys: [{ ...good.keys[0], plan: 'gold' }] }, /keys\[0\]\.plan: expected one of community, .*found "gold"/],
      [{ ...good, keys: [good.keys[0], good.keys[0]] }, /keys\[1\]\.id: expected a unique id/],
      [{ ...good, keys: [{ ...good.keys[0], expires: 'tomorrow' }] }, /keys\[0\]\.expires: expected null or an ISO time/],
      [{ ...good, keys: [{ ...good.keys[0], revoked: 'no' }] }, /keys\[0\]\.revoked: expected a boolean/],
    ];
    for (const [value, message] of cases) {
      assert.throws(() => parseKeyFile(typeof value === 'string' ? value : JSON.stringify(value), 'keys.json'), { name: 'KeyFileError', message });
    }
  });

  it('revokes by id and reports unknown ids', () => {
    const file = newKeyFile();
    const { record } = addKey(file, { plan: 'business' });
    revokeKey(file, record.id);
    assert.equal(keyStatus(file.keys[0]!, new Date()), 'revoked');
    assert.throws(() => revokeKey(file, 'k_nope'), /no key with id "k_nope"/);
  });

  it('reads --expires dates as the end of that UTC day and ISO times as given', () => {
    assert.equal(parseExpiry('2030-01-31').toISOString(), '2030-02-01T00:00:00.000Z');
    assert.equal(parseExpiry('2030-01-31T12:00:00+02:00').toISOString(), '2030-01-31T10:00:00.000Z');
    assert.throws(() => parseExpiry('2030-02-30'), /not a calendar date/);
    assert.throws(() => parseExpiry('next week'), /expected a date YYYY-MM-DD/);
  });
});

describe('key lookup in a worker', () => {
  const file = newKeyFile();
  const active = addKey(file, { plan: 'professional' });
  const expiring = addKey(file, { plan: 'starter', expires: new Date('2030-01-01T00:00:00Z') });
  const revoked = addKey(file, { plan: 'business' });
  revoked.record.revoked = true;
  const index = new KeyIndex(keySnapshotOf(file), policy);
  const now = Date.parse('2026-06-01T00:00:00Z');

  it('finds the caller of a valid key, with tiers and rank from the policy', () => {
    assert.deepEqual(index.lookup(active.key, now), { keyId: active.record.id, plan: 'professional', tierName: 'professional', tier: 'full', countryTier: 'full', rank: 3 });
    assert.equal(index.lookup(active.key, now), index.lookup(active.key, now), 'one Caller object per key');
  });

  it('refuses unknown, revoked, empty and over-long keys alike', () => {
    assert.equal(index.lookup('gk_unknown', now), null);
    assert.equal(index.lookup(revoked.key, now), null);
    assert.equal(index.lookup('', now), null);
    assert.equal(index.lookup(`${active.key}${'x'.repeat(300)}`, now), null);
  });

  it('refuses a key from the instant it expires, also when its lookup was cached', () => {
    const expiresMs = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(index.lookup(expiring.key, expiresMs - 1)?.plan, 'starter');
    assert.equal(index.lookup(expiring.key, expiresMs), null);
    assert.equal(keyStatus(expiring.record, new Date(expiresMs)), 'expired');
  });

  it('skips keys whose plan the policy does not define, naming them', () => {
    const odd = newKeyFile();
    const { record } = addKey(odd, { plan: 'starter' });
    const snapshot = keySnapshotOf(odd);
    snapshot.entries[0]!.plan = 'gold';
    const oddIndex = new KeyIndex(snapshot, policy);
    assert.deepEqual(oddIndex.skipped, [record.id]);
    assert.equal(oddIndex.size, 0);
  });

  it('answers a key presented again (a new string each request) as the first time, and the key after it by its own entry', () => {
    const again = (key: string): string => [...key].join('');
    for (let i = 0; i < 3; i++) {
      assert.equal(index.lookup(again(active.key), now)?.plan, 'professional');
      assert.equal(index.lookup(again(active.key), now)?.plan, 'professional');
      assert.equal(index.lookup(again(revoked.key), now), null);
      assert.equal(index.lookup(again(revoked.key), now), null);
      assert.equal(index.lookup(again(expiring.key), now)?.plan, 'starter');
      assert.equal(index.lookup(again(expiring.key), Date.parse('2030-01-01T00:00:00Z')), null, 'expired, though it was the last key presented');
    }
  });

  it('stays correct when the lookup cache fills up', () => {
    for (let i = 0; i < 10_000; i++) index.lookup(`gk_random_${i}`, now);
    assert.equal(index.lookup(active.key, now)?.plan, 'professional');
    assert.equal(index.lookup('gk_random_5', now), null);
  });
});
