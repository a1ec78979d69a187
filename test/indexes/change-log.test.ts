// The `changes` section layout: builder → finish() → ChangeLog.from() round trip, and clear
// errors for damaged payloads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChangeLog, ChangeLogBuilder, type ChangeEvent } from '../../runtime/format/change-log.js';
import { SnapshotFormatError } from '../../runtime/format/section.js';

const events: ChangeEvent[] = [
  { dataVersion: 'aaaaaaaaaaaa', changedAtMs: Date.parse('2026-01-01T00:00:00Z'), placeType: 'country', placeId: 165, changeType: 'place_group_changed', countryBefore: 'NO', countryAfter: 'NO', oldValues: { subregion_id: 18 }, newValues: { subregion_id: 17 } },
  { dataVersion: 'aaaaaaaaaaaa', changedAtMs: Date.parse('2026-01-01T00:00:00Z'), placeType: 'state', placeId: 3626, changeType: 'place_group_changed', countryBefore: 'BS', countryAfter: 'US', oldValues: { country_code: 'BS' }, newValues: { country_code: 'US' } },
  { dataVersion: 'bbbbbbbbbbbb', changedAtMs: Date.parse('2026-02-01T00:00:00Z'), placeType: 'city', placeId: 9999001, changeType: 'added', countryBefore: 'GB', countryAfter: 'GB', oldValues: null, newValues: { id: 9999001, name: 'Nöwtown ロ', population: null } },
  { dataVersion: 'bbbbbbbbbbbb', changedAtMs: Date.parse('2026-02-01T00:00:00Z'), placeType: 'city', placeId: 79608, changeType: 'removed', countryBefore: null, countryAfter: null, oldValues: { id: 79608 }, newValues: null },
];

test('a change log reads back every event it was built with', () => {
  const builder = new ChangeLogBuilder();
  for (const event of events) builder.add(event);
  const bytes = builder.finish();
  const log = ChangeLog.from(bytes.buffer);
  assert.equal(log.count, events.length);
  assert.deepEqual(log.versions, ['aaaaaaaaaaaa', 'bbbbbbbbbbbb']);
  assert.deepEqual(events.map((_, i) => log.event(i)), events);
});

test('an empty change log has no events and no versions', () => {
  const log = ChangeLog.from(new ChangeLogBuilder().finish().buffer);
  assert.equal(log.count, 0);
  assert.deepEqual(log.versions, []);
});

test('a truncated or foreign payload is refused with expected vs found', () => {
  const bytes = new ChangeLogBuilder().add(events[0]!).finish();
  assert.throws(() => ChangeLog.from(bytes.slice(0, 40).buffer, 'changes'), SnapshotFormatError);
  const wrongVersion = bytes.slice();
  // meta[0] is the first array after the pack's head and entries (10 arrays → offset 256).
  const metaOffset = (16 + 24 * 10 + 7) & ~7;
  new DataView(wrongVersion.buffer).setUint32(metaOffset, 99, true);
  assert.throws(() => ChangeLog.from(wrongVersion.buffer, 'changes'), /expected change log version 1, found 99/);
});
