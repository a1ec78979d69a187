// Content negotiation and compression, the one place for both. negotiateEncoding reads an
// Accept-Encoding value by RFC 9110 §12.5.3: q-values weigh the codings, q=0 means "not
// acceptable", `*` stands for every coding the header does not name, and identity is the
// fallback (also when the client excluded it: a body it cannot decode helps nobody, and a 406
// would break clients that send odd headers). compress() is what every compressed body goes
// through (prepared bodies call it once per coding, runtime/http/prepared-body.ts).
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip' | null;

/** Bodies shorter than this go out uncompressed (the saving would not pay for the work). */
export const MIN_COMPRESS_LENGTH = 1024;

const choices = new Map<string, Encoding>();
const CHOICE_CACHE_LIMIT = 256;

/** The coding to send for an Accept-Encoding header value ('' when absent): br, gzip, or null for identity. */
export function negotiateEncoding(acceptEncoding: string): Encoding {
  if (acceptEncoding === '') return null;
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

export function compress(body: string | Uint8Array, encoding: 'br' | 'gzip'): Uint8Array {
  if (encoding === 'br') {
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    // Quality 5: most of brotli's gain at a few times gzip's speed (the default 11 is far too slow for multi-MB bodies).
    return brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: length },
    });
  }
  return gzipSync(body, { level: 6 });
}
