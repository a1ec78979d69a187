// Content negotiation for compressed bodies: br preferred, then gzip, honouring q=0. Bodies the
// operation did not compress are compressed here, and the result is kept in a small bounded cache
// keyed by the body, so a large list served again and again is compressed once per worker.
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip' | null;

/** Bodies shorter than this go out uncompressed (the saving would not pay for the work). */
export const MIN_COMPRESS_LENGTH = 1024;

const choices = new Map<string, Encoding>();
const CHOICE_CACHE_LIMIT = 256;

/** The encoding to use for an Accept-Encoding header value. */
export function chooseEncoding(acceptEncoding: string): Encoding {
  if (acceptEncoding === '') return null;
  let choice = choices.get(acceptEncoding);
  if (choice === undefined) {
    choice = parseAcceptEncoding(acceptEncoding);
    if (choices.size >= CHOICE_CACHE_LIMIT) choices.clear();
    choices.set(acceptEncoding, choice);
  }
  return choice;
}

function parseAcceptEncoding(header: string): Encoding {
  let br = false;
  let gzip = false;
  let star = false;
  for (const part of header.split(',')) {
    const [codingRaw, ...params] = part.split(';');
    const coding = codingRaw!.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (m) q = Number(m[1]);
    }
    if (!(q > 0)) continue;
    if (coding === 'br') br = true;
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = true;
    else if (coding === '*') star = true;
  }
  if (br || star) return 'br';
  return gzip ? 'gzip' : null;
}

export function compress(body: string | Uint8Array, encoding: 'br' | 'gzip'): Uint8Array {
  if (encoding === 'br') {
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    // Quality 5: most of brotli's gain at a few times gzip's speed (the default 11 is far too slow per request).
    return brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: length },
    });
  }
  return gzipSync(body, { level: 6 });
}

interface Variants {
  br?: Uint8Array;
  gzip?: Uint8Array;
}

/** Compressed variants by body; bounded by entry count and by bytes held. */
export class CompressionCache {
  private readonly byString = new Map<string, Variants>();
  private readonly byBytes = new WeakMap<Uint8Array, Variants>();
  private heldBytes = 0;

  constructor(
    private readonly maxEntries = 256,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get(body: string | Uint8Array, encoding: 'br' | 'gzip'): Uint8Array {
    let variants: Variants | undefined;
    if (typeof body === 'string') {
      variants = this.byString.get(body);
      if (variants === undefined) {
        if (this.byString.size >= this.maxEntries || this.heldBytes > this.maxBytes) this.evictOldest();
        variants = {};
        this.byString.set(body, variants);
        this.heldBytes += body.length;
      }
    } else {
      variants = this.byBytes.get(body);
      if (variants === undefined) {
        variants = {};
        this.byBytes.set(body, variants);
      }
    }
    let compressed = variants[encoding];
    if (compressed === undefined) {
      compressed = compress(body, encoding);
      variants[encoding] = compressed;
      if (typeof body === 'string') this.heldBytes += compressed.byteLength;
    }
    return compressed;
  }

  private evictOldest(): void {
    // Map iteration is insertion order: drop the oldest quarter.
    let drop = Math.max(1, this.byString.size >> 2);
    for (const [body, variants] of this.byString) {
      if (drop-- === 0) break;
      this.heldBytes -= body.length + (variants.br?.byteLength ?? 0) + (variants.gzip?.byteLength ?? 0);
      this.byString.delete(body);
    }
  }
}
