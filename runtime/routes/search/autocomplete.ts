// GET /v1/search/autocomplete (Supporter+, error shape B): type-ahead over names, natives and
// translations, ranked by the spec's five rules (runtime/engine/search/ranking.ts).
import { serializeObject } from '../../render/projection.js';
import { autocompleteSearch } from '../../engine/search/autocomplete.js';
import { ENTITY_OF, type SearchEntity } from '../../engine/search/context.js';
import { filterRows } from '../../engine/search/row-filter.js';
import { roundScore } from '../../text/trigram.js';
import { includeTranslationsParam, includeTranslationsSpec, localeParam, localeSpec } from '../params.js';
import { rendered, type Operation, type Reply, type RequestContext } from '../types.js';
import { COUNTRY_SPEC, countryFilter, limitParam, limitSpec, Q_SPEC, searchText, searchType, STATE_SPEC, stateFilter, TYPE_SPEC } from './params.js';
import { cityLabelParentsTextOfRow, decodeRow, jsonArray, LOCALIZED_NAMES, localizedNameOf, localizedNameOfRow, searchLabel, searchProjection, tierFor, withLocalizedNames } from '../../render/search.js';
import { FieldCopy, JoinedText, jsonTextOf, rowJsonWriter, writeRowsArray } from '../../render/row-json.js';

export const AUTOCOMPLETE_LIMIT_MAX = 50;
export const AUTOCOMPLETE_LIMIT_DEFAULT = 10;

/** Fields every result carries whatever the tier (spec): cities their codes, states their country's. */
const FORCED: Readonly<Record<SearchEntity, readonly string[]>> = {
  cities: ['country_code', 'state_code'],
  states: ['country_code'],
  countries: [],
};
const ADDITIONS = ['type', 'label', 'match_score', 'matched_field'];
/** The extra names of each entity's results, without and with a locale (made once, not per request). */
const EXTRA: Readonly<Record<SearchEntity, readonly string[]>> = {
  cities: [...FORCED.cities, ...ADDITIONS],
  states: [...FORCED.states, ...ADDITIONS],
  countries: [...FORCED.countries, ...ADDITIONS],
};
const EXTRA_LOCALIZED = withLocalizedNames(EXTRA);

/** ADDITIONS, then localized_name and matched_locale: the computed names of a result with a locale. */
const ADDITIONS_LOCALIZED = [...ADDITIONS, ...LOCALIZED_NAMES];
/** Per-row values of ADDITIONS and of ADDITIONS_LOCALIZED, reused (requests run one at a time per thread). */
const extras: unknown[] = [null, null, null, null];
const localizedExtras: unknown[] = [null, null, null, null, null, null];
/** A city's label: its name, its state's, its country's (reused per row). */
const cityLabel = new JoinedText('name');
/** A country's label: its name. */
const NAME = new FieldCopy('name');

function handle(ctx: RequestContext): Reply {
  const q = searchText(ctx);
  const type = searchType(ctx);
  const country = countryFilter(ctx, type);
  const state = stateFilter(ctx, type, country);
  const limit = limitParam(ctx, AUTOCOMPLETE_LIMIT_MAX, AUTOCOMPLETE_LIMIT_DEFAULT);
  const locale = localeParam(ctx);
  const includeTranslations = includeTranslationsParam(ctx);
  const entity = ENTITY_OF[type];
  const tier = tierFor(ctx.caller, entity);

  // Rendered on demand: the HTTP layer's response cache answers repeated requests.
  return rendered(() => render(ctx, { q, entity, type, country, state, limit, locale, includeTranslations, tier }));
}

interface AutocompleteInputs {
  q: { raw: string; key: string };
  entity: SearchEntity;
  type: string;
  country: string | null;
  state: string | null;
  limit: number;
  locale: string | null;
  includeTranslations: boolean;
  tier: ReturnType<typeof tierFor>;
}

function render(ctx: RequestContext, { q, entity, type, country, state, limit, locale, includeTranslations, tier }: AutocompleteInputs): string | Uint8Array {
  const hits = autocompleteSearch(ctx.engine.search.indexes(entity), { q: q.raw, key: q.key, rows: filterRows(ctx.store, entity, country, state), limit });
  const projection = searchProjection(entity, tier, includeTranslations, (locale === null ? EXTRA : EXTRA_LOCALIZED)[entity]);
  const store = ctx.store;
  const rowBytes = store[entity].rowBytes;
  if (rowBytes !== null) {
    // Fields written from the row's bytes, additions from `extras` (no record decoded).
    const typeText = jsonTextOf(type);
    if (locale === null) {
      return writeRowsArray(rowJsonWriter(rowBytes, projection, ADDITIONS), hits, extras, (values, hit) => {
        values[0] = typeText;
        if (entity === 'cities') {
          // The city's own name copied from its row, then its parents' names as JSON text made once per state.
          cityLabel.parts[0] = cityLabelParentsTextOfRow(store, hit.row);
          cityLabel.count = 1;
          values[1] = cityLabel;
        } else values[1] = entity === 'states' ? searchLabel(store, entity, hit.row, store[entity].nameAt(hit.row)) : NAME;
        values[2] = roundScore(hit.score);
        values[3] = jsonTextOf(hit.field);
      });
    }
    // With a locale, the name, native and translations are read from the row for localized_name,
    // which also opens the label. Decoding each record instead cost ~10 µs per result.
    return writeRowsArray(rowJsonWriter(rowBytes, projection, ADDITIONS_LOCALIZED), hits, localizedExtras, (values, hit) => {
      const localized = localizedNameOfRow(rowBytes, hit.row, locale);
      values[0] = typeText;
      values[1] = searchLabel(store, entity, hit.row, localized.localized_name);
      values[2] = roundScore(hit.score);
      values[3] = jsonTextOf(hit.field);
      values[4] = localized.localized_name;
      values[5] = localized.matched_locale;
    });
  }
  const items = hits.map((hit) => {
    const record = decodeRow(store, entity, hit.row);
    const localized = locale === null ? null : localizedNameOf(locale, record);
    const label = searchLabel(store, entity, hit.row, localized?.localized_name ?? record.name);
    // The decoded record is ours: `type` becomes the result type (spec), the additions join it.
    const item = record as unknown as Record<string, unknown>;
    item.type = type;
    item.label = label;
    item.match_score = roundScore(hit.score);
    item.matched_field = hit.field;
    if (localized) {
      item.localized_name = localized.localized_name;
      item.matched_locale = localized.matched_locale;
    }
    return serializeObject(projection, item);
  });
  return jsonArray(items);
}

export const autocompleteOperation: Operation = {
  name: 'autocomplete',
  path: '/v1/search/autocomplete',
  errorShape: 'B',
  params: [Q_SPEC, TYPE_SPEC, COUNTRY_SPEC, STATE_SPEC, limitSpec(AUTOCOMPLETE_LIMIT_MAX, AUTOCOMPLETE_LIMIT_DEFAULT), localeSpec(), includeTranslationsSpec()],
  doc: {
    tag: 'Search',
    summary: 'Type-ahead over names, native names and translations',
    description: "Results carry the entity's fields for your tier plus type, label, match_score and matched_field.",
    response: { schema: 'search-autocomplete' },
    statuses: [400],
  },
  handle,
};
