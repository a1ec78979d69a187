import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import {
  ALLOWED,
  CounterTable,
  DAILY_EXCEEDED,
  MONTHLY_EXCEEDED,
  TABLE_FULL,
  storedKey,
} from '../../../runtime/access/quota/counter-table.js';

const HAMMER = new URL('./fixtures/hammer-worker.js', import.meta.url);

test('counts up to the daily limit, then refuses without counting', () => {
  const table = CounterTable.create(64);
  const out = new Int32Array(2);
  const slot = table.slotOf('key:a');
  for (let i = 1; i <= 3; i++) {
    assert.equal(table.consume(slot, 100, 10, 3, 50, out), ALLOWED);
    assert.deepEqual([...out], [i, i]);
  }
  assert.equal(table.consume(slot, 100, 10, 3, 50, out), DAILY_EXCEEDED);
  assert.deepEqual([...out], [3, 3]);
  // The next day starts at zero; the month goes on.
  assert.equal(table.consume(slot, 101, 10, 3, 50, out), ALLOWED);
  assert.deepEqual([...out], [1, 4]);
});

test('the monthly limit wins over the daily one and a new month starts at zero', () => {
  const table = CounterTable.create(64);
  const out = new Int32Array(2);
  const slot = table.slotOf('key:m');
  assert.equal(table.consume(slot, 1, 0, 5, 2, out), ALLOWED);
  assert.equal(table.consume(slot, 2, 0, 5, 2, out), ALLOWED);
  assert.equal(table.consume(slot, 3, 0, 5, 2, out), MONTHLY_EXCEEDED);
  assert.deepEqual([...out], [0, 2]);
  assert.equal(table.consume(slot, 31, 1, 5, 2, out), ALLOWED);
  assert.deepEqual([...out], [1, 1]);
});

test('a thread whose clock is behind counts in the newer stored window', () => {
  const table = CounterTable.create(64);
  const out = new Int32Array(2);
  const slot = table.slotOf('key:skew');
  table.consume(slot, 11, 1, 10, 100, out);
  table.consume(slot, 10, 1, 10, 100, out);
  assert.deepEqual([...out], [2, 2]);
  table.peek(slot, 11, 1, out);
  assert.deepEqual([...out], [2, 2]);
  table.peek(slot, 12, 1, out);
  assert.deepEqual([...out], [0, 2]);
});

test('keys longer than 64 bytes are stored as their SHA-256 and stay distinct', () => {
  const long1 = `key:${'x'.repeat(100)}1`;
  const long2 = `key:${'x'.repeat(100)}2`;
  assert.equal(storedKey(long1).length, 44);
  assert.notDeepEqual(storedKey(long1), storedKey(long2));
  const table = CounterTable.create(64);
  assert.notEqual(table.slotOf(long1), table.slotOf(long2));
  const stored = new TextDecoder().decode(storedKey(long1));
  const out = new Int32Array(2);
  table.consume(table.slotOf(long1), 1, 1, 10, 10, out);
  // A persisted (stored) key finds the same slot in another table instance.
  const again = CounterTable.from(table.buffer);
  assert.equal(again.slotOf(stored), table.slotOf(long1));
});

test('a second view of the buffer sees the same buckets', () => {
  const table = CounterTable.create(64);
  const out = new Int32Array(2);
  table.consume(table.slotOf('key:shared'), 5, 1, 10, 10, out);
  const view = CounterTable.from(table.buffer);
  view.consume(view.slotOf('key:shared'), 5, 1, 10, 10, out);
  assert.deepEqual([...out], [2, 2]);
  assert.deepEqual(view.entries(), [{ key: 'key:shared', dayId: 5, dayCount: 2, monthId: 1, monthCount: 2 }]);
});

test('refuses new buckets past 7/8 load but keeps counting existing ones', () => {
  const table = CounterTable.create(16);
  const out = new Int32Array(2);
  for (let i = 0; i < table.maxBuckets; i++) assert.notEqual(table.slotOf(`key:${i}`), TABLE_FULL);
  assert.equal(table.slotOf('key:one-too-many'), TABLE_FULL);
  assert.equal(table.refused, 1);
  assert.equal(table.consume(table.slotOf('key:3'), 1, 1, 5, 5, out), ALLOWED);
});

test('refuses a buffer that is not a counter table, saying what it found', () => {
  assert.throws(() => CounterTable.from(new SharedArrayBuffer(1024)), /expected magic 0x51544231, found 0x0/);
  assert.throws(() => CounterTable.create(3), /expected a capacity between 8/);
});

test('set and entries round-trip every bucket', () => {
  const table = CounterTable.create(256);
  const entries = Array.from({ length: 100 }, (_, i) => ({ key: `key:${i}`, dayId: 20000 + (i % 3), dayCount: i, monthId: 670, monthCount: 10 * i }));
  for (const entry of entries) assert.ok(table.set(entry));
  const back = table.entries().sort((a, b) => Number(a.key.slice(4)) - Number(b.key.slice(4)));
  assert.deepEqual(back, entries);
  assert.equal(table.size, 100);
});

async function hammer(threads: number, job: Omit<Parameters<typeof startWorkers>[1], 'start'>): Promise<Record<string, number>> {
  const start = new Int32Array(new SharedArrayBuffer(4));
  const workers = startWorkers(threads, { ...job, start });
  await Promise.all(workers.map((w) => new Promise((resolve) => w.worker.once('online', resolve))));
  Atomics.store(start, 0, 1);
  Atomics.notify(start, 0);
  const results = await Promise.all(workers.map((w) => w.done));
  const total: Record<string, number> = {};
  for (const result of results) for (const [key, n] of Object.entries(result)) total[key] = (total[key] ?? 0) + n;
  return total;
}

function startWorkers(
  threads: number,
  job: { buffer: SharedArrayBuffer; keys: string[]; attempts: number; dayId: number; monthId: number; dailyLimit: number; monthlyLimit: number; start: Int32Array },
): Array<{ worker: Worker; done: Promise<Record<string, number>> }> {
  return Array.from({ length: threads }, () => {
    const worker = new Worker(HAMMER, { workerData: job });
    const done = new Promise<Record<string, number>>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    return { worker, done };
  });
}

test('8 threads hammering one bucket allow exactly the limit', async () => {
  const table = CounterTable.create(64);
  const total = await hammer(8, { buffer: table.buffer, keys: ['key:hot'], attempts: 5000, dayId: 1, monthId: 1, dailyLimit: 25_000, monthlyLimit: 1_000_000 });
  assert.equal(total['key:hot'], 25_000);
  assert.deepEqual(table.entries(), [{ key: 'key:hot', dayId: 1, dayCount: 25_000, monthId: 1, monthCount: 25_000 }]);
});

test('8 threads claiming 500 fresh buckets at once create each exactly once and count exactly', async () => {
  const table = CounterTable.create(1024);
  const keys = Array.from({ length: 500 }, (_, i) => `key:fresh-${i}`);
  // Each thread makes 3 passes over all keys: 24 attempts per key against a daily limit of 20.
  const total = await hammer(8, { buffer: table.buffer, keys, attempts: 1500, dayId: 7, monthId: 2, dailyLimit: 20, monthlyLimit: 1000 });
  for (const key of keys) assert.equal(total[key], 20, key);
  const entries = table.entries();
  assert.equal(entries.length, 500);
  assert.equal(new Set(entries.map((e) => e.key)).size, 500);
  for (const entry of entries) assert.equal(entry.dayCount, 20);
});

test('threads hitting daily and monthly limits together never overshoot either', async () => {
  const table = CounterTable.create(64);
  const out = new Int32Array(2);
  // 990 of the month already used on a previous day: the monthly limit (1000) binds first.
  table.set({ key: 'key:both', dayId: 40, dayCount: 0, monthId: 3, monthCount: 990 });
  const total = await hammer(6, { buffer: table.buffer, keys: ['key:both'], attempts: 100, dayId: 41, monthId: 3, dailyLimit: 50, monthlyLimit: 1000 });
  assert.equal(total['key:both'], 10);
  table.peek(table.slotOf('key:both'), 41, 3, out);
  assert.deepEqual([...out], [10, 1000]);
});
