// The real HTTP surface driven the way the hosted API's clients (its JavaScript SDK, CLI and
// Python client) use it, with only a base-URL change and `GEOAPI_COMPAT=csc`: the key only in
// X-CSCAPI-KEY, usage read from X-CSC-*, a 429 read from the flat fields, pagination read from
// X-CSC-Total-Count / X-CSC-Limit / X-CSC-Offset. The little client below is written from the
// behaviour decisions.md describes ("Clients of the public service"), not copied from theirs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';

interface Usage {
  plan: string;
  dailyUsed: number;
  /** A number, or Infinity for `unlimited`. */
  dailyLimit: number;
  monthlyUsed: number;
  monthlyLimit: number;
}

interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

class RateLimitError extends Error {
  constructor(
    message: string,
    readonly limit: number,
    readonly period: string,
    readonly tier: string,
    readonly upgradeUrl: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

const limitOf = (text: string): number => (text === 'unlimited' ? Infinity : Number.parseInt(text, 10));

/** What a client of the hosted API does with one GET. */
async function cscGet<T>(baseUrl: string, apiKey: string, path: string): Promise<{ data: T; usage: Usage | null; pagination: Pagination | null }> {
  const res = await fetch(`${baseUrl}/v1${path}`, { headers: { 'X-CSCAPI-KEY': apiKey, Accept: 'application/json' } });
  const body = (await res.json()) as Record<string, any>;
  if (res.status === 429) {
    throw new RateLimitError(body['error'], body['limit'], body['period'], body['tier'], body['upgradeUrl'], Number(res.headers.get('retry-after')));
  }
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body)}`);
  const h = (name: string) => res.headers.get(name);
  const usageParts = [h('x-csc-plan'), h('x-csc-daily-used'), h('x-csc-daily-limit'), h('x-csc-monthly-used'), h('x-csc-monthly-limit')];
  const usage = usageParts.every((part) => part)
    ? { plan: usageParts[0]!, dailyUsed: Number.parseInt(usageParts[1]!, 10), dailyLimit: limitOf(usageParts[2]!), monthlyUsed: Number.parseInt(usageParts[3]!, 10), monthlyLimit: limitOf(usageParts[4]!) }
    : null;
  const total = h('x-csc-total-count');
  const pagination =
    total === null
      ? null
      : (() => {
          const limit = Number(h('x-csc-limit'));
          const offset = Number(h('x-csc-offset'));
          return { total: Number(total), limit, offset, hasMore: offset + limit < Number(total) };
        })();
  return { data: body as T, usage, pagination };
}

describe('a client of the hosted API against geoapi --compat csc (GEOAPI_COMPAT=csc)', () => {
  let server: TestServer;
  let base: string;
  before(async () => {
    server = await startTestServer({
      snapshotDir: fixtureSnapshot().dir,
      quota: 'default',
      env: { GEOAPI_COMPAT: 'csc' },
      extraKeys: [{ label: 'free', plan: 'community' }, { label: 'paid', plan: 'supporter' }],
      editPolicy: (policy) => {
        policy['plans'].community.quota = { daily: 2, monthly: 3000 };
        policy['plans'].business.quota = null;
      },
    });
    base = server.url;
  });
  after(() => server?.close());

  it('authenticates with X-CSCAPI-KEY alone and reads its usage from the X-CSC-* headers', async () => {
    const first = await cscGet<{ iso2: string }[]>(base, server.extraKeys['paid']!, '/countries');
    assert.equal(first.data.length, 6);
    assert.deepEqual(first.usage, { plan: 'supporter', dailyUsed: 1, dailyLimit: 1000, monthlyUsed: 1, monthlyLimit: 30000 });
    const second = await cscGet(base, server.extraKeys['paid']!, '/countries/US/states');
    assert.equal(second.usage?.dailyUsed, 2);
    // A tier check as the CLI makes it (Supporter and above: a daily limit of at least 1000).
    assert.ok(second.usage!.dailyLimit >= 1000);
    const unlimited = await cscGet(base, server.keys.business, '/countries/US');
    assert.equal(unlimited.usage?.dailyLimit, Infinity, 'a plan without a quota reads as unlimited, and passes the check');
  });

  it('reads a 429 from the flat fields', async () => {
    const key = server.extraKeys['free']!;
    await cscGet(base, key, '/countries/US');
    await cscGet(base, key, '/countries/US');
    await assert.rejects(cscGet(base, key, '/countries/US'), (error: unknown) => {
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.message, 'Daily usage limit exceeded. Please try again tomorrow or contact support for higher limits.');
      assert.equal(error.limit, 2);
      assert.equal(error.period, 'daily');
      assert.equal(error.tier, 'community');
      assert.equal(error.upgradeUrl, 'https://geoapi.local/pricing');
      assert.ok(error.retryAfterSeconds > 0 && error.retryAfterSeconds <= 86_400);
      return true;
    });
  });

  it('pages through a list with limit/offset, reading X-CSC-Total-Count, X-CSC-Limit and X-CSC-Offset', async () => {
    const key = server.keys.business;
    const whole = await cscGet<{ id: number }[]>(base, key, '/states');
    assert.equal(whole.pagination, null, 'no page asked, no page headers');
    const seen: number[] = [];
    let offset = 0;
    for (;;) {
      const page = await cscGet<{ id: number }[]>(base, key, `/states?limit=4&offset=${offset}`);
      assert.ok(page.pagination);
      assert.equal(page.pagination.total, whole.data.length);
      assert.equal(page.pagination.limit, 4);
      assert.equal(page.pagination.offset, offset);
      seen.push(...page.data.map((state) => state.id));
      if (!page.pagination.hasMore) break;
      offset += page.pagination.limit;
    }
    assert.deepEqual(seen, whole.data.map((state) => state.id));
  });

  it('reads its usage from GET /v1/usage', async () => {
    const key = server.extraKeys['paid']!;
    const before = await cscGet<{ dailyUsed: number }>(base, key, '/usage');
    const after = await cscGet<{ plan: string; dailyUsed: number; dailyLimit: number }>(base, key, '/usage');
    assert.equal(after.data.plan, 'supporter');
    assert.equal(after.data.dailyUsed, before.data.dailyUsed + 1);
    assert.equal(after.data.dailyLimit, 1000);
    assert.equal(after.usage?.dailyUsed, after.data.dailyUsed);
  });
});
