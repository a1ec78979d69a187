// GET /v1/search/fuzzy (Professional+, error shape A): pg_trgm similarity over English and
// native names (runtime/engine/search/fuzzy.ts), full field set plus match_score, matched_alias.
import { serializeObject } from '../../render/projection.js';
import { ENTITY_OF } from '../../engine/search/context.js';
import { filterRows } from '../../engine/search/row-filter.js';
import { fuzzySearch } from '../../engine/search/fuzzy.js';
import { roundScore } from '../../text/trigram.js';
import type { Operation, Reply, RequestContext } from '../types.js';
import { countryFilter, limitParam, searchText, searchType, thresholdParam } from './params.js';
import { decodeRow, jsonArray, searchProjection, tierFor } from '../../render/search.js';
import { cacheKey, searchCache, searchReply } from './shared.js';
import { FieldCopy, rowJsonWriter, sharedJsonBytes } from '../../render/row-json.js';

/** Per-row values of ADDITIONS, reused (requests run one at a time per thread). */
const extras: unknown[] = [null, null];
const NATIVE = new FieldCopy('native');

export const FUZZY_LIMIT_MAX = 50;
export const FUZZY_LIMIT_DEFAULT = 10;
const ADDITIONS = ['match_score', 'matched_alias'];

function handle(ctx: RequestContext): Reply {
  const q = searchText(ctx);
  const type = searchType(ctx);
  const country = countryFilter(ctx, type);
  const limit = limitParam(ctx, FUZZY_LIMIT_MAX, FUZZY_LIMIT_DEFAULT);
  const threshold = thresholdParam(ctx);
  const entity = ENTITY_OF[type];
  const tier = tierFor(ctx.caller, entity);

  const cache = searchCache(ctx.store, 'fuzzySearch');
  const key = cacheKey([q.raw, type, country, limit, threshold, tier]);
  const cached = cache.get(key);
  if (cached !== undefined) return searchReply(cached, true);

  const hits = fuzzySearch(ctx.engine.search.indexes(entity), { q: q.raw, threshold, rows: filterRows(ctx.store, entity, country, null), limit });
  const projection = searchProjection(entity, tier, false, ADDITIONS);
  const rowBytes = ctx.store[entity].rowBytes;
  if (rowBytes !== null) {
    // Fields written from the row's bytes, additions from `extras` (no record decoded).
    const writer = rowJsonWriter(rowBytes, projection, ADDITIONS);
    const out = sharedJsonBytes.reset();
    out.byte(0x5b);
    for (let i = 0; i < hits.length; i++) {
      const hit = hits[i]!;
      extras[0] = roundScore(hit.score);
      extras[1] = hit.nativeWins ? NATIVE : null;
      if (i > 0) out.byte(0x2c);
      writer.write(out, hit.row, extras);
    }
    out.byte(0x5d);
    const bytes = out.take();
    cache.set(key, bytes);
    return searchReply(bytes, false);
  }
  const items = hits.map((hit) => {
    const record = decodeRow(ctx.store, entity, hit.row);
    const item = record as unknown as Record<string, unknown>;
    item.match_score = roundScore(hit.score);
    item.matched_alias = hit.nativeWins ? record.native : null;
    return serializeObject(projection, item);
  });
  const body = jsonArray(items);
  cache.set(key, body);
  return searchReply(body, false);
}

export const fuzzySearchOperation: Operation = {
  name: 'fuzzySearch',
  path: '/v1/search/fuzzy',
  errorShape: 'A',
  handle,
};
