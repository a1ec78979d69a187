// GET /v1/search/fuzzy (Professional+, error shape A): pg_trgm similarity over English and
// native names (runtime/engine/search/fuzzy.ts), full field set plus match_score, matched_alias.
import { serializeObject } from '../../render/projection.js';
import { ENTITY_OF, type SearchEntity } from '../../engine/search/context.js';
import { filterRows } from '../../engine/search/row-filter.js';
import { fuzzySearch } from '../../engine/search/fuzzy.js';
import { roundScore } from '../../text/trigram.js';
import { rendered, type Operation, type Reply, type RequestContext } from '../types.js';
import { COUNTRY_SPEC, countryFilter, limitParam, limitSpec, Q_SPEC, searchText, searchType, THRESHOLD_SPEC, thresholdParam, TYPE_SPEC } from './params.js';
import { countryNameOfRow, countryNameTextOfRow, decodeRow, jsonArray, searchProjection, stateNameOfCityRow, stateNameTextOfCityRow, tierFor } from '../../render/search.js';
import { FieldCopy, rowJsonWriter, writeRowsArray } from '../../render/row-json.js';

/** Per-row values of ADDITIONS[entity], reused (requests run one at a time per thread). */
const extras: unknown[] = [null, null, null, null];
const NATIVE = new FieldCopy('native');

export const FUZZY_LIMIT_MAX = 50;
export const FUZZY_LIMIT_DEFAULT = 10;
/** Parent names as nearby carries them (decisions.md: the public service's fuzzy results have them), then the additions. */
const ADDITIONS: Readonly<Record<SearchEntity, readonly string[]>> = {
  cities: ['country_name', 'state_name', 'match_score', 'matched_alias'],
  states: ['country_name', 'match_score', 'matched_alias'],
  countries: ['match_score', 'matched_alias'],
};

function handle(ctx: RequestContext): Reply {
  const q = searchText(ctx);
  const type = searchType(ctx);
  const country = countryFilter(ctx, type);
  const limit = limitParam(ctx, FUZZY_LIMIT_MAX, FUZZY_LIMIT_DEFAULT);
  const threshold = thresholdParam(ctx);
  const entity = ENTITY_OF[type];
  const tier = tierFor(ctx.caller, entity);

  // Rendered on demand: the HTTP layer's response cache answers repeated requests.
  return rendered(() => {
    const hits = fuzzySearch(ctx.engine.search.indexes(entity), { q: q.raw, threshold, rows: filterRows(ctx.store, entity, country, null), limit });
    const additions = ADDITIONS[entity];
    const projection = searchProjection(entity, tier, false, additions);
    const store = ctx.store;
    const rowBytes = store[entity].rowBytes;
    if (rowBytes !== null) {
      // Fields written from the row's bytes, additions from `extras` (no record decoded).
      return writeRowsArray(rowJsonWriter(rowBytes, projection, additions), hits, extras, (values, hit) => {
        let e = 0;
        // Parent names as JSON text, made once per parent.
        if (entity !== 'countries') values[e++] = countryNameTextOfRow(store, entity, hit.row);
        if (entity === 'cities') values[e++] = stateNameTextOfCityRow(store, hit.row);
        values[e++] = roundScore(hit.score);
        values[e] = hit.nativeWins ? NATIVE : null;
      });
    }
    const items = hits.map((hit) => {
      const record = decodeRow(store, entity, hit.row);
      const item = record as unknown as Record<string, unknown>;
      if (entity !== 'countries') item.country_name = countryNameOfRow(store, entity, hit.row);
      if (entity === 'cities') item.state_name = stateNameOfCityRow(store, hit.row);
      item.match_score = roundScore(hit.score);
      item.matched_alias = hit.nativeWins ? record.native : null;
      return serializeObject(projection, item);
    });
    return jsonArray(items);
  });
}

export const fuzzySearchOperation: Operation = {
  name: 'fuzzySearch',
  path: '/v1/search/fuzzy',
  errorShape: 'A',
  params: [Q_SPEC, TYPE_SPEC, COUNTRY_SPEC, limitSpec(FUZZY_LIMIT_MAX, FUZZY_LIMIT_DEFAULT), THRESHOLD_SPEC],
  doc: {
    tag: 'Search',
    summary: 'Typo-tolerant search (trigram similarity)',
    description: "Results carry the entity's fields for your tier plus match_score and matched_alias.",
    response: { schema: 'search-fuzzy' },
    statuses: [400],
  },
  handle,
};
