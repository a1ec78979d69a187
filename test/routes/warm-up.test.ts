// The warm-up requests a worker answers to itself before it says ready (runtime/routes/warm-up.ts):
// drawn from the data, so they keep answering as operations and datasets change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allOperations } from '../../runtime/routes/registry.js';
import { answerOnce, tiersOf, warmUpRequests, warmUpSteps } from '../../runtime/routes/warm-up.js';
import { moduleLiteral, runWithNatives } from '../support/natives.js';
import { fixtureSnapshot } from '../support/snapshots.js';

const NOW_MS = Date.parse('2026-11-24T12:00:00Z');

describe('warm-up requests', () => {
  it('cover every operation of the registry', () => {
    const { store } = fixtureSnapshot();
    const covered = new Set(warmUpRequests(store, allOperations()).map((request) => request.operation));
    assert.deepEqual(allOperations().map((op) => op.name).filter((name) => !covered.has(name)), []);
  });

  it('each answer 200 at every field tier they are sent at (all three, or those above Basic), on the fixture data (a 4xx would warm the error path only)', () => {
    const { store } = fixtureSnapshot();
    const operations = new Map(allOperations().map((op) => [op.name, op]));
    for (const request of warmUpRequests(store, allOperations())) {
      for (const [tier, countryTier] of tiersOf(request)) {
        const reply = answerOnce(store, operations.get(request.operation)!, request, tier, countryTier, NOW_MS);
        assert.equal(reply.status, 200, `${JSON.stringify(request)} at ${tier}`);
      }
    }
  });

  it('include a phone number of every dial code, answered once', () => {
    const { store } = fixtureSnapshot();
    const phones = warmUpRequests(store, allOperations()).filter((request) => request.operation === 'phoneParse' && request.once);
    const dialCodes = new Set<string>();
    for (let row = 0; row < store.countries.count; row++) {
      const code = store.countries.record(row).phonecode?.replace(/\D/g, '');
      if (code && !code.startsWith('0')) dialCodes.add(code);
    }
    assert.equal(phones.length, dialCodes.size);
    for (const request of phones) assert.equal(request.operation, 'phoneParse');
  });

  it('include searches and postcode lookups on places spread over the data, each answered once', () => {
    const { store } = fixtureSnapshot();
    const variety = warmUpRequests(store, allOperations()).filter((request) => request.once && request.operation !== 'phoneParse');
    const count = (operation: string): number => variety.filter((request) => request.operation === operation).length;
    // The fixture has fewer places than VARIETY: several requests land on the same ones.
    for (const operation of ['autocomplete', 'fuzzySearch', 'nearbySearch', 'postcodeLookup']) assert.ok(count(operation) > 0, `${operation} warmed on varied places`);
    // Distinct answers are distinct requests (the same request twice is dropped).
    assert.equal(new Set(variety.map((request) => JSON.stringify(request))).size, variety.length);
    const autocompleteQueries = new Set(variety.filter((request) => request.operation === 'autocomplete').map((request) => request.query.q));
    assert.ok(autocompleteQueries.size > 5, `expected varied autocomplete queries, found ${[...autocompleteQueries].join(', ')}`);
    // Postcode pages with q, some with a state_code: the locality search and the merge of matched localities' rows.
    const postcodePages = variety.filter((request) => request.operation === 'postcodeSearch');
    assert.ok(postcodePages.length > 0 && postcodePages.every((request) => (request.query.q ?? '') !== ''), 'postcode pages with q');
    assert.ok(postcodePages.some((request) => request.query.state_code !== undefined), 'and some with a state_code');
    // And a broad one (the shortest q, in the country with the most postcodes): the bitset path of many matched localities.
    assert.ok(postcodePages.some((request) => [...request.query.q!].length === 2 && request.query.limit === '5'), 'a page with a two-character q');
  });

  it('run as steps that never throw, even for an operation that fails on every request', () => {
    const { store } = fixtureSnapshot();
    const failing = { ...allOperations().find((op) => op.name === 'countryDetail')!, handle: () => { throw new Error('broken'); } };
    const steps = warmUpSteps(store, [failing], () => NOW_MS);
    assert.ok(steps.length > 0);
    for (const step of steps) step();
  });

  it('keeps code optimized before the first cursor: the Buffer maps are settled before any step runs', () => {
    // A function reading a Uint8Array held in a field, optimized after settleBufferMaps(), must
    // stay optimized through the first digest() (the first cursor's signature). Without the
    // settling, Node 20 throws such code away there (measured: 81 functions of the warm-up).
    const script = `
      import { createHash } from 'node:crypto';
      const { settleBufferMaps } = await import(${moduleLiteral('../../runtime/routes/warm-up.js', import.meta.url)});
      settleBufferMaps();
      class Holder { constructor(bytes) { this.bytes = bytes; } }
      function first(holder) { return holder.bytes[0]; }
      const holder = new Holder(new Uint8Array(4));
      %PrepareFunctionForOptimization(first);
      first(holder);
      first(holder);
      %OptimizeFunctionOnNextCall(first);
      first(holder);
      const OPTIMIZED = 16;
      const before = (%GetOptimizationStatus(first) & OPTIMIZED) !== 0;
      createHash('sha1').digest();
      const after = (%GetOptimizationStatus(first) & OPTIMIZED) !== 0;
      console.log(JSON.stringify({ before, after }));
    `;
    assert.deepEqual(JSON.parse(runWithNatives(script)), { before: true, after: true });
  });

  it("leaves the real callers' hidden class as it is: a key's caller made before the warm-up keeps it", () => {
    // The warm-up's caller is an object literal of the same fields as gate.ts callerFor's. A rank
    // V8 cannot hold as a small integer there gave every caller a new hidden class, and the callers
    // of the keys loaded before kept a deprecated one: the first real request deoptimized the
    // pipeline ("wrong map" in authorize).
    const module = (path: string): string => moduleLiteral(path, import.meta.url);
    const script = `
      const { callerFor } = await import(${module('../../runtime/access/gate.js')});
      const { loadPolicy } = await import(${module('../../runtime/access/policy.js')});
      const { allOperations } = await import(${module('../../runtime/routes/registry.js')});
      const { answerOnce, warmUpRequests } = await import(${module('../../runtime/routes/warm-up.js')});
      const { fixtureSnapshot } = await import(${module('../support/snapshots.js')});
      const policy = loadPolicy();
      const { store } = fixtureSnapshot();
      const loadedBefore = callerFor('k_before', 'business', policy);
      const operations = new Map(allOperations().map((op) => [op.name, op]));
      const request = warmUpRequests(store, allOperations()).find((warmUp) => warmUp.operation === 'countryDetail');
      answerOnce(store, operations.get(request.operation), request, 'full', 'full', ${NOW_MS});
      const loadedAfter = callerFor('k_after', 'business', policy);
      console.log(JSON.stringify({ sameClass: %HaveSameMap(loadedBefore, loadedAfter) }));
    `;
    assert.deepEqual(JSON.parse(runWithNatives(script)), { sameClass: true });
  });
});
