// A bounded in-process cache of rendered postcode responses (body + strong ETag), least recently
// used first out, with a time-to-live per entry. Bounded by entry count and by body bytes.
import { createHash } from 'node:crypto';

export interface CachedResponse {
  body: string;
  etag: string;
  expiresAtMs: number;
}

export interface ResponseCacheLimits {
  maxEntries: number;
  maxBytes: number;
}

/** Defaults: 10,000 responses or 32 MiB of body text, whichever comes first. */
export const DEFAULT_RESPONSE_CACHE_LIMITS: ResponseCacheLimits = { maxEntries: 10_000, maxBytes: 32 * 1024 * 1024 };

/**
 * GEOAPI_POSTCODE_CACHE_ENTRIES and GEOAPI_POSTCODE_CACHE_MB override the defaults (per worker
 * thread); 0 entries turns the cache off (every response a MISS, as benchmarks of the engine need).
 */
export function responseCacheLimitsFromEnv(env: Readonly<Record<string, string | undefined>>): ResponseCacheLimits {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    if (!/^\d+$/.test(raw.trim())) throw new Error(`${name}: expected a whole number, found ${JSON.stringify(raw)}`);
    return Number(raw.trim());
  };
  return {
    maxEntries: read('GEOAPI_POSTCODE_CACHE_ENTRIES', DEFAULT_RESPONSE_CACHE_LIMITS.maxEntries),
    maxBytes: read('GEOAPI_POSTCODE_CACHE_MB', DEFAULT_RESPONSE_CACHE_LIMITS.maxBytes / (1024 * 1024)) * 1024 * 1024,
  };
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;

  constructor(private readonly limits: ResponseCacheLimits = DEFAULT_RESPONSE_CACHE_LIMITS) {}

  get size(): number {
    return this.entries.size;
  }

  get byteSize(): number {
    return this.bytes;
  }

  get(key: string, nowMs: number): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAtMs <= nowMs) {
      this.bytes -= entryBytes(key, entry);
      return undefined;
    }
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    const bytes = entryBytes(key, entry);
    if (this.limits.maxEntries === 0 || bytes > this.limits.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= entryBytes(key, old);
    }
    this.entries.set(key, entry);
    this.bytes += bytes;
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= entryBytes(oldKey, oldEntry);
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

function entryBytes(key: string, entry: CachedResponse): number {
  // UTF-16 string sizes, approximately what the heap holds.
  return (key.length + entry.body.length + entry.etag.length) * 2;
}

/** Strong ETag: SHA-1 of the body bytes and the field tier that shaped them, base64url, quoted. */
export function strongEtag(body: string, tier: string): string {
  return `"${createHash('sha1').update(body).update('\u0000').update(tier).digest('base64url')}"`;
}

/**
 * If-None-Match: `*`, or a comma-separated list of entity tags compared weakly (RFC 9110
 * §13.1.2: `W/"x"` matches `"x"`).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = header.trim();
  if (value === '*') return true;
  const opaque = stripWeak(etag);
  for (const part of value.split(',')) {
    if (stripWeak(part.trim()) === opaque) return true;
  }
  return false;
}

function stripWeak(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}
