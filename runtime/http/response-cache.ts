// The one response cache of a worker, and the prepared bodies it holds.
//
// A PreparedBody is a body ready to send: UTF-8 bytes, a strong ETag computed once, and its gzip
// and brotli variants, each compressed once on first demand (with an ETag of its own, see
// variantEtag) and, for a cached body, kept in the cache's ring beside it. The ResponseCache maps
// a response key (responseKey: operation, path parameters,
// canonical query, the caller's field tiers, the silently honoured features) to prepared bodies,
// bounded by one budget in bytes (bodies, variants and keys), least recently used out first (second chance, no sorting), with
// an optional age limit per entry. Cached bodies are views into one ring buffer per cache (see
// `ring`), not an ArrayBuffer each. It belongs to the store it was filled from: a new snapshot gets
// a new cache (runtime/http/app.ts, StoreState). Counters (hits, misses, …) are public for metrics.
import * as crypto from 'node:crypto';
import { compress, DEFAULT_COMPRESSION, type CompressionSettings, type Encoding } from './encoding.js';

/** Default budget of all the response caches of a process together, split evenly between the worker threads (GEOAPI_RESPONSE_CACHE_MB; README: memory). */
export const DEFAULT_RESPONSE_CACHE_BYTES = 32 * 1024 * 1024;

/** Node ≥ 20.12's one-shot digest; older 20.x lines fall back to a Hash object. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'base64url') => string }).hash;

/** The parts of strongEtag joined (separated by NUL), reused: tags are computed one at a time on a thread. */
let etagScratch = Buffer.allocUnsafeSlow(16 * 1024);

/**
 * A strong ETag: SHA-1 (base64url, 27 characters) of the parts joined by NUL, quoted. One-shot
 * over a copy, not a Hash object: each Hash is a native object that V8 tracks with a weak global
 * handle until it is collected, and those handles are processed in every scavenge. Measured
 * (1 worker, the report's mix): one per new answer, ~230 per scavenge, 0.4 of its ~1.3 ms pause.
 */
export function strongEtag(...parts: readonly (string | Uint8Array)[]): string {
  if (oneShotHash === undefined) return streamedEtag(parts);
  let length = parts.length - 1;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    length += typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.byteLength;
  }
  if (etagScratch.length < length) etagScratch = Buffer.allocUnsafeSlow(Math.max(length, etagScratch.length * 2));
  const scratch = etagScratch;
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) scratch[at++] = 0;
    const part = parts[i]!;
    if (typeof part === 'string') at += scratch.write(part, at, 'utf8');
    else {
      scratch.set(part, at);
      at += part.byteLength;
    }
  }
  return `"${oneShotHash('sha1', scratch.subarray(0, at), 'base64url')}"`;
}

/** strongEtag with a Hash object (streaming: adjacent text parts and their separators go in as one update). */
export function streamedEtag(parts: readonly (string | Uint8Array)[]): string {
  const hash = crypto.createHash('sha1');
  let text = '';
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) text += '\u0000';
    const part = parts[i]!;
    if (typeof part === 'string') text += part;
    else {
      if (text !== '') hash.update(text);
      text = '';
      hash.update(part);
    }
  }
  if (text !== '') hash.update(text);
  return `"${hash.digest('base64url')}"`;
}

/**
 * The ETag of a content-coded variant. Strong validators must differ whenever the bytes sent
 * differ (RFC 9110 §8.8.3), and a content coding changes them: the gzip and br representations
 * each get their own strong tag, derived from the identity one.
 */
export function variantEtag(identityEtag: string, encoding: 'br' | 'gzip'): string {
  return strongEtag(identityEtag, encoding);
}

/**
 * If-None-Match: `*`, or a comma-separated list of entity tags compared weakly (RFC 9110
 * §13.1.2: `W/"x"` matches `"x"`) with the ETag of the representation selected for this request.
 */
export function ifNoneMatchHits(header: string, etag: string): boolean {
  const value = header.trim();
  if (value === '') return false;
  if (value === '*') return true;
  for (const part of value.split(',')) {
    const tag = part.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

interface Variant {
  bytes: Uint8Array;
  etag: string | null;
}

/** A body ready to send in any coding the client accepts; variants are compressed once each. */
export class PreparedBody {
  private brVariant: Variant | undefined;
  private gzipVariant: Variant | undefined;

  constructor(
    /** The identity body: UTF-8 bytes, or the handler's string for a one-off answer; null when a subclass supplies `identity`. */
    private readonly content: string | Uint8Array | null,
    /** Strong ETag of the identity body, or null for an answer without a validator (no-store); null when a subclass supplies `etag`. */
    private readonly identityEtag: string | null,
  ) {}

  /** Strong ETag of the identity body, or null for an answer without a validator (no-store). */
  get etag(): string | null {
    return this.identityEtag;
  }

  /** The identity body. */
  get identity(): string | Uint8Array {
    return this.content!;
  }

  get length(): number {
    const identity = this.identity;
    return typeof identity === 'string' ? identity.length : identity.byteLength;
  }

  /** The bytes (or text) to send for `encoding` (null: identity), compressed with `compression` the first time. */
  body(encoding: Encoding, compression: CompressionSettings = DEFAULT_COMPRESSION): string | Uint8Array {
    return encoding === null ? this.identity : this.variant(encoding, compression).bytes;
  }

  /** The ETag of the representation in `encoding`, or null when this body has none. */
  etagOf(encoding: Encoding, compression: CompressionSettings = DEFAULT_COMPRESSION): string | null {
    return encoding === null ? this.etag : this.variant(encoding, compression).etag;
  }

  /** Forgets a variant (the cache's ring reused its bytes): the next request for it compresses again. */
  forget(coding: 'br' | 'gzip'): void {
    if (coding === 'br') this.brVariant = undefined;
    else this.gzipVariant = undefined;
  }

  /**
   * Takes a new variant's bytes and returns the bytes to send from now on: a cached body copies
   * them into its cache's ring (and counts them); a one-off answer keeps them as they are.
   */
  protected keepVariant(_coding: 'br' | 'gzip', bytes: Uint8Array, _etag: string | null): Uint8Array {
    return bytes;
  }

  // A process compresses with one setting, so a variant made once stands for every later request.
  private variant(encoding: 'br' | 'gzip', compression: CompressionSettings): Variant {
    let variant = encoding === 'br' ? this.brVariant : this.gzipVariant;
    if (variant === undefined) {
      const etag = this.etag === null ? null : variantEtag(this.etag, encoding);
      const bytes = compress(this.identity, encoding, compression);
      variant = { bytes: this.keepVariant(encoding, bytes, etag), etag };
      if (encoding === 'br') this.brVariant = variant;
      else this.gzipVariant = variant;
    }
    return variant;
  }
}

/** What a response is keyed by: everything its body may depend on, joined unambiguously. */
export interface ResponseKeyParts {
  operation: string;
  /** Path parameter values in the route's order, percent-decoded. */
  params: readonly string[];
  query: ReadonlyMap<string, string>;
  tier: string;
  countryTier: string;
  /** The answers the handler got from hasFeature (silently honoured parameters), e.g. `localization=1`. */
  honoured: string;
}

// Separators: the query parser and the path decoder refuse control characters, so these cannot
// occur inside a value.
const SEP = '\u0000';
const PAIR = '\u0001';

/** The cache key (and ETag input) of a response: operation, path values, canonical query (names sorted), tiers, honoured features. */
export function responseKey(parts: ResponseKeyParts): string {
  let key = parts.operation + SEP + parts.params.join(SEP) + SEP;
  const { query } = parts;
  if (query.size === 1) {
    // One parameter (most search requests): nothing to sort.
    for (const [name, value] of query) key += name + PAIR + value + PAIR;
  } else if (query.size > 1) {
    const names = [...query.keys()].sort();
    for (const name of names) key += name + PAIR + query.get(name)! + PAIR;
  }
  return key + SEP + parts.tier + SEP + parts.countryTier + SEP + parts.honoured;
}

/**
 * A cached answer: its prepared body and its place in the cache, one object and no other. Whatever
 * an entry holds lives as long as the entry, in the old generation, where every full collection
 * marks it (tens of thousands per thread under the report's mix), and each new entry is promoted
 * there: so its ETag, its key and its body are bytes in the ring, read per request (a view of the
 * body, a string of the ETag), and the cache is reached through a field, not a closure per entry.
 * The ring holds [itemStart, keyStart) the ETag (Latin-1), [keyStart, start) the key (one byte per
 * code unit, or two when `keyWide`), [start, end) the body.
 */
class Entry extends PreparedBody {
  /** Used since the eviction sweep last passed it: a hit only sets this (no Map reordering per request). */
  referenced = false;
  /** Used since the ring's head last passed it (the ring's own second chance, apart from the sweep's). */
  usedInLap = false;
  /** Hits so far (a variant in the ring is given a second chance by a hit since it was written). */
  hits = 0;
  /** Its compressed variants held in the ring, or null. */
  br: VariantItem | null = null;
  gzip: VariantItem | null = null;

  constructor(
    private readonly cache: ResponseCache,
    /** keyHash of its key: the cache's Map key. */
    readonly hash: number,
    /** Its bytes in the ring: [itemStart, end), written in lap `lap` (ETag, key, body: see above). */
    readonly itemStart: number,
    readonly keyStart: number,
    readonly keyWide: boolean,
    readonly start: number,
    readonly end: number,
    public lap: number,
    /**
     * When it stops being served, in ms after its cache's epoch (small enough to be stored
     * unboxed; an absolute time in ms is a heap number per entry), or null (most answers).
     */
    readonly expiresAfterEpochMs: number | null,
    /** Its bytes in the budget: body, key, ETag, overhead, and its variants'. */
    public bytes: number,
  ) {
    super(null, null);
  }

  override get etag(): string {
    return this.cache.ringLatin1(this.itemStart, this.keyStart);
  }

  override get identity(): Uint8Array {
    return this.cache.ringView(this.start, this.end);
  }

  override get length(): number {
    return this.end - this.start;
  }

  protected override keepVariant(coding: 'br' | 'gzip', bytes: Uint8Array, etag: string | null): Uint8Array {
    return this.cache.keepVariant(this, coding, bytes, etag);
  }
}

/**
 * A compressed variant of an entry's body, in the ring as bodies are. A Buffer of its own, held as
 * long as its body, was one more ArrayBuffer in the old generation per answer a browser got (they
 * all accept br): V8 ran a full collection every ~0.25 s under distinct search answers.
 */
interface VariantItem {
  entry: Entry;
  coding: 'br' | 'gzip';
  start: number;
  end: number;
  lap: number;
  /** entry.hits when written or last stepped over: a hit since then earns it a second chance. */
  hitsAtWrite: number;
  /** Its bytes in the budget: the variant and its ETag. */
  bytes: number;
}

/** What the ring holds: bodies (their entries) and variants, in ring order. */
type RingItem = Entry | VariantItem;

/** Where a ring item's bytes begin (an entry's with its ETag and key). */
const ringStartOf = (item: RingItem): number => ('coding' in item ? item.start : item.itemStart);

const isVariant = (item: RingItem): item is VariantItem => 'coding' in item;

/**
 * The ring holding a cache's bodies is the budget's size, up to this: beyond it, bodies are
 * evicted by the ring's laps before the byte budget fills.
 */
const MAX_RING_BYTES = 256 * 1024 * 1024;

/**
 * prefaultSteps() writes the ring's pages this many bytes per step, and at most the first
 * PREFAULT_MAX_BYTES of a ring (a larger budget's rest is paid on its first lap, as before).
 */
const PREFAULT_STEP_BYTES = 512 * 1024;
const PREFAULT_MAX_BYTES = 64 * 1024 * 1024;

const NOT_LATIN1 = /[^\u0000-\u00ff]/;

/**
 * The Map key of a response key: FNV-1a over its UTF-16 code units, 30 bits (a small integer,
 * stored unboxed in the Map). Two keys with one hash are told apart by the key bytes in the ring;
 * they cannot both be held (the later insert replaces the earlier).
 */
export function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}

/** Bookkeeping per entry beyond its bytes (Map slot, objects): keeps many tiny answers bounded too. */
const ENTRY_OVERHEAD_BYTES = 200;

export interface ResponseCacheStats {
  budgetBytes: number;
  bytes: number;
  entries: number;
  hits: number;
  misses: number;
  /** Entries dropped to stay within the budget. */
  evictions: number;
  /** Entries dropped because they were older than their age limit. */
  expirations: number;
  /** Bodies rendered but not kept (larger than the whole budget, or the cache is off). */
  notKept: number;
}

export class ResponseCache {
  /** Entries by keyHash of their key (see Entry for where the key itself is). */
  private readonly entries = new Map<number, Entry>();
  /** Entries' age limits count from here (Entry.expiresAfterEpochMs). */
  private readonly epochMs = Date.now();
  private heldBytes = 0;
  /**
   * Cached bodies live in one ring buffer, allocated once, as views into it: an ArrayBuffer per
   * body made V8 count every miss as external memory and start a full collection about every
   * 25 MB of them (about twice a second under the report's mix). The head writes each new body
   * after the last; an entry of the previous lap in its way is evicted, or, when used since it
   * was written, kept in place and stepped over (a second chance). Compressed variants are
   * written at the head too, when first asked for (VariantItem); one in the way goes alone, its
   * body stays. `ringQueue` holds the items in ring order from `ringFront`: those of the previous
   * lap (ahead of the head), then this lap's.
   */
  private ring: Buffer | null = null;
  private ringHead = 0;
  private ringLap = 0;
  private ringQueue: RingItem[] = [];
  private ringFront = 0;
  /** The last key hashed and its hash: a miss hashes its key for get, then again for insert. */
  private hashedKey = '';
  private hashedKeyHash = keyHash('');
  /** Where the eviction sweep stands (null: start from the oldest entry). */
  private sweep: MapIterator<[number, Entry]> | null = null;
  hits = 0;
  misses = 0;
  evictions = 0;
  expirations = 0;
  notKept = 0;

  /** `budgetBytes` 0 turns the cache off (every answer rendered, a MISS). `dataVersion` goes into every ETag. */
  constructor(
    readonly budgetBytes: number,
    readonly dataVersion: string,
  ) {
    if (!(budgetBytes >= 0)) throw new RangeError(`response cache budget must be 0 or more bytes, found ${budgetBytes}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** Share of lookups answered from the cache (0 before any). */
  get hitRatio(): number {
    const lookups = this.hits + this.misses;
    return lookups === 0 ? 0 : this.hits / lookups;
  }

  stats(): ResponseCacheStats {
    return {
      budgetBytes: this.budgetBytes,
      bytes: this.heldBytes,
      entries: this.entries.size,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      expirations: this.expirations,
      notKept: this.notKept,
    };
  }

  /** Whether `key` is held (counts nothing; an entry past its age limit still counts as held). */
  has(key: string): boolean {
    return this.held(key, this.hashOf(key)) !== undefined;
  }

  private hashOf(key: string): number {
    if (key !== this.hashedKey) {
      this.hashedKey = key;
      this.hashedKeyHash = keyHash(key);
    }
    return this.hashedKeyHash;
  }

  /** The entry held under `key` (whose hash is `hash`), if any. */
  private held(key: string, hash: number): Entry | undefined {
    const entry = this.entries.get(hash);
    return entry !== undefined && this.keyAt(entry, key) ? entry : undefined;
  }

  /** Whether the key bytes of `entry` in the ring spell `key`. */
  private keyAt(entry: Entry, key: string): boolean {
    const ring = this.ring!;
    const n = key.length;
    if (entry.keyWide) {
      if (entry.start - entry.keyStart !== 2 * n) return false;
      for (let i = 0, at = entry.keyStart; i < n; i++, at += 2) if (key.charCodeAt(i) !== (ring[at]! | (ring[at + 1]! << 8))) return false;
      return true;
    }
    if (entry.start - entry.keyStart !== n) return false;
    for (let i = 0, at = entry.keyStart; i < n; i++, at++) if (key.charCodeAt(i) !== ring[at]) return false;
    return true;
  }

  /** The prepared body for `key` if held and not older than its age limit (counts a hit or a miss). */
  get(key: string, nowMs: number): PreparedBody | undefined {
    const hash = this.hashOf(key);
    const entry = this.held(key, hash);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    if (entry.expiresAfterEpochMs !== null && entry.expiresAfterEpochMs <= nowMs - this.epochMs) {
      this.drop(hash, entry);
      this.expirations++;
      this.misses++;
      return undefined;
    }
    entry.referenced = true;
    entry.usedInLap = true;
    entry.hits++;
    this.hits++;
    return entry;
  }

  /** Prepares `body` (bytes and ETag, computed once here) and keeps it under `key` until `expiresAtMs`. */
  insert(builtKey: string, body: string | Uint8Array, expiresAtMs: number = Infinity): PreparedBody {
    // The same bytes (and so the same ETag) whether the handler rendered text or UTF-8 bytes.
    // `body` may be borrowed (a renderer's reused buffer): it is copied before this returns.
    const key = builtKey;
    const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
    const etag = strongEtag(key, this.dataVersion, body);
    const keyWide = NOT_LATIN1.test(key);
    const keyBytes = keyWide ? 2 * key.length : key.length;
    const itemBytes = etag.length + keyBytes + length;
    const size = itemBytes + ENTRY_OVERHEAD_BYTES;
    if (size > this.budgetBytes || itemBytes > this.ringBytes) {
      this.notKept++;
      return new PreparedBody(typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body), etag);
    }
    const hash = this.hashOf(key);
    // The same key again, or another key with its hash: either way the new answer takes the slot.
    const old = this.entries.get(hash);
    if (old !== undefined) this.drop(hash, old);
    const itemStart = this.allocate(itemBytes);
    const ring = this.ring!;
    const keyStart = itemStart + ring.write(etag, itemStart, etag.length, 'latin1');
    const start = keyStart + ring.write(key, keyStart, keyBytes, keyWide ? 'utf16le' : 'latin1');
    if (typeof body === 'string') ring.write(body, start, length, 'utf8');
    else ring.set(body, start);
    const entry = new Entry(this, hash, itemStart, keyStart, keyWide, start, start + length, this.ringLap, expiresAtMs === Infinity ? null : expiresAtMs - this.epochMs, size);
    this.ringQueue.push(entry);
    this.entries.set(hash, entry);
    this.heldBytes += size;
    this.evictBeyondBudget(entry);
    return entry;
  }

  /** Bytes [start, end) of the ring (a cached body or variant; a new view each time, see Entry). */
  ringView(start: number, end: number): Uint8Array {
    return this.ring!.subarray(start, end);
  }

  /** Bytes [start, end) of the ring as Latin-1 text (an entry's ETag). */
  ringLatin1(start: number, end: number): string {
    return this.ring!.toString('latin1', start, end);
  }

  /**
   * Steps (one per event-loop turn, see runtime/http/worker.ts) that allocate the ring and write
   * each of its pages once, ahead of the first answers. The first write to a fresh page is a page
   * fault, and on a virtual machine one can be expensive: ~12 µs per 4 KiB page on the Firecracker
   * guest the report runs on, so a new 16 MiB ring cost its thread ~50 ms of faults spread over
   * the first lap of misses, ~175 ms of one worker's first 1.5 s under the report's autocomplete
   * load. Only bytes no body was written to are touched: requests may be served between steps.
   * The price is resident memory: the ring counts from the start instead of as it fills.
   */
  prefaultSteps(): (() => void)[] {
    const touched = Math.min(this.ringBytes, PREFAULT_MAX_BYTES);
    const steps: (() => void)[] = [];
    for (let from = 0; from < touched; from += PREFAULT_STEP_BYTES) {
      const to = Math.min(touched, from + PREFAULT_STEP_BYTES);
      steps.push(() => {
        // Bodies lie below the head of the first lap; after it (a wrap or clear) the pages are touched.
        if (this.ringLap !== 0) return;
        const start = Math.max(from, this.ringHead);
        if (start < to) this.ringBuffer().fill(0, start, to);
      });
    }
    return steps;
  }

  /** Drops every entry (counters stay). */
  clear(): void {
    this.entries.clear();
    this.sweep = null;
    this.ringQueue = [];
    this.ringFront = 0;
    this.ringHead = 0;
    this.ringLap++;
    this.heldBytes = 0;
  }

  private drop(hash: number, entry: Entry): void {
    this.entries.delete(hash);
    this.heldBytes -= entry.bytes;
  }

  /** A variant of a held body, copied into the ring after the bodies (Entry.keepVariant). */
  keepVariant(entry: Entry, coding: 'br' | 'gzip', bytes: Uint8Array, etag: string | null): Uint8Array {
    // Still held? (An evicted body can still be compressed for the request that holds it.)
    if (this.entries.get(entry.hash) !== entry || bytes.byteLength > this.ringBytes) return bytes;
    const start = this.allocate(bytes.byteLength);
    // Making room steps over or evicts only the previous lap's items: a body just written or just
    // hit is neither, but a ring this small could still have reached it.
    if (this.entries.get(entry.hash) !== entry) return bytes;
    const ring = this.ring!;
    ring.set(bytes, start);
    const size = bytes.byteLength + (etag?.length ?? 0);
    const item: VariantItem = { entry, coding, start, end: start + bytes.byteLength, lap: this.ringLap, hitsAtWrite: entry.hits, bytes: size };
    entry[coding] = item;
    this.ringQueue.push(item);
    entry.bytes += size;
    this.heldBytes += size;
    this.evictBeyondBudget(entry);
    return ring.subarray(item.start, item.end);
  }

  /** Whether a ring item's bytes are still in use: its entry held, and for a variant, that variant still the entry's. */
  private isLive(item: RingItem): boolean {
    return isVariant(item) ? this.entries.get(item.entry.hash) === item.entry && item.entry[item.coding] === item : this.entries.get(item.hash) === item;
  }

  /** A ring item in the head's way: given a second chance when used since written (true), else evicted (false). */
  private secondChance(item: RingItem): boolean {
    if (isVariant(item)) {
      if (item.entry.hits === item.hitsAtWrite) {
        // Only the variant goes: its body stays, and compresses again when asked.
        const entry = item.entry;
        entry[item.coding] = null;
        entry.forget(item.coding);
        entry.bytes -= item.bytes;
        this.heldBytes -= item.bytes;
        return false;
      }
      item.hitsAtWrite = item.entry.hits;
      return true;
    }
    if (!item.usedInLap) {
      this.drop(item.hash, item);
      this.evictions++;
      return false;
    }
    item.usedInLap = false;
    return true;
  }

  /**
   * Back within the budget, never dropping `keep` (the entry being served): second-chance LRU
   * (CLOCK). The sweep takes entries oldest first (the Map's insertion order); one used since the
   * sweep last passed it goes to the back instead. Each insert evicts only what it must, in
   * amortised O(1): sorting a full cache by age took milliseconds, a stall for every request queued
   * behind it.
   */
  private evictBeyondBudget(keep: Entry): void {
    // At most two passes over the entries: the second finds every entry's second chance spent.
    for (let steps = 2 * this.entries.size + 2; this.heldBytes > this.budgetBytes && steps > 0; steps--) {
      const next = this.nextInSweep();
      if (next === undefined) return;
      const [key, entry] = next;
      if (entry === keep) continue;
      if (entry.referenced) {
        // A second chance: re-inserted at the back (iteration reaches it again after the others).
        entry.referenced = false;
        this.entries.delete(key);
        this.entries.set(key, entry);
        continue;
      }
      this.drop(key, entry);
      this.evictions++;
    }
  }

  /** The ring's size: the budget, up to MAX_RING_BYTES. */
  private get ringBytes(): number {
    return Math.min(this.budgetBytes, MAX_RING_BYTES);
  }

  /** The ring, allocated on first use (an insert or prefaultSteps). */
  private ringBuffer(): Buffer {
    return (this.ring ??= Buffer.allocUnsafeSlow(this.ringBytes));
  }

  /**
   * Where in the ring a body of `length` bytes (≤ the ring's size) goes: evicts what of the
   * previous lap lies in the way, steps over what was used since (see `ring`). Ends within about
   * two laps: an entry stepped over loses its second chance.
   */
  private allocate(length: number): number {
    const ring = this.ringBuffer();
    for (;;) {
      if (this.ringHead + length > ring.length) {
        // Wrap. The previous lap's entries left at the end stay where they are, now the last of
        // this lap (which becomes the previous one).
        while (this.ringFront < this.ringQueue.length && this.ringQueue[this.ringFront]!.lap < this.ringLap) {
          const tail = this.ringQueue[this.ringFront++]!;
          if (!this.isLive(tail)) continue;
          tail.lap = this.ringLap;
          this.ringQueue.push(tail);
        }
        this.ringLap++;
        this.ringHead = 0;
        this.compactRingQueue();
        continue;
      }
      const front = this.ringFront < this.ringQueue.length ? this.ringQueue[this.ringFront]! : undefined;
      if (front === undefined || front.lap === this.ringLap || ringStartOf(front) >= this.ringHead + length) {
        const start = this.ringHead;
        this.ringHead += length;
        return start;
      }
      this.ringFront++;
      // Dropped already (budget, age, replaced; a variant forgotten or made again): its bytes are free.
      if (!this.isLive(front)) continue;
      if (this.secondChance(front)) {
        front.lap = this.ringLap;
        this.ringQueue.push(front);
        this.ringHead = front.end;
      }
    }
  }

  /** Drops the queue's consumed front once it is most of the array. */
  private compactRingQueue(): void {
    if (this.ringFront > 1024 && this.ringFront * 2 > this.ringQueue.length) {
      this.ringQueue = this.ringQueue.slice(this.ringFront);
      this.ringFront = 0;
    }
  }

  /**
   * The sweep's next entry, wrapping around at the end. The sweep is one Map iterator kept across
   * calls: a new iterator per eviction would step over every entry deleted since the Map last
   * compacted, at the front of its storage, each time.
   */
  private nextInSweep(): [number, Entry] | undefined {
    for (let pass = 0; pass < 2; pass++) {
      this.sweep ??= this.entries.entries();
      const next = this.sweep.next();
      if (next.done !== true) return next.value;
      this.sweep = null;
    }
    return undefined;
  }
}
