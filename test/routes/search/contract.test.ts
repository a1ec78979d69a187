// HTTP contract of the search operations over a real server (fixture snapshot): every operation
// × every plan × 200/400/401/403, bodies validated against schemas/http/search-*.json, exact messages.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PlanName } from '../../../runtime/contract/index.js';
import type { TestServer } from '../../support/server.js';
import { PLANS, repoRoot, startSearchServer, validators } from './support.js';

const policy = JSON.parse(readFileSync(join(repoRoot, 'data/policy.json'), 'utf8')) as { forbiddenMessage: string; upgradeUrl: string };
const UNAUTHORIZED = { error: "Unauthorized. You shouldn't be here." };

interface Contract {
  name: 'autocomplete' | 'fuzzySearch' | 'nearbySearch';
  path: string;
  shape: 'A' | 'B';
  minPlan: PlanName;
  /** Valid queries (each must return results on the fixture), by result type. */
  ok: string[];
  /** Invalid queries and their exact messages. */
  bad: [string, string][];
}

const CONTRACTS: Contract[] = [
  {
    name: 'autocomplete', path: '/v1/search/autocomplete', shape: 'B', minPlan: 'supporter',
    ok: ['q=lon', 'q=new&type=state', 'q=uni&type=country', 'q=san&country=US&state=CA&limit=2', 'q=Londres&locale=fr&include_translations=true'],
    bad: [
      ['q=l', 'Invalid query parameters: q: Search query must be at least 2 characters'],
      ['', 'Invalid query parameters: q: Search query must be at least 2 characters'],
      ['q=san&state=CA', 'Invalid query parameters: state: country is required when filtering by state'],
      ['q=new&type=state&country=US&state=NY', 'Invalid query parameters: state: state is only a valid filter when type=city'],
      ['q=uni&type=country&country=US', 'Invalid query parameters: country: country is not a valid filter when type=country'],
    ],
  },
  {
    name: 'fuzzySearch', path: '/v1/search/fuzzy', shape: 'A', minPlan: 'professional',
    ok: ['q=London', 'q=Lodnon&threshold=0.2', 'q=New Yrok&type=state', 'q=Brasil&type=country', 'q=san&country=us&threshold=0.1&limit=2'],
    bad: [
      ['q=l', 'Invalid query parameters: q: Search query must be at least 2 characters'],
      ['q=uni&type=country&country=US', 'Invalid query parameters: country: country is not a valid filter when type=country'],
    ],
  },
  {
    name: 'nearbySearch', path: '/v1/search/nearby', shape: 'B', minPlan: 'professional',
    ok: ['lat=-17.5&lng=179.99&radius=500', 'lat=-17.5&lng=179.99&radius=500&type=state', 'lat=51.5&lng=-0.1&radius=500&type=country',
      'lat=78.6&lng=13.5&radius=100&kind=settlement&locale=de', 'lat=-18.1&lng=178.4&country=FJ&state=C'],
    bad: [
      ['lat=91&lng=0', 'Invalid query parameters: lat: lat must be between -90 and 90'],
      ['lat=0&lng=-181', 'Invalid query parameters: lng: lng must be between -180 and 180'],
      ['lat=0&lng=0&state=CA', 'Invalid query parameters: state: country is required when filtering by state'],
    ],
  },
];

const RANK: Readonly<Record<string, number>> = { community: 0, playground: 0, starter: 1, legacy: 1, supporter: 2, professional: 3, business: 4 };

let server: TestServer;
before(async () => {
  server = await startSearchServer();
});
after(async () => {
  await server?.close();
});

function url(contract: Contract, query: string): string {
  return `${contract.path}?${query.split('&').filter(Boolean).map((pair) => pair.split('=').map(encodeURIComponent).join('=')).join('&')}`;
}

for (const contract of CONTRACTS) {
  describe(`${contract.path} over HTTP`, () => {
    for (const plan of PLANS) {
      const allowed = RANK[plan]! >= RANK[contract.minPlan]!;
      test(`${plan}: ${allowed ? '200 with schema-valid bodies and 400 with the spec messages' : `403 (${contract.minPlan}+) whatever the parameters`}`, async () => {
        for (const query of contract.ok) {
          const res = await server.get(url(contract, query), { plan });
          const body = res.json();
          if (!allowed) {
            assert.equal(res.status, 403, query);
            if (contract.shape === 'A') {
              assert.equal(validators.errorA403(body), null);
              assert.deepEqual(body, { error: policy.forbiddenMessage, feature: contract.name, upgradeUrl: policy.upgradeUrl });
            } else {
              assert.equal(validators.errorB403(body), null);
              assert.deepEqual(body, {
                status: 'error', message: policy.forbiddenMessage,
                details: { feature: contract.name, currentTier: plan, requiredTier: contract.minPlan, upgradeUrl: policy.upgradeUrl },
              });
            }
            continue;
          }
          assert.equal(res.status, 200, `${query}: ${res.body}`);
          assert.match(String(res.headers['content-type']), /application\/json/);
          assert.equal(validators[contract.name](body), null, `${query}: ${res.body.slice(0, 300)}`);
          assert.ok(Array.isArray(body) && body.length > 0, `${query} finds something on the fixture`);
        }
        for (const [query, message] of contract.bad) {
          const res = await server.get(url(contract, query), { plan });
          const body = res.json();
          if (!allowed) {
            assert.equal(res.status, 403, query);
            continue;
          }
          assert.equal(res.status, 400, query);
          if (contract.shape === 'A') {
            assert.equal(validators.errorA(body), null);
            assert.deepEqual(body, { error: message });
          } else {
            assert.equal(validators.errorB(body), null);
            assert.deepEqual(body, { status: 'error', message });
          }
        }
      });
    }

    test('401 without a key or with an unknown key', async () => {
      for (const options of [{}, { key: 'not-a-key' }]) {
        const res = await server.get(url(contract, contract.ok[0]!), options);
        assert.equal(res.status, 401);
        assert.deepEqual(res.json(), UNAUTHORIZED);
        assert.equal(validators.errorA(res.json()), null);
      }
    });
  });
}

describe('search field tiers over HTTP', () => {
  test('autocomplete: Supporter gets the Coordinates city fields, Professional the full set and localized names', async () => {
    const supporter = (await server.get('/v1/search/autocomplete?q=lon&locale=es', { plan: 'supporter' })).json()[0];
    assert.equal(supporter.latitude, '51.50853000');
    assert.equal(supporter.wikiDataId, undefined);
    assert.equal(supporter.localized_name, undefined);
    const professional = (await server.get('/v1/search/autocomplete?q=lon&locale=es', { plan: 'professional' })).json()[0];
    assert.equal(professional.wikiDataId, 'Q84');
    assert.equal(professional.localized_name, 'Londres');
    assert.equal(professional.label, 'Londres, Westminster, United Kingdom');
  });

  test('a malformed locale is a 400 on every allowed plan', async () => {
    for (const plan of ['supporter', 'business'] as const) {
      const res = await server.get('/v1/search/autocomplete?q=lon&locale=english', { plan });
      assert.equal(res.status, 400);
      assert.equal(validators.errorB(res.json()), null);
    }
  });

  test('the same request answers the same bytes, then from the cache', async () => {
    const first = await server.get('/v1/search/nearby?lat=-17.5&lng=179.99&radius=321', { plan: 'business' });
    const second = await server.get('/v1/search/nearby?lat=-17.5&lng=179.99&radius=321', { plan: 'business' });
    assert.equal(second.body, first.body);
    assert.equal(first.headers['x-cache'], 'MISS');
    assert.equal(second.headers['x-cache'], 'HIT');
  });
});
