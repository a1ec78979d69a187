import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { callerFor } from '../../../runtime/access/gate.js';
import { loadPolicy } from '../../../runtime/access/policy.js';
import { CounterTable } from '../../../runtime/access/quota/counter-table.js';
import { createQuotaGate, createQuotaShared, stopQuotaShared } from '../../../runtime/access/quota/index.js';
import { MemoryQuotaGate } from '../../../runtime/access/quota/memory-gate.js';
import { quotaPolicyOf } from '../../../runtime/access/quota/plans.js';
import type { QuotaDecision } from '../../../runtime/access/quota-hook.js';

const policy = loadPolicy();
const quotaPolicy = quotaPolicyOf(policy);
const NOW = new Date('2026-11-22T12:00:00Z');

test('a Community key gets 100 requests a day, each counted once, then 429s that do not count', () => {
  const gate = new MemoryQuotaGate(CounterTable.create(64), quotaPolicy);
  const caller = callerFor('c1', 'community', policy);
  for (let i = 1; i <= 100; i++) {
    const d = gate.consume(caller, NOW);
    assert.equal(d.allowed, true);
    assert.equal(d.headers['X-GEOAPI-Daily-Used'], String(i));
  }
  for (let i = 0; i < 3; i++) {
    const d = gate.consume(caller, NOW);
    assert.equal(d.status, 429);
    assert.equal(d.headers['X-GEOAPI-Daily-Used'], '100');
    assert.equal(d.headers['X-GEOAPI-Monthly-Used'], '100');
  }
  // Another key of the same plan has its own bucket.
  assert.equal(gate.consume(callerFor('c2', 'community', policy), NOW).headers['X-GEOAPI-Daily-Used'], '1');
});

test('every playground key counts in the one playground bucket', () => {
  const gate = new MemoryQuotaGate(CounterTable.create(64), quotaPolicy);
  gate.consume(callerFor('p1', 'playground', policy), NOW);
  const d = gate.consume(callerFor('p2', 'playground', policy), NOW);
  assert.equal(d.headers['X-GEOAPI-Daily-Used'], '2');
  assert.equal(d.headers['X-GEOAPI-Daily-Limit'], String(policy.plans['playground']!.quota!.daily));
});

test('a limit divisor (Redis fallback) enforces each limit divided by the replica count, rounded up', () => {
  const gate = new MemoryQuotaGate(CounterTable.create(64), quotaPolicy, { limitDivisor: 3 });
  const caller = callerFor('c3', 'community', policy);
  const decisions = Array.from({ length: 40 }, () => gate.consume(caller, NOW));
  assert.equal(decisions.filter((d) => d.allowed).length, 34);
  assert.equal(decisions[0]!.headers['X-GEOAPI-Daily-Limit'], '34');
  assert.equal(decisions[0]!.headers['X-GEOAPI-Monthly-Limit'], '1000');
});

test('a plan without a quota is neither limited nor counted', () => {
  const open = { ...quotaPolicy, plans: { ...quotaPolicy.plans, business: null } };
  const gate = new MemoryQuotaGate(CounterTable.create(64), open);
  const d = gate.consume(callerFor('b1', 'business', policy), NOW);
  assert.deepEqual(d, { allowed: true, headers: { 'X-GEOAPI-Plan': 'business' } });
});

test('a full table still answers: new keys are counted per thread and the operator is told once', () => {
  const notes: number[] = [];
  const gate = new MemoryQuotaGate(CounterTable.create(8), quotaPolicy, { onTableFull: (capacity) => notes.push(capacity) });
  const results: QuotaDecision[] = [];
  for (let k = 0; k < 12; k++) results.push(gate.consume(callerFor(`full-${k}`, 'community', policy), NOW));
  assert.ok(results.every((d) => d.allowed && d.headers['X-GEOAPI-Daily-Used'] === '1'));
  assert.deepEqual(notes, [8]);
});

test('the policy can change limits while counts are kept', () => {
  const gate = new MemoryQuotaGate(CounterTable.create(64), quotaPolicy);
  const caller = callerFor('c4', 'community', policy);
  for (let i = 0; i < 5; i++) gate.consume(caller, NOW);
  gate.setPolicy({ ...quotaPolicy, plans: { ...quotaPolicy.plans, community: { daily: 5, monthly: 3000, sharedBucket: false } } });
  assert.equal(gate.consume(caller, NOW).status, 429);
});

test('memory mode wires the table, the gate and the state file together', async () => {
  const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'geoapi-quota-')), 'quota-state.json');
  // The restart restores the counts of NOW's month, not of the wall clock's.
  const shared = createQuotaShared(policy, { options: { mode: 'memory', stateFile, persistIntervalMs: 60_000 }, log: () => undefined, now: () => NOW });
  const gate = createQuotaGate({ policy, shared, threadIndex: 0, threadCount: 1, log: () => undefined });
  const caller = callerFor('wired', 'starter', policy);
  const d = (await gate.consume(caller, NOW)) as QuotaDecision;
  assert.equal(d.headers['X-GEOAPI-Daily-Limit'], '300');
  await stopQuotaShared(shared);
  const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
  assert.deepEqual(saved.buckets, [{ key: 'key:wired', day: '2026-11-22', dayUsed: 1, month: '2026-11', monthUsed: 1 }]);
  // A second start restores the count.
  const again = createQuotaShared(policy, { options: { mode: 'memory', stateFile, persistIntervalMs: 60_000 }, log: () => undefined, now: () => NOW });
  const gate2 = createQuotaGate({ policy, shared: again, threadIndex: 0, threadCount: 1, log: () => undefined });
  assert.equal(((await gate2.consume(caller, NOW)) as QuotaDecision).headers['X-GEOAPI-Daily-Used'], '2');
  await stopQuotaShared(again);
  rmSync(path.dirname(stateFile), { recursive: true, force: true });
});

test('quota mode off adds no headers and refuses nothing', () => {
  const shared = createQuotaShared(policy, { options: { mode: 'off' }, log: () => undefined });
  const gate = createQuotaGate({ policy, shared, threadIndex: 0, threadCount: 1, log: () => undefined });
  const d = gate.consume(callerFor('off', 'community', policy), NOW) as QuotaDecision;
  assert.deepEqual(d, { allowed: true, headers: {} });
});

test('peek shows the usage without counting', () => {
  const gate = new MemoryQuotaGate(CounterTable.create(64), quotaPolicy);
  const caller = callerFor('peeker', 'community', policy);
  assert.equal(gate.peek(caller, NOW)['X-GEOAPI-Daily-Used'], '0');
  gate.consume(caller, NOW);
  const headers = gate.peek(caller, NOW);
  assert.equal(headers['X-GEOAPI-Daily-Used'], '1');
  assert.match(headers['RateLimit']!, /^"daily";r=99;/);
  assert.equal(gate.consume(caller, NOW).headers['X-GEOAPI-Daily-Used'], '2');
});
