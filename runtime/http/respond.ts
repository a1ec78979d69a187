// Writing one response: status line, the headers every response carries, the representation
// (negotiated coding, its ETag, a bodyless 304 when If-None-Match holds it), Cache-Control rules,
// and the body, all inside one cork so it leaves in one write.
import { STATUS_CODES } from 'node:http';
import type { ErrorShape } from '../contract/index.js';
import { MIN_COMPRESS_LENGTH, negotiateEncoding, type CompressionSettings, type Encoding } from './encoding.js';
import { ifNoneMatchHits, PreparedBody } from './response-cache.js';
import type { UwsHttpResponse } from './uws.js';

export const UNAUTHORIZED_MESSAGE = "Unauthorized. You shouldn't be here.";
export const UNAUTHORIZED_BODY = JSON.stringify({ error: UNAUTHORIZED_MESSAGE });
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const statusLines: string[] = [];
for (const [code, text] of Object.entries(STATUS_CODES)) statusLines[Number(code)] = `${code} ${text}`;

export function statusLine(status: number): string {
  return statusLines[status] ?? `${status} Status ${status}`;
}

/** An error body in one of the spec's two shapes. Shape A puts details beside `error`. */
export function errorBody(shape: ErrorShape, message: string, details?: Record<string, unknown>): string {
  if (shape === 'A') {
    const body: Record<string, unknown> = { error: message };
    if (details) for (const key in details) if (key !== 'error') body[key] = details[key];
    return JSON.stringify(body);
  }
  return JSON.stringify(details ? { status: 'error', message, details } : { status: 'error', message });
}

/** Headers the HTTP layer owns; a Reply cannot replace them. */
const RESERVED = new Set(['etag', 'x-cache', 'content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'connection', 'vary', 'x-request-id', 'x-geoapi-data-version', 'x-geoapi-plan', 'x-csc-data-version', 'x-csc-plan', 'date']);
const UNSAFE_VALUE = /[\r\n\0]/;

/** Operation headers sorted once: what to write, what to drop (and log), the Cache-Control value. */
interface CheckedHeaders {
  names: string[];
  values: string[];
  dropped: string[];
  cacheControl: string | null;
}

function checkHeaders(headers: Record<string, string>): CheckedHeaders {
  const checked: CheckedHeaders = { names: [], values: [], dropped: [], cacheControl: null };
  for (const name in headers) {
    const lower = name.toLowerCase();
    const value = headers[name]!;
    if (RESERVED.has(lower)) continue;
    if (UNSAFE_VALUE.test(value) || UNSAFE_VALUE.test(name)) {
      checked.dropped.push(name);
      continue;
    }
    if (lower === 'cache-control') checked.cacheControl = value;
    checked.names.push(name);
    checked.values.push(value);
  }
  return checked;
}

// Operations answer most requests with shared frozen header objects: those are checked once.
const checkedFrozen = new WeakMap<object, CheckedHeaders>();

function checkedHeadersOf(headers: Record<string, string>): CheckedHeaders {
  let checked = checkedFrozen.get(headers);
  if (checked !== undefined) return checked;
  checked = checkHeaders(headers);
  if (Object.isFrozen(headers)) checkedFrozen.set(headers, checked);
  return checked;
}

/** Whether writeResponse will look at Accept-Encoding for `out` (so the caller may skip reading it). */
export function negotiatesEncoding(out: Outgoing): boolean {
  if (out.status === 304 || out.status === 204) return false;
  const length = out.prepared !== undefined ? out.prepared.length : typeof out.body === 'string' ? out.body.length : out.body.byteLength;
  return length >= MIN_COMPRESS_LENGTH;
}

export interface Outgoing {
  status: number;
  /** The body when there is no prepared one (errors, 204). */
  body: string | Uint8Array;
  /** A 200's body with its ETag and compressed variants (then `body` is ignored). */
  prepared?: PreparedBody | undefined;
  /** X-Cache: whether the prepared body came from the response cache. */
  cacheStatus?: 'HIT' | 'MISS' | undefined;
  /** Operation headers (Cache-Control, …). */
  headers?: Record<string, string> | undefined;
  /** Quota usage headers of a keyed request. */
  usageHeaders?: Record<string, string> | undefined;
  /** The caller's plan, for keyed responses. */
  plan?: string | undefined;
  /** The request's Origin when CORS allows it. */
  corsOrigin?: string | undefined;
  /** Content-Type when not JSON (the console's page, scripts and styles). */
  contentType?: string | undefined;
  /** A HEAD request: status and headers as for the GET, Content-Length of the GET's body, no body. */
  headOnly?: boolean | undefined;
}

export interface ResponseSettings {
  dataVersion: string;
  privateMaxAgeSeconds: number;
  /** Access-Control-Expose-Headers value for CORS responses. */
  corsExposeHeaders: string;
  vary: string;
  /** Compat "csc": every X-GEOAPI-* header (and X-Cache) also goes out under its X-CSC-* name. */
  cscHeaders: boolean;
  /** Whether and how bodies are compressed for the codings a request accepts. */
  compression: CompressionSettings;
  log(message: string): void;
}

const OUR_HEADER_PREFIX = 'x-geoapi-';

/** The X-CSC-* name of one of our headers (X-GEOAPI-Total-Count → X-CSC-Total-Count, X-Cache → X-CSC-Cache), or null. */
export function cscTwinName(name: string): string | null {
  if (name.length > OUR_HEADER_PREFIX.length && name.slice(0, OUR_HEADER_PREFIX.length).toLowerCase() === OUR_HEADER_PREFIX) return `X-CSC-${name.slice(OUR_HEADER_PREFIX.length)}`;
  if (name.length === 7 && name.toLowerCase() === 'x-cache') return 'X-CSC-Cache';
  return null;
}

/**
 * Compat "csc" (decisions.md): the public service's names beside ours. A keyed answer always
 * carries the four usage headers its clients require; when nothing counts the caller (quotas off,
 * a plan without a quota) they say used 0 of `unlimited`.
 */
function writeCscTwins(out: Outgoing, settings: ResponseSettings, operationHeaders: CheckedHeaders | null): void {
  lines.add('X-CSC-Data-Version', settings.dataVersion);
  if (out.cacheStatus !== undefined) lines.add('X-CSC-Cache', out.cacheStatus);
  if (out.plan !== undefined) {
    lines.add('X-CSC-Plan', out.plan);
    const usage = out.usageHeaders;
    if (usage !== undefined && usage['X-GEOAPI-Daily-Limit'] !== undefined) {
      for (const name in usage) {
        const twin = name.length === 13 ? null : cscTwinName(name);
        if (twin !== null) lines.add(twin, usage[name]!);
      }
    } else {
      lines.add('X-CSC-Daily-Used', '0');
      lines.add('X-CSC-Daily-Limit', 'unlimited');
      lines.add('X-CSC-Monthly-Used', '0');
      lines.add('X-CSC-Monthly-Limit', 'unlimited');
    }
  }
  if (operationHeaders !== null) {
    for (let i = 0; i < operationHeaders.names.length; i++) {
      const twin = cscTwinName(operationHeaders.names[i]!);
      if (twin !== null) lines.add(twin, operationHeaders.values[i]!);
    }
  }
}

/**
 * The header lines of one response, handed to uWS in one call: uWS writes `name: value\r\n` as
 * given, so the lines after the first travel in the first one's value, each `\r\n`-separated. One
 * crossing into C++ (and one UTF-8 conversion) instead of one per header; the bytes on the wire
 * are the same. No value holds CR or LF: operation headers with one are dropped (checkHeaders),
 * every other value is ours.
 */
class HeaderLines {
  private first = '';
  private rest = '';

  add(name: string, value: string): void {
    if (this.first === '') {
      this.first = name;
      this.rest = value;
    } else this.rest += `\r\n${name}: ${value}`;
  }

  /** Writes the lines (if any) and empties the block for the next response. */
  flush(res: UwsHttpResponse): void {
    const first = this.first;
    const rest = this.rest;
    this.clear();
    if (first !== '') res.writeHeader(first, rest);
  }

  clear(): void {
    this.first = '';
    this.rest = '';
  }
}

/** Reused: a response's lines are written before the next response starts (one thread, synchronous writes). */
const lines = new HeaderLines();

/**
 * Writes the whole response. `acceptEncoding` is the request's header ('' when absent; callers
 * may pass '' without reading it when negotiatesEncoding(out) is false);
 * `closeConnection` is set while draining so keep-alive clients move to another process, and now
 * and then to even out the threads (rebalance.ts); a bodiless answer (304, HEAD) cannot close
 * it (below), and the result says whether the connection is closed;
 * `ifNoneMatch` is the request's If-None-Match ('' when absent): when it holds the ETag of the
 * representation chosen, the answer is a bodyless 304 with the same headers. The writes are
 * corked here, in the handler too, so that the response leaves in one send: uWS corks the socket
 * around its handlers, but once a batch of pipelined requests has filled its 16 KiB cork buffer it
 * writes the rest of the batch uncorked, a send() per writeStatus, writeHeader and end. Measured
 * (1 thread, /v1/countries/IN, 30,000 req/s open loop on 32 pipelined connections): without this
 * the thread fell into 48,712 sendto calls per 2 s, 75 % of its time in the kernel, and answered
 * 7,800–12,400 req/s of the 30,000 while a backlog of seconds built; wrk's unpipelined requests
 * never showed it.
 */
export function writeResponse(
  res: UwsHttpResponse,
  out: Outgoing,
  requestId: string,
  acceptEncoding: string,
  settings: ResponseSettings,
  closeConnection: boolean,
  ifNoneMatch = '',
): boolean {
  let status = out.status;
  let body = out.body;
  let encoding: Encoding = null;
  let etag: string | null = null;
  let bodiless = status === 304 || status === 204;
  // Large bodies without a prepared one (a large error, a no-store answer) are compressed the same way, once.
  const prepared = out.prepared ?? (!bodiless && negotiatesEncoding(out) ? new PreparedBody(body, null) : undefined);
  if (prepared !== undefined && !bodiless) {
    encoding = prepared.length >= MIN_COMPRESS_LENGTH ? negotiateEncoding(acceptEncoding, settings.compression) : null;
    body = prepared.body(encoding, settings.compression);
    etag = prepared.etagOf(encoding, settings.compression);
    if (etag !== null && ifNoneMatch !== '' && ifNoneMatchHits(ifNoneMatch, etag)) {
      // Not modified: the same headers, no body (RFC 9110 §15.4.5), counted like the 200 it stands for.
      status = 304;
      bodiless = true;
      encoding = null;
    }
  }
  let closed = false;
  res.cork(() => {
    closed = writeAll(res, out, requestId, settings, closeConnection, status, body, encoding, etag, bodiless);
  });
  return closed;
}

/** Status line, headers and body (or none) of writeResponse, in that order; whether the connection closes after it. */
function writeAll(
  res: UwsHttpResponse,
  out: Outgoing,
  requestId: string,
  settings: ResponseSettings,
  closeConnection: boolean,
  status: number,
  body: string | Uint8Array,
  encoding: Encoding,
  etag: string | null,
  bodiless: boolean,
): boolean {
  let cacheControl: string | null = null;
  lines.clear(); // in case a write before this one threw halfway
  res.writeStatus(statusLine(status));
  if (!bodiless) lines.add('Content-Type', out.contentType ?? JSON_CONTENT_TYPE);
  if (encoding !== null) lines.add('Content-Encoding', encoding);
  if (etag !== null) lines.add('ETag', etag);
  if (out.cacheStatus !== undefined) lines.add('X-Cache', out.cacheStatus);
  lines.add('Vary', settings.vary);
  lines.add('X-Request-ID', requestId);
  lines.add('X-GEOAPI-Data-Version', settings.dataVersion);
  if (out.plan !== undefined) lines.add('X-GEOAPI-Plan', out.plan);
  if (out.usageHeaders !== undefined) {
    for (const name in out.usageHeaders) {
      // X-GEOAPI-Plan is written above; only a 13-character name can be it (no lower-casing of the others).
      if (name.length !== 13 || name.toLowerCase() !== 'x-geoapi-plan') lines.add(name, out.usageHeaders[name]!);
    }
  }
  let checked: CheckedHeaders | null = null;
  if (out.headers !== undefined) {
    checked = checkedHeadersOf(out.headers);
    for (const name of checked.dropped) settings.log(`request ${requestId}: dropped header ${JSON.stringify(name)} with a line break in it`);
    for (let i = 0; i < checked.names.length; i++) lines.add(checked.names[i]!, checked.values[i]!);
    cacheControl = checked.cacheControl;
  }
  if (settings.cscHeaders) writeCscTwins(out, settings, checked);
  if (cacheControl === null) {
    // Errors (401, 403 and 429 above all) must never be reused by a cache.
    if (status >= 400) lines.add('Cache-Control', 'no-store');
    else if ((status === 200 || status === 304) && out.plan !== undefined) lines.add('Cache-Control', `private, max-age=${settings.privateMaxAgeSeconds}`);
  }
  if (out.corsOrigin !== undefined) {
    lines.add('Access-Control-Allow-Origin', out.corsOrigin);
    lines.add('Access-Control-Expose-Headers', settings.corsExposeHeaders);
  }
  // endWithoutBody() with no arguments: uWS v20.30 silently leaves the response unanswered when
  // given (undefined, close), which aborts the process; with (0, close) it claims Content-Length: 0.
  if (bodiless) {
    lines.flush(res);
    res.endWithoutBody();
    return false;
  }
  if (out.headOnly === true) {
    // endWithoutBody(length) leaves the response unanswered in uWS v20.30 (see above): the length is written as a header.
    lines.flush(res);
    res.writeHeader('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
    res.endWithoutBody();
    return false;
  }
  lines.flush(res);
  res.end(body, closeConnection);
  return closeConnection;
}
