// Reply helpers shared by the reference operations: cache headers, JSON replies, 404s, and the
// list pipeline (filter → sort → project → serialise, or the memoized default body).
import type { EntityFields, Projection } from '../../render/projection.js';
import { projectionFor, serializeList } from '../../render/projection.js';
import { localizeName } from '../../engine/localize.js';
import type { NamedEntity } from '../../engine/name-keys.js';
import { sortObjects } from '../../engine/sort.js';
import type { ListParams } from '../params.js';
import { ApiError, type Tier } from '../../contract/index.js';
import type { RequestContext, Reply } from '../types.js';
import { memoizedReply } from './body-memo.js';
import { rowsJson } from '../../render/row-json.js';
import type { RowBytes } from '../../store/types.js';

/** Spec durations table; every keyed answer is per plan, hence `private`. */
export const CACHE_DAY = 'private, max-age=86400';
export const CACHE_HOUR = 'private, max-age=3600';
export const NO_STORE = 'no-store';
/** Data-version answers change with each deployed snapshot. */
export const CACHE_SHORT = 'private, max-age=60';

const cacheHeaders = new Map<string, Readonly<Record<string, string>>>();

/**
 * `{'Cache-Control': value}`, one frozen object per value: replies share it instead of allocating
 * headers per request (the HTTP layer only reads them, and checks a frozen object's names once).
 */
export function cacheControlHeaders(cacheControl: string): Record<string, string> {
  let headers = cacheHeaders.get(cacheControl);
  if (headers === undefined) {
    headers = Object.freeze({ 'Cache-Control': cacheControl });
    cacheHeaders.set(cacheControl, headers);
  }
  return headers as Record<string, string>;
}

export function jsonReply(body: string, cacheControl: string, status = 200): Reply {
  return { status, body, headers: cacheControlHeaders(cacheControl) };
}

export function notFound(message: string): ApiError {
  return new ApiError(404, message);
}

/** A strictly positive integer path id (`12`, `012`), else null. */
export function pathId(raw: string | undefined): number | null {
  if (raw === undefined || !/^\d{1,10}$/.test(raw)) return null;
  const id = Number(raw);
  return id > 0 && Number.isSafeInteger(id) ? id : null;
}

/** Records that carry what localize needs. */
interface Nameable {
  name: string;
  native?: string | null;
  translations?: string | null;
}

export interface ListSpec<R extends Nameable> {
  /** Memo key of the default body: `${operation}|${path key}`; the projection's id is appended. */
  memoKey: string;
  set: EntityFields;
  tier: Tier;
  params: ListParams;
  /** Rows in the snapshot's order. */
  count: number;
  rowAt(index: number): number;
  record(row: number): R;
  /** The table the rows belong to (q filters use its cached name keys). */
  entity: NamedEntity;
  cacheControl: string;
  /** The table's row bytes (store.<entity>.rowBytes): default bodies are then written from them, no record decoded. */
  rowBytes?: RowBytes | null;
}

export function projectionOf(set: EntityFields, tier: Tier, params: ListParams): Projection {
  return projectionFor(set, tier, {
    fields: params.fields,
    includeTranslations: params.includeTranslations,
    localized: params.locale !== null,
  });
}

/** Adds localized_name/matched_locale when the projection carries them. */
export function withLocale<R extends Nameable>(record: R, projection: Projection, locale: string | null): R {
  if (locale === null || !projection.names.includes('localized_name')) return record;
  return { ...record, ...localizeName(locale, record.name, record.native ?? null, record.translations ?? null) };
}

/**
 * A list reply. Default requests (no fields/sort/q/locale) get the memoized prepared bytes;
 * others are filtered (q on name/native), localized, sorted and serialised per request.
 */
export function listReply<R extends Nameable>(ctx: RequestContext, spec: ListSpec<R>): Reply {
  const projection = projectionOf(spec.set, spec.tier, spec.params);
  const headers = cacheControlHeaders(spec.cacheControl);
  if (spec.params.plain) {
    return memoizedReply(
      ctx,
      `${spec.memoKey}|${projection.id}`,
      spec.rowBytes
        ? () => rowsJson(spec.rowBytes!, projection, spec.count, spec.rowAt)
        : () => serializeList(projection, spec.count, (i) => spec.record(spec.rowAt(i))),
      headers,
    );
  }
  const { q, sort, locale } = spec.params;
  let records: R[] = [];
  for (let i = 0; i < spec.count; i++) {
    const row = spec.rowAt(i);
    if (q && !ctx.engine.rowMatchesQ(spec.entity, row, q.key)) continue;
    records.push(spec.record(row));
  }
  if (locale !== null) records = records.map((record) => withLocale(record, projection, locale));
  if (sort) sortObjects(records, sort, spec.set);
  return { status: 200, body: serializeList(projection, records.length, (i) => records[i]!), headers };
}
