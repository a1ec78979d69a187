import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CURSOR_TTL_MS, CursorCodec, CursorError, cursorSecretsFromEnv, type CursorState } from '../../../runtime/routes/postcodes/cursor.js';
import { sameFilters } from '../../../runtime/engine/postcodes/engine.js';

const secrets = (current: string, ...previous: string[]) => ({ current: Buffer.from(current), previous: previous.map((p) => Buffer.from(p)), ephemeral: false });
const now = Date.UTC(2025, 0, 15, 12, 0, 0);
const state: CursorState = {
  country: 'US',
  dataVersion: 'abc123',
  filters: { q: 'san jose', stateCode: 'CA', cityId: 42, type: 'full' },
  lastRow: 12345,
  issuedAtMs: now,
};

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof CursorError) return error.reason;
    throw error;
  }
  return 'accepted';
}

test('round-trips a cursor: same state back, url-safe opaque text', () => {
  const codec = new CursorCodec(secrets('s3cret-current'));
  const token = codec.encode(state);
  assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(codec.decode(token, { dataVersion: 'abc123', nowMs: now + 1000 }), state);
});

test('refuses a cursor whose payload or signature was changed', () => {
  const codec = new CursorCodec(secrets('s3cret-current'));
  const token = codec.encode(state);
  const [payload, signature] = token.split('.') as [string, string];
  const forged = Buffer.from(JSON.stringify([1, 'US', 'abc123', 99999, now, 'san jose', 'CA', 42, 'full'])).toString('base64url');
  const flip = (s: string) => (s[5] === 'A' ? `${s.slice(0, 5)}B${s.slice(6)}` : `${s.slice(0, 5)}A${s.slice(6)}`);
  for (const bad of [`${forged}.${signature}`, `${payload}.${flip(signature)}`, `${flip(payload)}.${signature}`, payload, '', 'garbage', `${token}.x`, `${payload}.${signature}=`]) {
    assert.equal(reasonOf(() => codec.decode(bad, { dataVersion: 'abc123', nowMs: now })), 'invalid', bad);
  }
});

test('refuses a cursor signed with another secret, accepts one signed with a previous secret', () => {
  const old = new CursorCodec(secrets('old-secret'));
  const rotated = new CursorCodec(secrets('new-secret', 'old-secret'));
  const other = new CursorCodec(secrets('new-secret'));
  const token = old.encode(state);
  assert.deepEqual(rotated.decode(token, { dataVersion: 'abc123', nowMs: now }), state);
  assert.equal(reasonOf(() => other.decode(token, { dataVersion: 'abc123', nowMs: now })), 'invalid');
});

test('refuses a cursor of another dataVersion as invalid', () => {
  const codec = new CursorCodec(secrets('k'));
  assert.equal(reasonOf(() => codec.decode(codec.encode(state), { dataVersion: 'def456', nowMs: now })), 'invalid');
});

test('expires a cursor 24 hours after it was issued', () => {
  const codec = new CursorCodec(secrets('k'));
  const token = codec.encode(state);
  assert.equal(reasonOf(() => codec.decode(token, { dataVersion: 'abc123', nowMs: now + CURSOR_TTL_MS - 1 })), 'accepted');
  assert.equal(reasonOf(() => codec.decode(token, { dataVersion: 'abc123', nowMs: now + CURSOR_TTL_MS })), 'expired');
  assert.equal(new CursorError('expired').message, 'cursor has expired. Start again without a cursor.');
});

test('refuses a cursor issued far in the future (beyond clock skew)', () => {
  const codec = new CursorCodec(secrets('k'));
  const token = codec.encode({ ...state, issuedAtMs: now + 60 * 60 * 1000 });
  assert.equal(reasonOf(() => codec.decode(token, { dataVersion: 'abc123', nowMs: now })), 'invalid');
});

test('keeps null filters and compares filters field by field', () => {
  const codec = new CursorCodec(secrets('k'));
  const bare: CursorState = { ...state, filters: { q: null, stateCode: null, cityId: null, type: null } };
  assert.deepEqual(codec.decode(codec.encode(bare), { dataVersion: 'abc123', nowMs: now }), bare);
  assert.equal(sameFilters(state.filters, { ...state.filters }), true);
  assert.equal(sameFilters(state.filters, { ...state.filters, cityId: 43 }), false);
  assert.equal(sameFilters(state.filters, { ...state.filters, q: null }), false);
});

test('reads secrets from the environment; generates an ephemeral one when unset', () => {
  const configured = cursorSecretsFromEnv({ GEOAPI_CURSOR_SECRET: 'abc', GEOAPI_CURSOR_SECRET_PREVIOUS: 'old1, old2' });
  assert.equal(configured.ephemeral, false);
  assert.equal(configured.current.toString(), 'abc');
  assert.deepEqual(configured.previous.map(String), ['old1', 'old2']);
  const generated = cursorSecretsFromEnv({});
  assert.equal(generated.ephemeral, true);
  assert.equal(generated.current.byteLength, 32);
  assert.notDeepEqual(cursorSecretsFromEnv({}).current, generated.current);
});
