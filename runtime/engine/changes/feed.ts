// The change feed over a Store's `changes` section: filtered pages of events in log order.
// Rendering (values trimmed to the caller's tier) is runtime/render/changes.ts.
import { CHANGE_TYPES, ChangeLog, PLACE_TYPES, type ChangeType, type PlaceType } from '../../format/change-log.js';
import { CHANGES_SECTION } from '../../format/sections.js';
import type { Store } from '../../store/types.js';
import { perStore } from '../per-store.js';

const logs = perStore((store) => (store.hasSection(CHANGES_SECTION) ? ChangeLog.from(store.section(CHANGES_SECTION), CHANGES_SECTION) : ChangeLog.empty()));

export function changeLogOf(store: Store): ChangeLog {
  return logs.get(store);
}

/** Filters in normalised form; null = not given. */
export interface ChangeFilters {
  startMs: number | null;
  placeType: string | null;
  countryCode: string | null;
  changeType: string | null;
}

export function sameChangeFilters(a: ChangeFilters, b: ChangeFilters): boolean {
  return a.startMs === b.startMs && a.placeType === b.placeType && a.countryCode === b.countryCode && a.changeType === b.changeType;
}

export interface ChangePage {
  /** Log indexes of the events on this page. */
  indexes: number[];
  hasMore: boolean;
}

function packCode(code: string): number {
  return (code.charCodeAt(0) << 8) | code.charCodeAt(1);
}

/** Events matching `filters` after log index `afterIndex` (exclusive; -1 = from the start). */
export function changePage(log: ChangeLog, filters: ChangeFilters, afterIndex: number, limit: number): ChangePage {
  const placeType = filters.placeType === null ? -1 : PLACE_TYPES.indexOf(filters.placeType as PlaceType);
  const changeType = filters.changeType === null ? -1 : CHANGE_TYPES.indexOf(filters.changeType as ChangeType);
  const code = filters.countryCode === null ? -1 : packCode(filters.countryCode);
  const start = filters.startMs;
  const indexes: number[] = [];
  for (let i = afterIndex + 1; i < log.count; i++) {
    if (placeType >= 0 && log.placeTypes[i] !== placeType) continue;
    if (changeType >= 0 && log.changeTypes[i] !== changeType) continue;
    if (code >= 0 && log.countryCodes[2 * i] !== code && log.countryCodes[2 * i + 1] !== code) continue;
    if (start !== null && log.changedAtMs[i]! < start) continue;
    if (indexes.length === limit) return { indexes, hasMore: true };
    indexes.push(i);
  }
  return { indexes, hasMore: false };
}

