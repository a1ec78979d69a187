// The change feed over a Store's `changes` section: filtered pages of events in log order, and
// their rendering with values trimmed to the caller's field tier (the same field lists as the
// reference operations: a field the caller could not read there is not shown here either).
import { CHANGE_TYPES, ChangeLog, PLACE_TYPES, type ChangeType, type ChangeValues, type PlaceType } from '../../format/change-log.js';
import { CHANGES_SECTION } from '../../format/sections.js';
import type { Store } from '../../store/types.js';
import type { Caller, Tier } from '../../routes/types.js';
import { CITY_FIELDS, COUNTRY_FIELDS, STATE_FIELDS, TIER_RANK, type EntityFields } from '../fields.js';
import { perStore } from '../per-store.js';
import type { ChangeFilters } from './token.js';

const logs = perStore((store) => (store.hasSection(CHANGES_SECTION) ? ChangeLog.from(store.section(CHANGES_SECTION), CHANGES_SECTION) : ChangeLog.empty()));

export function changeLogOf(store: Store): ChangeLog {
  return logs.get(store);
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

const FIELDS: Record<PlaceType, EntityFields> = { country: COUNTRY_FIELDS, state: STATE_FIELDS, city: CITY_FIELDS };

/** Field names of a place type the caller's tier may read (countries use the country tier). */
const visibleCache = new Map<string, ReadonlySet<string>>();
function visibleFields(placeType: PlaceType, tier: Tier): ReadonlySet<string> {
  const key = `${placeType}|${tier}`;
  let names = visibleCache.get(key);
  if (names === undefined) {
    const rank = TIER_RANK[tier];
    names = new Set(FIELDS[placeType].fields.filter((f) => !f.computed && TIER_RANK[f.tier] <= rank).map((f) => f.name));
    visibleCache.set(key, names);
  }
  return names;
}

function trim(values: ChangeValues | null, visible: ReadonlySet<string>): ChangeValues | null {
  if (values === null) return null;
  const out: ChangeValues = {};
  for (const [name, value] of Object.entries(values)) if (visible.has(name)) out[name] = value;
  return out;
}

export interface ChangeResult {
  change_id: string;
  data_version: string;
  changed_at: string;
  place_id: string;
  place_type: PlaceType;
  change_type: string;
  old_values: ChangeValues | null;
  new_values: ChangeValues | null;
}

/**
 * Event i as served. change_id is the event's position in the log (1-based): the log only grows
 * by appending, so ids stay stable across the versions built after it.
 */
export function renderChange(log: ChangeLog, i: number, caller: Pick<Caller, 'tier' | 'countryTier'>): ChangeResult {
  const placeType = log.placeType(i);
  const visible = visibleFields(placeType, placeType === 'country' ? caller.countryTier : caller.tier);
  const [oldValues, newValues] = log.values(i);
  return {
    change_id: String(i + 1),
    data_version: log.dataVersion(i),
    changed_at: new Date(log.changedAtMs[i]!).toISOString(),
    place_id: String(log.placeIds[i]),
    place_type: placeType,
    change_type: log.changeType(i),
    old_values: trim(oldValues, visible),
    new_values: trim(newValues, visible),
  };
}
