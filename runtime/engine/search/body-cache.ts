// A bounded LRU of serialised response bodies, keyed by the canonical form of a search request.
// Bounded twice: by entry count and by total body bytes (a 100-item nearby body at the full tier
// is ~60 KB, so an entry count alone could hold hundreds of MB). Map keeps insertion order, so
// "touch" = delete + set and the eviction victim is the first key.

export interface BodyCacheLimits {
  maxEntries: number;
  /** Sum of body lengths (UTF-16 code units ≈ bytes for these ASCII-heavy bodies). */
  maxChars: number;
}

/** Per search operation: 2,048 bodies or 16 M characters, whichever is reached first. */
export const SEARCH_CACHE_LIMITS: BodyCacheLimits = { maxEntries: 2048, maxChars: 16 * 1024 * 1024 };

export class BodyCache {
  private readonly entries = new Map<string, string | Uint8Array>();
  private chars = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly limits: BodyCacheLimits = SEARCH_CACHE_LIMITS) {
    if (!(limits.maxEntries >= 1) || !(limits.maxChars >= 1)) {
      throw new RangeError(`cache limits must be positive, found ${limits.maxEntries} entries / ${limits.maxChars} chars`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalChars(): number {
    return this.chars;
  }

  get(key: string): string | Uint8Array | undefined {
    const body = this.entries.get(key);
    if (body === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, body);
    return body;
  }

  set(key: string, body: string | Uint8Array): void {
    // A body larger than the whole budget is served but never cached.
    if (sizeOf(body) > this.limits.maxChars) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.chars -= sizeOf(old);
      this.entries.delete(key);
    }
    this.entries.set(key, body);
    this.chars += sizeOf(body);
    while (this.entries.size > this.limits.maxEntries || this.chars > this.limits.maxChars) {
      const oldest = this.entries.keys().next().value as string;
      this.chars -= sizeOf(this.entries.get(oldest)!);
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }
}

/** Characters of a text body, bytes of a prepared one. */
function sizeOf(body: string | Uint8Array): number {
  return typeof body === 'string' ? body.length : body.byteLength;
}
