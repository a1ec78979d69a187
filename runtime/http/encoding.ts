// Content negotiation and compression, the one place for both. negotiateEncoding reads an
// Accept-Encoding value by RFC 9110 §12.5.3: q-values weigh the codings, q=0 means "not
// acceptable", `*` stands for every coding the header does not name, and identity is the
// fallback (also when the client excluded it: a body it cannot decode helps nobody, and a 406
// would break clients that send odd headers). compress() is what every compressed body goes
// through (prepared bodies call it once per coding, runtime/http/response-cache.ts).
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip' | null;

/**
 * How answers are compressed (GeoapiConfig.compression): --compression / GEOAPI_COMPRESSION,
 * --brotli-quality / GEOAPI_BROTLI_QUALITY, --gzip-level / GEOAPI_GZIP_LEVEL.
 */
export interface CompressionSettings {
  /** false: every answer goes out uncompressed (a proxy in front compresses, or the network is local). */
  enabled: boolean;
  /** Brotli quality, 0–11. */
  brotliQuality: number;
  /** gzip level, 1–9. */
  gzipLevel: number;
}

/**
 * Fast levels by default. Browsers send `Accept-Encoding: gzip, deflate, br, zstd`, so every
 * answer of 1 KiB or more that is not yet held compressed is compressed on the worker thread,
 * on the request's path; a search answer is new almost every time. Measured (1 thread, distinct
 * autocomplete answers of ~6.5 KiB, response cache off): brotli quality 5 made such a request
 * cost 2.4–2.7× its CPU without compression. Quality 1 compresses a 17 KiB city list in ~75 µs
 * against ~125 µs at 2, and 6–8 KiB search answers in ~45–50 against ~70–80 µs, for 7–8 % more
 * bytes: within 4 % of what gzip level 1 makes, in 30–40 % less time (README: Compression).
 */
export const DEFAULT_COMPRESSION: CompressionSettings = { enabled: true, brotliQuality: 1, gzipLevel: 1 };

/** Bodies shorter than this go out uncompressed (the saving would not pay for the work). */
export const MIN_COMPRESS_LENGTH = 1024;

const choices = new Map<string, Encoding>();
const CHOICE_CACHE_LIMIT = 256;

/** The coding to send for an Accept-Encoding header value ('' when absent): br, gzip, or null for identity (always when compression is off). */
export function negotiateEncoding(acceptEncoding: string, settings: CompressionSettings = DEFAULT_COMPRESSION): Encoding {
  if (acceptEncoding === '' || !settings.enabled) return null;
  let choice = choices.get(acceptEncoding);
  if (choice === undefined) {
    choice = parseAcceptEncoding(acceptEncoding);
    // Clients send a handful of distinct values; a flood of odd ones only costs re-parsing.
    if (choices.size >= CHOICE_CACHE_LIMIT) choices.clear();
    choices.set(acceptEncoding, choice);
  }
  return choice;
}

const Q_RE = /^\s*q\s*=\s*(\S*)\s*$/i;

function parseAcceptEncoding(header: string): Encoding {
  // q of each coding named; undefined = not named.
  let br: number | undefined;
  let gzip: number | undefined;
  let identity: number | undefined;
  let star: number | undefined;
  for (const part of header.split(',')) {
    const [codingRaw, ...params] = part.split(';');
    const coding = codingRaw!.trim().toLowerCase();
    if (coding === '') continue;
    let q = 1;
    for (const param of params) {
      const m = Q_RE.exec(param);
      // An unreadable weight counts as 0 (not acceptable): safer than assuming 1.
      if (m) q = m[1] !== '' && Number(m[1]) >= 0 ? Math.min(1, Number(m[1])) : 0;
    }
    // A coding named twice: the higher weight wins (lenient; the RFC does not say).
    if (coding === 'br') br = Math.max(br ?? 0, q);
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (coding === 'identity') identity = Math.max(identity ?? 0, q);
    else if (coding === '*') star = Math.max(star ?? 0, q);
  }
  const brQ = br ?? star ?? 0;
  const gzipQ = gzip ?? star ?? 0;
  const best = Math.max(brQ, gzipQ);
  if (best <= 0) return null;
  // Identity named with a higher weight than every compression the client accepts: send it plain.
  if (identity !== undefined && identity > best) return null;
  // Equal weights: br (smaller bodies).
  return brQ >= gzipQ ? 'br' : 'gzip';
}

/**
 * The window as large as the body, within the coding's bounds: a larger one finds nothing more in
 * a body that fits, and only takes memory on every call (the compressor is made per body).
 */
function windowBitsFor(length: number, min: number, max: number): number {
  let bits = min;
  while (bits < max && 2 ** bits < length) bits++;
  return bits;
}

export function compress(body: string | Uint8Array, encoding: 'br' | 'gzip', settings: CompressionSettings = DEFAULT_COMPRESSION): Uint8Array {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (encoding === 'br') {
    return brotliCompressSync(body, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: settings.brotliQuality,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: length,
        [zlib.BROTLI_PARAM_LGWIN]: windowBitsFor(length, zlib.BROTLI_MIN_WINDOW_BITS, zlib.BROTLI_MAX_WINDOW_BITS),
      },
    });
  }
  return gzipSync(body, { level: settings.gzipLevel, windowBits: windowBitsFor(length, 9, 15) });
}
