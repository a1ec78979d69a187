import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  dayIdFromLabel,
  dayIdOf,
  dayLabel,
  monthIdFromLabel,
  monthIdOf,
  monthLabel,
  monthLengthSeconds,
  secondsUntil,
  windowsAt,
} from '../../../runtime/access/quota/windows.js';

const at = (iso: string): number => Date.parse(iso);

test('a day runs from 00:00 UTC to the next 00:00 UTC', () => {
  assert.equal(dayIdOf(at('2026-11-22T23:59:59.999Z')), dayIdOf(at('2026-11-22T00:00:00.000Z')));
  assert.equal(dayIdOf(at('2026-11-23T00:00:00.000Z')), dayIdOf(at('2026-11-22T00:00:00.000Z')) + 1);
  const w = windowsAt(at('2026-11-22T21:00:00Z'));
  assert.equal(new Date(w.dayResetMs).toISOString(), '2026-11-23T00:00:00.000Z');
  assert.equal(dayLabel(w.dayId), '2026-11-22');
});

test('a month runs from the 1st at 00:00 UTC, whatever its length', () => {
  const cases: Array<[string, string, number]> = [
    ['2026-02-14T12:00:00Z', '2026-03-01T00:00:00.000Z', 28],
    ['2028-02-29T23:59:59Z', '2028-03-01T00:00:00.000Z', 29], // leap year
    ['2100-02-10T00:00:00Z', '2100-03-01T00:00:00.000Z', 28], // century, not a leap year
    ['2000-02-10T00:00:00Z', '2000-03-01T00:00:00.000Z', 29], // 400-year leap year
    ['2026-04-30T23:59:59.999Z', '2026-05-01T00:00:00.000Z', 30],
    ['2026-12-31T23:59:59Z', '2027-01-01T00:00:00.000Z', 31], // year rollover
  ];
  for (const [now, reset, days] of cases) {
    const w = windowsAt(at(now));
    assert.equal(new Date(w.monthResetMs).toISOString(), reset, now);
    assert.equal(monthLengthSeconds(w.monthId), days * 86400, now);
    assert.equal(monthIdOf(w.monthResetMs), w.monthId + 1, now);
  }
});

test('the last millisecond of a month and the first of the next are different windows', () => {
  const end = at('2026-01-31T23:59:59.999Z');
  assert.equal(monthIdOf(end) + 1, monthIdOf(end + 1));
  assert.equal(dayIdOf(end) + 1, dayIdOf(end + 1));
  assert.equal(monthLabel(monthIdOf(end + 1)), '2026-02');
});

test('labels round-trip and refuse what is not a date', () => {
  for (const label of ['1970-01-01', '2026-11-22', '2028-02-29']) assert.equal(dayLabel(dayIdFromLabel(label)), label);
  for (const label of ['1970-01', '2026-11', '2099-12']) assert.equal(monthLabel(monthIdFromLabel(label)), label);
  for (const bad of ['2026-02-30', '2026-13-01', '26-11-22', '', 'x']) assert.ok(Number.isNaN(dayIdFromLabel(bad)), bad);
  for (const bad of ['2026-13', '2026-1', 'x']) assert.ok(Number.isNaN(monthIdFromLabel(bad)), bad);
});

test('seconds until a reset round up and are at least 1', () => {
  assert.equal(secondsUntil(0, 1), 1);
  assert.equal(secondsUntil(0, 1000), 1);
  assert.equal(secondsUntil(0, 1001), 2);
  assert.equal(secondsUntil(5000, 5000), 1);
});
