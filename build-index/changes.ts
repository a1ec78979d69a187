// `geoapi build --previous <snapshot>`: what changed between the previous snapshot's dataset and
// the new one, appended to the previous snapshot's change log (so the feed covers every version
// built in this chain). The previous values come from the previous snapshot's own record sections:
// a snapshot is self-contained, the previous source files may be gone.
// Classification (decisions.md "Data changes"), one event per kind of change of a place:
//   renamed: name · coordinates_changed: latitude, longitude ·
//   place_group_changed: region/subregion of a country, country of a state ·
//   parent_changed: state (and with it the country) of a city · other_fields_changed: the rest.
import { CHANGE_TYPES, ChangeLog, ChangeLogBuilder, type ChangeEvent, type ChangeType, type ChangeValues, type PlaceType } from '../runtime/format/change-log.js';
import type { NormalisedDataset } from '../runtime/format/model.js';
import { CHANGES_SECTION, RELATIONS_SECTION } from '../runtime/format/sections.js';
import { loadSnapshotBytes, openStore } from '../runtime/store/index.js';
import type { EntityTable, Store } from '../runtime/store/types.js';

type Entity = 'countries' | 'states' | 'cities';
const PLACES: readonly [Entity, PlaceType][] = [['countries', 'country'], ['states', 'state'], ['cities', 'city']];

const GROUP_FIELDS: Record<PlaceType, Readonly<Record<string, ChangeType>>> = {
  country: { region: 'place_group_changed', region_id: 'place_group_changed', subregion: 'place_group_changed', subregion_id: 'place_group_changed' },
  state: { country_id: 'place_group_changed', country_code: 'place_group_changed' },
  city: { state_id: 'parent_changed', state_code: 'parent_changed', country_id: 'parent_changed', country_code: 'parent_changed' },
};

/** The kind of change a field belongs to (never called for `id`). */
export function changeTypeOfField(placeType: PlaceType, field: string): ChangeType {
  if (field === 'name') return 'renamed';
  if (field === 'latitude' || field === 'longitude') return 'coordinates_changed';
  return GROUP_FIELDS[placeType][field] ?? 'other_fields_changed';
}

type PlaceRecord = Record<string, unknown> & { id: number };

function countryCodeOf(placeType: PlaceType, record: PlaceRecord): string | null {
  const code = placeType === 'country' ? record['iso2'] : record['country_code'];
  return typeof code === 'string' ? code.toUpperCase() : null;
}

/** The events of one place (changed fields grouped by kind, kinds in CHANGE_TYPES order). */
function diffRecord(placeType: PlaceType, before: PlaceRecord, after: PlaceRecord, stamp: { dataVersion: string; changedAtMs: number }): ChangeEvent[] {
  const groups = new Map<ChangeType, { oldValues: ChangeValues; newValues: ChangeValues }>();
  const fields = new Set([...Object.keys(after), ...Object.keys(before)]);
  for (const field of fields) {
    if (field === 'id') continue;
    const a = before[field] ?? null;
    const b = after[field] ?? null;
    if (a === b) continue;
    const type = changeTypeOfField(placeType, field);
    let group = groups.get(type);
    if (group === undefined) groups.set(type, (group = { oldValues: {}, newValues: {} }));
    group.oldValues[field] = a;
    group.newValues[field] = b;
  }
  const events: ChangeEvent[] = [];
  for (const changeType of CHANGE_TYPES) {
    const group = groups.get(changeType);
    if (group === undefined) continue;
    events.push({
      ...stamp, placeType, placeId: after.id, changeType,
      countryBefore: countryCodeOf(placeType, before), countryAfter: countryCodeOf(placeType, after),
      oldValues: group.oldValues, newValues: group.newValues,
    });
  }
  return events;
}

/**
 * Every change from `previous` to `dataset`, ordered by place type (country, state, city), then
 * place id, then kind of change.
 */
export function diffDatasets(previous: Store, dataset: NormalisedDataset, stamp: { dataVersion: string; changedAtMs: number }): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  for (const [entity, placeType] of PLACES) {
    const table = previous[entity] as unknown as EntityTable<PlaceRecord>;
    const records = dataset[entity] as unknown as PlaceRecord[];
    const current = new Set<number>();
    const perPlace: { id: number; events: ChangeEvent[] }[] = [];
    for (const after of records) {
      current.add(after.id);
      const row = table.rowById(after.id);
      if (row < 0) {
        const code = countryCodeOf(placeType, after);
        perPlace.push({ id: after.id, events: [{ ...stamp, placeType, placeId: after.id, changeType: 'added', countryBefore: code, countryAfter: code, oldValues: null, newValues: { ...after } }] });
        continue;
      }
      const changed = diffRecord(placeType, table.record(row), after, stamp);
      if (changed.length > 0) perPlace.push({ id: after.id, events: changed });
    }
    for (let row = 0; row < table.count; row++) {
      const id = table.idAt(row);
      if (current.has(id)) continue;
      const before = table.record(row);
      const code = countryCodeOf(placeType, before);
      perPlace.push({ id, events: [{ ...stamp, placeType, placeId: id, changeType: 'removed', countryBefore: code, countryAfter: code, oldValues: { ...before }, newValues: null }] });
    }
    perPlace.sort((x, y) => x.id - y.id);
    for (const place of perPlace) events.push(...place.events);
  }
  return events;
}

/** Sections a diff needs from the previous snapshot (records, ids, relations, changes). */
function neededForDiff(section: string): boolean {
  return section.startsWith('records.') || section.startsWith('ids.') || section === RELATIONS_SECTION || section === CHANGES_SECTION;
}

export interface ChangeSectionResult {
  payload: Uint8Array;
  /** Events added by this build. */
  added: number;
  /** Events in the whole log. */
  total: number;
}

/**
 * The `changes` payload of a new snapshot: the previous snapshot's log (if any) plus the events
 * between it and `dataset`. Without a previous snapshot: an empty log. Rebuilding the same data
 * (same dataVersion) adds nothing.
 */
export function buildChangeSection(previousDir: string | undefined, dataset: NormalisedDataset, stamp: { dataVersion: string; changedAtMs: number }): ChangeSectionResult {
  const builder = new ChangeLogBuilder();
  if (previousDir === undefined) return { payload: builder.finish(), added: 0, total: 0 };
  const bytes = loadSnapshotBytes(previousDir, neededForDiff);
  const previous = openStore(bytes);
  const history = previous.hasSection(CHANGES_SECTION) ? ChangeLog.from(previous.section(CHANGES_SECTION), `${previousDir}: ${CHANGES_SECTION}`) : ChangeLog.empty();
  for (let i = 0; i < history.count; i++) builder.add(history.event(i));
  const carried = builder.count;
  if (previous.manifest.dataVersion !== stamp.dataVersion) {
    for (const event of diffDatasets(previous, dataset, stamp)) builder.add(event);
  }
  return { payload: builder.finish(), added: builder.count - carried, total: builder.count };
}
