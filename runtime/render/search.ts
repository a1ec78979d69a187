// Turning ranked search rows into response items: the entity's standard fields for the caller's
// tier (./fields.ts), then the search additions. Only the returned rows are decoded; parent names
// come from nameAt() without decoding the parents.
import type { Caller, Tier } from '../contract/index.js';
import { localizeName, type LocalizedName } from '../engine/localize.js';
import { localizeStoredTranslations } from '../engine/localize-stored.js';
import type { SearchEntity } from '../engine/search/context.js';
import type { CityRecord, CountryRecord, StateRecord } from '../format/model.js';
import { rowValuesOf } from '../store/row-values.js';
import type { EntityTable, FieldLayout, RowBytes, Store } from '../store/types.js';
import { JsonText } from './row-json.js';
import { CITY_FIELDS, COUNTRY_FIELDS, STATE_FIELDS } from './fields.js';
import { projectionFor, type EntityFields, type Projection } from './projection.js';

export type SearchRecord = CityRecord | StateRecord | CountryRecord;

const FIELD_SETS: Readonly<Record<SearchEntity, EntityFields>> = { cities: CITY_FIELDS, states: STATE_FIELDS, countries: COUNTRY_FIELDS };

export const LOCALIZED_NAMES = ['localized_name', 'matched_locale'] as const;

/** Extra names per entity with LOCALIZED_NAMES after them: made once per route (searchProjection caches by the array). */
export function withLocalizedNames(extra: Readonly<Record<SearchEntity, readonly string[]>>): Readonly<Record<SearchEntity, readonly string[]>> {
  return {
    cities: [...extra.cities, ...LOCALIZED_NAMES],
    states: [...extra.states, ...LOCALIZED_NAMES],
    countries: [...extra.countries, ...LOCALIZED_NAMES],
  };
}

/** The tier that governs an entity's fields: countries have their own two-tier scheme. */
export function tierFor(caller: Caller, entity: SearchEntity): Tier {
  return entity === 'countries' ? caller.countryTier : caller.tier;
}

const projections = new Map<string, Projection>();
/** extra.join(',') per extra list: routes pass the same few arrays, so each request skips the join. */
const joinedExtras = new WeakMap<readonly string[], string>();

/**
 * The standard fields of `entity` at `tier`, then `extra` names (search additions, forced
 * fields) in the given order; a name already among the standard fields keeps its place.
 */
export function searchProjection(entity: SearchEntity, tier: Tier, includeTranslations: boolean, extra: readonly string[]): Projection {
  let joined = joinedExtras.get(extra);
  if (joined === undefined) joinedExtras.set(extra, (joined = extra.join(',')));
  const key = `${entity}|${tier}|${includeTranslations ? 1 : 0}|${joined}`;
  let projection = projections.get(key);
  if (!projection) {
    projection = projectionFor(FIELD_SETS[entity], tier, { includeTranslations, extra });
    projections.set(key, projection);
  }
  return projection;
}

export function decodeRow(store: Store, entity: SearchEntity, row: number): SearchRecord {
  return store[entity].record(row);
}

export function localizedNameOf(locale: string, record: SearchRecord): LocalizedName {
  return localizeName(locale, record.name, record.native, record.translations);
}

/**
 * localizeName of a row read from its row bytes (name, native and translations; no record
 * decoded): what localizedNameOf gives for the decoded record.
 */
export function localizedNameOfRow(rowBytes: RowBytes, row: number, locale: string): LocalizedName {
  const values = rowValuesOf(rowBytes);
  let fields = nameFields.get(rowBytes);
  if (fields === undefined) nameFields.set(rowBytes, (fields = [values.field('name')!, values.field('native')!, values.field('translations')!]));
  const name = values.value(row, fields[0]) as string;
  const native = (): string | null => values.value(row, fields[1]) as string | null;
  const translationsAt = values.stringStart(row, fields[2]);
  if (translationsAt >= 0) {
    // Read in place (engine/localize-stored.ts), unless the stored text is not of the shape it reads.
    const chosen = localizeStoredTranslations(locale.toLowerCase(), rowBytes.bytes, translationsAt, values.stringLength(translationsAt));
    if (chosen === undefined) return localizeName(locale, name, native(), values.value(row, fields[2]) as string);
    if (chosen !== null) return chosen;
  }
  return localizeName(locale, name, native(), null);
}

/** localizedNameOfRow's fields of a table (name, native, translations), looked up once per table, not per row. */
const nameFields = new WeakMap<RowBytes, readonly [FieldLayout, FieldLayout, FieldLayout]>();

/**
 * An autocomplete result's label after its first part (its name, or localized_name with a
 * locale): a city's state and country, a state's country, each when present, ", "-joined.
 */
export function searchLabel(store: Store, entity: SearchEntity, row: number, first: string): string {
  if (entity === 'cities') return [first, stateNameOfCityRow(store, row), countryNameOfRow(store, entity, row)].filter((part): part is string => !!part).join(', ');
  if (entity === 'states') {
    const countryName = countryNameOfRow(store, entity, row);
    if (countryName) return `${first}, ${countryName}`;
  }
  return first;
}

/** Adds localized_name and matched_locale to a result item. */
export function addLocalizedName(item: Record<string, unknown>, locale: string, record: SearchRecord): void {
  const localized = localizedNameOf(locale, record);
  item.localized_name = localized.localized_name;
  item.matched_locale = localized.matched_locale;
}

/** Names of a state's or city's parents (empty string when absent), without decoding them. */
export function countryNameOfRow(store: Store, entity: SearchEntity, row: number): string | null {
  const countryRow = countryRowOf(store, entity, row);
  return countryRow >= 0 ? store.countries.nameAt(countryRow) : null;
}

/** The country row of an entity's row (-1: none). */
function countryRowOf(store: Store, entity: SearchEntity, row: number): number {
  return entity === 'cities' ? store.relations.cityCountryRow[row]! : entity === 'states' ? store.relations.stateCountryRow[row]! : row;
}

export function stateNameOfCityRow(store: Store, row: number): string | null {
  const stateRow = store.relations.cityStateRow[row]!;
  return stateRow >= 0 ? store.states.nameAt(stateRow) : null;
}

// Parent names as JSON text, made once per table and row (keyed by the table: a swapped-out
// snapshot's entries go with it). Countries and states are few; every search result names them.
const nameTexts = new WeakMap<object, (JsonText | undefined)[]>();

/** The texts kept in `cache` for `table`'s rows (made empty on first use). */
function rowTextsOf(cache: WeakMap<object, (JsonText | undefined)[]>, table: EntityTable<unknown>): (JsonText | undefined)[] {
  let texts = cache.get(table);
  if (texts === undefined) cache.set(table, (texts = new Array<JsonText | undefined>(table.count)));
  return texts;
}

function nameTextAt(table: EntityTable<unknown>, row: number): JsonText {
  const texts = rowTextsOf(nameTexts, table);
  let text = texts[row];
  if (text === undefined) texts[row] = text = new JsonText(table.nameAt(row));
  return text;
}

/** countryNameOfRow as JSON text (for the row writer), or null. */
export function countryNameTextOfRow(store: Store, entity: SearchEntity, row: number): JsonText | null {
  const countryRow = countryRowOf(store, entity, row);
  return countryRow >= 0 ? nameTextAt(store.countries, countryRow) : null;
}

/** stateNameOfCityRow as JSON text (for the row writer), or null. */
export function stateNameTextOfCityRow(store: Store, row: number): JsonText | null {
  const stateRow = store.relations.cityStateRow[row]!;
  return stateRow >= 0 ? nameTextAt(store.states, stateRow) : null;
}

// A city's label after its own name, ", "-joined as JSON text once per state row: one lookup and
// one copy per result instead of two (autocomplete writes ~10 labels per answer).
const labelParentTexts = new WeakMap<object, (JsonText | undefined)[]>();

/**
 * The parents part of a city's label, [state name, country name].filter(Boolean).join(', '), as
 * JSON text (for a JoinedText after the city's name), or null when the city has neither.
 */
export function cityLabelParentsTextOfRow(store: Store, row: number): JsonText | null {
  const stateRow = store.relations.cityStateRow[row]!;
  const countryRow = store.relations.cityCountryRow[row]!;
  if (stateRow < 0) return countryRow >= 0 ? nameTextAt(store.countries, countryRow) : null;
  // A city filed under another country's state is joined on the spot; every other is kept per state.
  if (store.relations.stateCountryRow[stateRow] !== countryRow) return labelParentsText(store, stateRow, countryRow);
  const texts = rowTextsOf(labelParentTexts, store.states);
  let text = texts[stateRow];
  if (text === undefined) texts[stateRow] = text = labelParentsText(store, stateRow, countryRow);
  return text;
}

function labelParentsText(store: Store, stateRow: number, countryRow: number): JsonText {
  return new JsonText([store.states.nameAt(stateRow), countryRow >= 0 ? store.countries.nameAt(countryRow) : null].filter(Boolean).join(', '));
}

/** JSON array text of already built items. */
export function jsonArray(parts: readonly string[]): string {
  return parts.length === 0 ? '[]' : `[${parts.join(',')}]`;
}
