// The warm-up's quota gate (QuotaGate.forWarmUp): the memory mode's gate made again over counters
// of its own, every plan unlimited. It must leave no count in the thread's table, never refuse
// the warm-up, and give the warm-up's requests the objects real requests get, hidden classes
// included: with noQuotaGate instead, the first real requests after ready deoptimized authorize
// and afterQuota ("wrong map") and serveRequest with them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callerFor } from '../../../runtime/access/gate.js';
import { loadPolicy, parsePolicy, readPolicyText, DEFAULT_POLICY_FILE } from '../../../runtime/access/policy.js';
import { CounterTable } from '../../../runtime/access/quota/counter-table.js';
import { createQuotaGate, createQuotaShared, type QuotaShared } from '../../../runtime/access/quota/index.js';
import { moduleLiteral, runWithNatives } from '../../support/natives.js';

const NOW = new Date('2026-11-22T12:00:00Z');

test('the memory gate\'s warm-up gate counts in a table of its own: the thread\'s table is left as it was', () => {
  const policy = loadPolicy();
  const shared = createQuotaShared(policy, { options: { mode: 'memory', stateFile: null }, log: () => undefined }) as QuotaShared;
  const gate = createQuotaGate({ policy, shared, threadIndex: 0, threadCount: 1, log: () => undefined });
  const warmUp = gate.forWarmUp!();
  const caller = callerFor('k_real', 'business', policy);
  for (let i = 1; i <= 3; i++) assert.equal((warmUp.consume(caller, NOW) as { headers: Record<string, string> }).headers['X-GEOAPI-Daily-Used'], String(i));
  assert.equal(CounterTable.from(shared.table).size, 0, 'no bucket in the shared table');
  // The real gate then counts from 1.
  assert.equal((gate.consume(caller, NOW) as { headers: Record<string, string> }).headers['X-GEOAPI-Daily-Used'], '1');
});

test('the warm-up gate never refuses, whatever the plans\' quotas, and follows a reloaded policy\'s plans', () => {
  const json = JSON.parse(readPolicyText(DEFAULT_POLICY_FILE)) as { plans: Record<string, { quota: { daily: number; monthly: number } }> };
  json.plans['business']!.quota = { ...json.plans['business']!.quota, daily: 5, monthly: 5 };
  const policy = parsePolicy(JSON.stringify(json), 'tiny-quota policy');
  const shared = createQuotaShared(policy, { options: { mode: 'memory', stateFile: null }, log: () => undefined });
  const gate = createQuotaGate({ policy, shared, threadIndex: 0, threadCount: 1, log: () => undefined });
  const caller = callerFor('k_warm', 'business', policy);
  const warmUp = gate.forWarmUp!();
  for (let i = 0; i < 10_000; i++) assert.equal((warmUp.consume(caller, NOW) as { allowed: boolean }).allowed, true);
  // The real gate keeps the policy's limits.
  for (let i = 0; i < 5; i++) assert.equal((gate.consume(caller, NOW) as { allowed: boolean }).allowed, true);
  assert.equal((gate.consume(caller, NOW) as { status?: number }).status, 429);
});

test('none where nothing counts (quota off): the warm-up keeps noQuotaGate there', () => {
  const policy = loadPolicy();
  const shared = createQuotaShared(policy, { options: { mode: 'off' }, log: () => undefined });
  assert.equal(createQuotaGate({ policy, shared, threadIndex: 0, threadCount: 1, log: () => undefined }).forWarmUp, undefined);
});

test('its gate, decisions, usage headers and plan quotas have the real ones\' hidden classes', () => {
  const module = (path: string): string => moduleLiteral(path, import.meta.url);
  const script = `
    const { callerFor } = await import(${module('../../../runtime/access/gate.js')});
    const { loadPolicy } = await import(${module('../../../runtime/access/policy.js')});
    const { createQuotaGate, createQuotaShared } = await import(${module('../../../runtime/access/quota/index.js')});
    const { quotaPolicyOf } = await import(${module('../../../runtime/access/quota/plans.js')});
    const policy = loadPolicy();
    const shared = createQuotaShared(policy, { options: { mode: 'memory', stateFile: null }, log: () => undefined });
    const gate = createQuotaGate({ policy, shared, threadIndex: 0, threadCount: 1, log: () => undefined });
    const warmUp = gate.forWarmUp();
    const now = new Date(${NOW.getTime()});
    const warm = warmUp.consume(callerFor('warm-up', 'business', policy), now);
    const real = gate.consume(callerFor('k_real', 'business', policy), now);
    console.log(JSON.stringify({
      gate: %HaveSameMap(gate, warmUp),
      decision: %HaveSameMap(real, warm),
      headers: %HaveSameMap(real.headers, warm.headers),
      planQuota: %HaveSameMap(quotaPolicyOf(policy).plans.business, quotaPolicyOf(policy, true).plans.business),
      quotaPolicy: %HaveSameMap(quotaPolicyOf(policy), quotaPolicyOf(policy, true)),
    }));
  `;
  assert.deepEqual(JSON.parse(runWithNatives(script)), { gate: true, decision: true, headers: true, planQuota: true, quotaPolicy: true });
});
