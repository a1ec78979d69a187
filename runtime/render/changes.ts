// One change-feed event as served: values trimmed to the caller's field tier, with the same field
// lists as the reference operations (a field the caller could not read there is not shown here).
import type { Caller, Tier } from '../contract/index.js';
import type { ChangeLog, ChangeValues, PlaceType } from '../format/change-log.js';
import { CITY_FIELDS, COUNTRY_FIELDS, STATE_FIELDS } from './fields.js';
import { TIER_RANK, type EntityFields } from './projection.js';

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
