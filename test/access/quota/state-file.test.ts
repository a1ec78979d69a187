import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CounterTable } from '../../../runtime/access/quota/counter-table.js';
import { parseState, QuotaStateFile, serialiseState } from '../../../runtime/access/quota/state-file.js';
import { dayIdOf, monthIdOf } from '../../../runtime/access/quota/windows.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const today = dayIdOf(NOW.getTime());
const thisMonth = monthIdOf(NOW.getTime());

const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'geoapi-quota-'));
  tempDirs.push(dir);
  return path.join(dir, 'nested', 'quota-state.json');
}

test('state text round-trips and uses readable window labels', () => {
  const entries = [{ key: 'key:a', dayId: today, dayCount: 57, monthId: thisMonth, monthCount: 1200 }];
  const text = serialiseState(entries, NOW);
  assert.deepEqual(JSON.parse(text).buckets, [{ key: 'key:a', day: '2026-11-22', dayUsed: 57, month: '2026-11', monthUsed: 1200 }]);
  assert.deepEqual(parseState(text), entries);
});

test('parseState says what it expected and what it found', () => {
  assert.throws(() => parseState('{"format":"other"}'), /expected format "geoapi-quota-state\/1", found "other"/);
  assert.throws(
    () => parseState('{"format":"geoapi-quota-state/1","buckets":[{"key":"k","day":"2026-02-30","dayUsed":1,"month":"2026-02","monthUsed":1}]}'),
    /buckets\[0\]: expected \{key, day: YYYY-MM-DD/,
  );
});

test('a flushed table is restored into a new table; past months are dropped', async () => {
  const file = tempFile();
  const table = CounterTable.create(64);
  table.set({ key: 'key:now', dayId: today, dayCount: 5, monthId: thisMonth, monthCount: 50 });
  table.set({ key: 'key:old', dayId: today - 40, dayCount: 9, monthId: thisMonth - 2, monthCount: 90 });
  const writer = new QuotaStateFile(file, table, { intervalMs: 1000, now: () => NOW });
  await writer.flush();
  const fresh = CounterTable.create(64);
  const reader = new QuotaStateFile(file, fresh, { intervalMs: 1000, now: () => NOW });
  assert.equal(reader.load(), 1);
  assert.deepEqual(fresh.entries(), [{ key: 'key:now', dayId: today, dayCount: 5, monthId: thisMonth, monthCount: 50 }]);
});

test('a missing file is a first start', () => {
  const reader = new QuotaStateFile(tempFile(), CounterTable.create(64), { intervalMs: 1000 });
  assert.equal(reader.load(), 0);
});

test('an unreadable file is moved aside and counting starts over, with a log line', async () => {
  const file = tempFile();
  const table = CounterTable.create(64);
  await new QuotaStateFile(file, table, { intervalMs: 1000 }).flush(); // creates the directory
  table.set({ key: 'key:x', dayId: today, dayCount: 1, monthId: thisMonth, monthCount: 1 });
  writeFileSync(file, '{"format":"geoapi-quota-state/1","buck');
  const logs: string[] = [];
  const reader = new QuotaStateFile(file, CounterTable.create(64), { intervalMs: 1000, log: (m) => logs.push(m) });
  assert.equal(reader.load(), 0);
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /is unreadable .* moved to .*\.corrupt-\d+, counting starts at zero/);
  assert.ok(readdirSync(path.dirname(file)).some((name) => name.startsWith('quota-state.json.corrupt-')));
});

test('flush writes only when counts changed, and stop writes the last state', async () => {
  const file = tempFile();
  const table = CounterTable.create(64);
  const out = new Int32Array(2);
  const state = new QuotaStateFile(file, table, { intervalMs: 60_000, now: () => NOW });
  table.consume(table.slotOf('key:a'), today, thisMonth, 10, 10, out);
  await state.flush();
  const first = readFileSync(file, 'utf8');
  await state.flush();
  assert.equal(readFileSync(file, 'utf8'), first);
  table.consume(table.slotOf('key:a'), today, thisMonth, 10, 10, out);
  await state.stop();
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).buckets[0].dayUsed, 2);
  // No temporary file is left behind.
  assert.deepEqual(readdirSync(path.dirname(file)), ['quota-state.json']);
});
