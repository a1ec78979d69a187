// Reply helpers shared by the reference operations: cache headers, JSON replies, 404s, and the
// list pipeline (filter → sort → project → serialise), rendered on demand: the HTTP layer keeps
// rendered bodies in its response cache, keyed by the request's inputs.
import type { EntityFields, Projection } from '../../render/projection.js';
import { projectionFor, serializeList } from '../../render/projection.js';
import { localizeName } from '../../engine/localize.js';
import type { NamedEntity } from '../../engine/name-keys.js';
import { numberSorted, sortBy, sortObjects, type SortKey } from '../../engine/sort.js';
import type { ListParams, Page } from '../params.js';
import { ApiError, type Tier } from '../../contract/index.js';
import { pathSpec } from '../params.js';
import { rendered, type ParamSpec, type RequestContext, type Reply } from '../types.js';

/** `{ciso}`: a country's ISO 3166-1 alpha-2 or alpha-3 code (case-insensitive). */
export const CISO_PATH: ParamSpec = pathSpec('ciso', "Country ISO 3166-1 alpha-2 or alpha-3 code, any case (US, usa).", 'US');
/** `{siso}`: a state's code within its country (the iso2 column). */
export const SISO_PATH: ParamSpec = pathSpec('siso', "State code within the country (the state's iso2, e.g. CA).", 'CA');
import { rowJsonWriter, rowsJson, writeRowsArray } from '../../render/row-json.js';
import { LOCALIZED_NAMES, localizedNameOfRow } from '../../render/search.js';
import type { RowBytes } from '../../store/types.js';
import { rowValuesOf } from '../../store/row-values.js';

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

/** A body written now: for answers that depend on more than the request's inputs (the clock). */
export function jsonReply(body: string, cacheControl: string, status = 200): Reply {
  return { status, body, headers: cacheControlHeaders(cacheControl) };
}

/** A 200 rendered on demand, so the HTTP layer's response cache can answer it without rendering. */
export function renderedJson(render: () => string, cacheControl: string): Reply {
  return rendered(render, cacheControlHeaders(cacheControl));
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
  set: EntityFields;
  tier: Tier;
  params: ListParams;
  /** Rows in the snapshot's order. */
  count: number;
  rowAt(index: number): number;
  /** Set when rowAt(i) is rowStart + i (one range of the table): its sorted orders are then kept (engine/sorted-rows.ts). */
  rowStart?: number;
  record(row: number): R;
  /** The table the rows belong to (q filters match its rows' name keys: engine/name-keys.ts). */
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
 * Headers of a page of a cursor-less list (decisions.md): the list's total and the page asked for.
 * The HTTP layer adds the X-CSC-* twins in compat mode.
 */
export function pageHeaders(cacheControl: string, total: number, page: Page): Record<string, string> {
  const key = `${cacheControl}\u0000${total}\u0000${page.limit}\u0000${page.offset}`;
  let headers = pageHeaderSets.get(key);
  if (headers === undefined) {
    headers = {
      'Cache-Control': cacheControl,
      'X-GEOAPI-Total-Count': String(total),
      'X-GEOAPI-Limit': String(page.limit),
      'X-GEOAPI-Offset': String(page.offset),
    };
    if (pageHeaderSets.size >= PAGE_HEADER_SETS) return headers;
    pageHeaderSets.set(key, Object.freeze(headers));
  }
  return headers as Record<string, string>;
}

/**
 * pageHeaders' objects, frozen and shared like cacheControlHeaders': the response cache keeps a
 * shared object with an answer kept under its request target (runtime/http/app.ts, targetKeeps),
 * not one per answer. Past this many, pages get headers of their own, kept by response key only.
 */
const PAGE_HEADER_SETS = 4096;
const pageHeaderSets = new Map<string, Readonly<Record<string, string>>>();

/** A whole list, or its page with the page headers (currency and phone lists, whose items are built in memory). */
export function pagedListReply<T extends object>(items: readonly T[], projection: Projection, cacheControl: string, page: Page | null): Reply {
  if (page === null) return renderedJson(() => serializeList(projection, items.length, (i) => items[i]!), cacheControl);
  const slice = items.slice(page.offset, page.offset + page.limit);
  return rendered(() => serializeList(projection, slice.length, (i) => slice[i]!), pageHeaders(cacheControl, items.length, page));
}

/**
 * A list reply, rendered on demand (the HTTP layer's response cache answers repeats). A page
 * (limit/offset) selects its rows with the request, for the total its headers carry; its body is
 * rendered only when not held.
 */
export function listReply<R extends Nameable>(ctx: RequestContext, spec: ListSpec<R>): Reply {
  const projection = projectionOf(spec.set, spec.tier, spec.params);
  if (spec.params.plain) {
    const rowBytes = spec.rowBytes;
    // Written from the rows' bytes where the table has them (no record decoded).
    return rendered(
      rowBytes ? () => rowsJson(rowBytes, projection, spec.count, spec.rowAt) : () => serializeList(projection, spec.count, (i) => spec.record(spec.rowAt(i))),
      cacheControlHeaders(spec.cacheControl),
    );
  }
  if (spec.rowBytes) return rowListReply(ctx, spec, projection, spec.rowBytes);
  const { page } = spec.params;
  if (page === null) {
    return renderedJson(() => {
      const records = selectedRecords(ctx, spec, projection);
      return serializeList(projection, records.length, (i) => records[i]!);
    }, spec.cacheControl);
  }
  // A page: its headers carry the total after filtering, so it is rendered with the request.
  const { q, sort } = spec.params;
  let records: R[] = [];
  let total: number;
  if (q === null && sort === null) {
    // A page of the list in its stored order: decode only the rows of the page.
    total = spec.count;
    const end = Math.min(spec.count, page.offset + page.limit);
    for (let i = page.offset; i < end; i++) records.push(spec.record(spec.rowAt(i)));
    if (spec.params.locale !== null) records = localized(records, projection, spec.params.locale);
  } else {
    records = selectedRecords(ctx, spec, projection);
    total = records.length;
    records = records.slice(page.offset, page.offset + page.limit);
  }
  return rendered(() => serializeList(projection, records.length, (i) => records[i]!), pageHeaders(spec.cacheControl, total, page));
}

/**
 * The rows as a JSON array: with `locale`, each row's localized_name and matched_locale (as
 * withLocale computes them from its name, native and translations) come in as the writer's extras.
 */
function rowsBodyOf(rowBytes: RowBytes, projection: Projection, rows: ArrayLike<number>, locale: string | null): Buffer {
  const localizedNames = locale === null ? [] : LOCALIZED_NAMES.filter((name) => projection.names.includes(name));
  if (locale === null || localizedNames.length === 0) return rowsJson(rowBytes, projection, rows.length, (i) => rows[i]!);
  const items = Array.from(rows, (row) => ({ row }));
  return writeRowsArray(rowJsonWriter(rowBytes, projection, localizedNames), items, new Array<unknown>(localizedNames.length), (extras, { row }) => {
    const localized = localizedNameOfRow(rowBytes, row, locale);
    for (let i = 0; i < localizedNames.length; i++) extras[i] = localized[localizedNames[i]!];
  });
}

/**
 * listReply for a table with row bytes: the rows are selected (q), ordered (sort, on the sort
 * fields alone) and written (the projection: `fields`, and `locale`'s names) from the row bytes;
 * no record is decoded. The same bytes as the records' path
 * (test/routes/reference/list-rows.test.ts).
 */
function rowListReply<R extends Nameable>(ctx: RequestContext, spec: ListSpec<R>, projection: Projection, rowBytes: RowBytes): Reply {
  const { q, sort, page, locale } = spec.params;
  const storedOrder = q === null && sort === null;
  const sortRows = (unsorted: number[], keys: readonly SortKey[]): number[] => {
    const values = rowValuesOf(rowBytes);
    // Names sort by their precomputed rank (the same order) instead of being read and folded.
    const ranks = keys.some((key) => key.field === 'name') ? ctx.engine.nameRanks(spec.entity) : null;
    return sortBy(unsorted, keys, ranks === null ? spec.set : numberSorted(spec.set, 'name'), (row, name, numeric) => {
      if (ranks !== null && name === 'name') return ranks[row];
      const field = values.field(name);
      return field === undefined ? undefined : numeric ? values.numericValue(row, field) : values.value(row, field);
    });
  };
  // A range's sorted orders and its q selections are kept (engine/sorted-rows.ts): every page of
  // the list, and the same request again, read them instead of filtering and sorting the range.
  const rangeKey = storedOrder || spec.rowStart === undefined ? null : `${spec.entity} ${spec.rowStart} ${spec.count} ${sort === null ? '' : sort.map((k) => `${k.field}:${k.descending ? 'desc' : 'asc'}`).join(',')}`;
  const range = (): number[] => Array.from({ length: spec.count }, (_, i) => spec.rowAt(i));
  /** The rows of the list, filtered (q) and sorted (sort), made afresh. */
  const selectAfresh = (): number[] => {
    const rows: number[] = [];
    const order = sort !== null && rangeKey !== null ? ctx.engine.keptSortedRows(rangeKey) : undefined;
    if (order !== undefined) {
      // The range's kept sorted order, filtered: the rows and order of filtering first (the sort is stable).
      for (let i = 0; i < order.length; i++) {
        const row = order[i]!;
        if (q === null || ctx.engine.rowMatchesQ(spec.entity, row, q.key)) rows.push(row);
      }
      return rows;
    }
    for (let i = 0; i < spec.count; i++) {
      const row = spec.rowAt(i);
      if (q === null || ctx.engine.rowMatchesQ(spec.entity, row, q.key)) rows.push(row);
    }
    if (sort !== null) sortRows(rows, sort);
    return rows;
  };
  const select = (): ArrayLike<number> => {
    if (storedOrder) {
      // The list in its stored order: only the rows of the page, or every row.
      const rows: number[] = [];
      for (let i = page === null ? 0 : page.offset, end = page === null ? spec.count : Math.min(spec.count, page.offset + page.limit); i < end; i++) rows.push(spec.rowAt(i));
      return rows;
    }
    if (rangeKey === null) return selectAfresh();
    // A sorted order is made by a request without q (the whole range sorted), and read by any.
    if (q === null) return ctx.engine.sortedRows(rangeKey, () => Int32Array.from(sortRows(range(), sort!)));
    // q after the sort's name: a q key may hold spaces.
    return ctx.engine.sortedRows(`${rangeKey} q ${q.key}`, () => Int32Array.from(selectAfresh()));
  };
  if (page === null) {
    return rendered(() => rowsBodyOf(rowBytes, projection, select(), locale), cacheControlHeaders(spec.cacheControl));
  }
  // The rows are selected here, for the total in the headers; the page's body is rendered only
  // when the response cache does not hold it (the key holds limit and offset).
  const rows = select();
  const shown = storedOrder ? rows : rowsIn(rows, page.offset, page.offset + page.limit);
  return rendered(() => rowsBodyOf(rowBytes, projection, shown, locale), pageHeaders(spec.cacheControl, storedOrder ? spec.count : rows.length, page));
}

/** rows[start, end) (end clamped) as an array. */
function rowsIn(rows: ArrayLike<number>, start: number, end: number): number[] {
  const shown: number[] = [];
  for (let i = start, last = Math.min(end, rows.length); i < last; i++) shown.push(rows[i]!);
  return shown;
}

/** The records a non-plain list request selects: filtered (q on name/native), sorted on the full records, localized. */
function selectedRecords<R extends Nameable>(ctx: RequestContext, spec: ListSpec<R>, projection: Projection): R[] {
  const { q, sort, locale } = spec.params;
  let records: R[] = [];
  for (let i = 0; i < spec.count; i++) {
    const row = spec.rowAt(i);
    if (q && !ctx.engine.rowMatchesQ(spec.entity, row, q.key)) continue;
    records.push(spec.record(row));
  }
  if (sort) sortObjects(records, sort, spec.set);
  if (locale !== null) records = localized(records, projection, locale);
  return records;
}

function localized<R extends Nameable>(records: R[], projection: Projection, locale: string): R[] {
  return records.map((record) => withLocale(record, projection, locale));
}
