import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALLOWED, DAILY_EXCEEDED, MONTHLY_EXCEEDED } from '../../../runtime/access/quota/counter-table.js';
import { DAILY_MESSAGE, MONTHLY_MESSAGE, decide } from '../../../runtime/access/quota/decision.js';
import { windowsAt } from '../../../runtime/access/quota/windows.js';

const community = { plan: 'community', daily: 100, monthly: 3000 };
const UPGRADE = 'https://example.test/pricing';

test('an allowed request carries the plan, usage and RateLimit fields', () => {
  const now = Date.parse('2026-11-22T23:00:00Z');
  const d = decide(ALLOWED, community, windowsAt(now), now, 43, 1200, 'community', UPGRADE);
  assert.equal(d.allowed, true);
  assert.equal(d.status, undefined);
  assert.deepEqual(d.headers, {
    'X-GEOAPI-Plan': 'community',
    'X-GEOAPI-Daily-Used': '43',
    'X-GEOAPI-Daily-Limit': '100',
    'X-GEOAPI-Monthly-Used': '1200',
    'X-GEOAPI-Monthly-Limit': '3000',
    'RateLimit-Policy': '"daily";q=100;w=86400, "monthly";q=3000;w=2592000',
    RateLimit: `"daily";r=57;t=3600, "monthly";r=1800;t=${8 * 86400 + 3600}`,
  });
});

test('the monthly window is the calendar month: 31 days in January, 29 in a leap February', () => {
  const jan = Date.parse('2026-01-10T00:00:00Z');
  assert.match(decide(ALLOWED, community, windowsAt(jan), jan, 1, 1, 'community', UPGRADE).headers['RateLimit-Policy']!, /"monthly";q=3000;w=2678400$/);
  const feb = Date.parse('2028-02-10T00:00:00Z');
  assert.match(decide(ALLOWED, community, windowsAt(feb), feb, 1, 1, 'community', UPGRADE).headers['RateLimit-Policy']!, /"monthly";q=3000;w=2505600$/);
});

test('a daily refusal is a shape-B 429 with resetAt at the next UTC midnight and Retry-After', () => {
  const now = Date.parse('2026-11-22T18:30:00.250Z');
  const d = decide(DAILY_EXCEEDED, community, windowsAt(now), now, 100, 700, 'community', UPGRADE);
  assert.equal(d.allowed, false);
  assert.equal(d.status, 429);
  assert.deepEqual(JSON.parse(d.body!), {
    status: 'error',
    message: DAILY_MESSAGE,
    details: { limit: 100, period: 'daily', resetAt: '2026-11-23T00:00:00.000Z', upgradeUrl: UPGRADE, tier: 'community' },
  });
  assert.equal(DAILY_MESSAGE, 'Daily usage limit exceeded. Please try again tomorrow or contact support for higher limits.');
  assert.equal(d.headers['Retry-After'], String(5 * 3600 + 30 * 60)); // 19,799.75 s rounded up
  assert.equal(d.headers['Cache-Control'], undefined, 'the HTTP layer adds no-store to every error');
  assert.match(d.headers.RateLimit!, /^"daily";r=0;t=19800, /);
});

test('a monthly refusal points at the 1st of next month', () => {
  const now = Date.parse('2026-12-31T23:59:59Z');
  const d = decide(MONTHLY_EXCEEDED, community, windowsAt(now), now, 20, 3000, 'community', UPGRADE);
  const body = JSON.parse(d.body!);
  assert.equal(body.message, MONTHLY_MESSAGE);
  assert.equal(MONTHLY_MESSAGE, 'Monthly usage limit exceeded. Please upgrade for higher limits.');
  assert.deepEqual(body.details, { limit: 3000, period: 'monthly', resetAt: '2027-01-01T00:00:00.000Z', upgradeUrl: UPGRADE, tier: 'community' });
  assert.equal(d.headers['Retry-After'], '1');
});
