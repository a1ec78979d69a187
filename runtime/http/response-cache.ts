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
import { crc32 } from 'node:zlib';
import { HashSlots, RecordQueue } from './cache-tables.js';
import { compress, DEFAULT_COMPRESSION, type CompressionSettings, type Encoding } from './encoding.js';

/** Default budget of all the response caches of a process together, split evenly between the worker threads (GEOAPI_RESPONSE_CACHE_MB; README: memory). */
export const DEFAULT_RESPONSE_CACHE_BYTES = 32 * 1024 * 1024;

/** Node ≥ 20.12's one-shot digest; older 20.x lines fall back to a Hash object. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/**
 * SHA-1 of `text` (as UTF-8), base64url (27 characters), quoted: the form of every strong ETag.
 * One-shot, not a Hash object: each Hash is a native object that V8 tracks with a weak global
 * handle until it is collected, and those handles are processed in every scavenge. Measured
 * (1 worker, the report's mix): one per new answer, ~230 per scavenge, 0.4 of its ~1.3 ms pause.
 */
function sha1Tag(text: string): string {
  return `"${oneShotHash !== undefined ? oneShotHash('sha1', text, 'base64url') : crypto.createHash('sha1').update(text).digest('base64url')}"`;
}

/** A strong ETag of text parts (a variant's: the identity body's tag and the coding): SHA-1 of the parts joined by NUL. */
export function strongEtag(...parts: readonly string[]): string {
  return sha1Tag(parts.join('\u0000'));
}

/**
 * The strong ETag of `body`, answered for response key `key` from data version `dataVersion`:
 * SHA-1 of the key, the data version, the body's length in bytes and its CRC-32 (8 hex digits
 * each) — not of the body itself, which cost 0.65 µs per KiB (the search answers' 5–8 KiB, a
 * state's cities up to 288 KiB), against 0.22 for the CRC-32 (zlib's, same machine). A strong
 * tag must change whenever the bytes do (RFC 9110 §8.8.3): a key's body changes with the data
 * version, which the SHA-1 covers, and within one only for answers with an age limit (timezones:
 * the clock) or after an upgrade that renders differently. The length and CRC-32 tell those
 * apart: a CRC-32 sees every change confined to 32 consecutive bits and misses another with
 * probability 2^-32. `byteLength` is the body's length when the caller has it.
 */
export function bodyEtag(key: string, dataVersion: string, body: string | Uint8Array, byteLength?: number): string {
  const length = byteLength ?? (typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength);
  const crc = typeof body === 'string' ? textCrc32(body, length) : crc32(body);
  return sha1Tag(`${key}\u0000${dataVersion}\u0000${hex32(length)}${hex32(crc)}`);
}

/** "00" … "ff", made once (hex32). */
const HEX_BYTES = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, '0'));

/**
 * A uint32 (a length below 4 GiB, a CRC) as 8 hex digits, from strings made once. Not String() or
 * `${}`: V8 keeps a number it makes into text in its number-string cache long enough for the
 * string to be promoted, two per new answer (runtime/text/number-text.ts says more).
 */
function hex32(value: number): string {
  return HEX_BYTES[value >>> 24]! + HEX_BYTES[(value >>> 16) & 255]! + HEX_BYTES[(value >>> 8) & 255]! + HEX_BYTES[value & 255]!;
}

/** Text up to this many UTF-8 bytes is encoded into a reused buffer for its CRC-32 (textCrc32). */
const TEXT_SCRATCH_BYTES = 64 * 1024;
const textScratch = Buffer.allocUnsafeSlow(TEXT_SCRATCH_BYTES);

/**
 * The CRC-32 of `text`'s UTF-8 bytes (`length` of them). zlib's crc32 takes a string too, but
 * encodes non-ASCII text at ~1 µs per KiB, 3–4× the cost of writing it into a buffer and taking
 * the CRC of that.
 */
function textCrc32(text: string, length: number): number {
  if (length > TEXT_SCRATCH_BYTES) return crc32(Buffer.from(text, 'utf8'));
  textScratch.write(text, 0, length, 'utf8');
  return crc32(textScratch.subarray(0, length));
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

export interface Variant {
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

  /**
   * Takes a new variant's bytes and returns the bytes to send from now on: a cached body copies
   * them into its cache's ring (and counts them); a one-off answer keeps them as they are.
   */
  protected keepVariant(_coding: 'br' | 'gzip', bytes: Uint8Array, _etag: string | null): Uint8Array {
    return bytes;
  }

  /** A variant made before, by an earlier request for a cached body (in its ring), or undefined. */
  protected heldVariant(_coding: 'br' | 'gzip'): Variant | undefined {
    return undefined;
  }

  // A process compresses with one setting, so a variant made once stands for every later request.
  private variant(encoding: 'br' | 'gzip', compression: CompressionSettings): Variant {
    let variant = (encoding === 'br' ? this.brVariant : this.gzipVariant) ?? this.heldVariant(encoding);
    if (variant === undefined) {
      const etag = this.etag === null ? null : variantEtag(this.etag, encoding);
      const bytes = compress(this.identity, encoding, compression);
      variant = { bytes: this.keepVariant(encoding, bytes, etag), etag };
    }
    if (encoding === 'br') this.brVariant = variant;
    else this.gzipVariant = variant;
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


const utf8 = new TextEncoder();

/**
 * Writes the bytes a key is kept and compared by into `scratch` (room for 3 × key.length + 1) and
 * returns their count: its UTF-8, written in one call; a key that is not well-formed UTF-16 (a
 * lone surrogate, which UTF-8 cannot carry) is 0xff then its code units, UTF-16LE (0xff never
 * occurs in UTF-8: no two keys share bytes). Hashing and comparing these bytes took a third of the
 * time of reading the key's characters one by one (a request target is a concatenation, which
 * charCodeAt walks through at every character).
 */
function encodeKey(key: string, scratch: Uint8Array): number {
  let n = utf8.encodeInto(key, scratch).written;
  if (n !== key.length && !(key as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    scratch[0] = 0xff;
    n = 1;
    for (let i = 0; i < key.length; i++) {
      const unit = key.charCodeAt(i);
      scratch[n++] = unit & 0xff;
      scratch[n++] = unit >>> 8;
    }
  }
  return n;
}

/** FNV-1a over bytes[0, n), 30 bits: a key's hash in the cache's table (keys of one hash are told apart by their bytes in the ring). */
function hashBytes(bytes: Uint8Array, n: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < n; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash & 0x3fffffff;
}

/** The hash of a response key in the cache's table (encodeKey, hashBytes). */
export function keyHash(key: string): number {
  const scratch = new Uint8Array(3 * key.length + 1);
  return hashBytes(scratch, encodeKey(key, scratch));
}

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

/** Bookkeeping per entry beyond its bytes (its slot, its records): keeps many tiny answers bounded too. */
const ENTRY_OVERHEAD_BYTES = 200;

/** What a ring record stands for: an entry's ETag, key and body, or one of its variants. */
const KIND_BODY = 0;
const KIND_BR = 1;
const KIND_GZIP = 2;
const kindOf = (coding: 'br' | 'gzip'): number => (coding === 'br' ? KIND_BR : KIND_GZIP);

/** Slot flags. */
const REFERENCED = 1; // used since the eviction sweep last passed it
const USED_IN_LAP = 2; // used since the ring's head last passed it
/**
 * Distinct operation header objects a cache keeps with its entries (keepsHeaders): the Cache-Control
 * values, and list pages' headers (routes/reference/common.ts shares at most 4,096). headerSet is a Uint16Array.
 */
const MAX_HEADER_SETS = 8192;

/** A slot with no entry. */
const FREE = -1;

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

/**
 * A cached answer, as one request sees it: made per lookup (young, collected at the next
 * scavenge), reading its bytes, ETag and variants from its cache's slot while that slot still
 * holds the entry of `serial`.
 */
export class CachedBody extends PreparedBody {
  constructor(
    private readonly cache: ResponseCache,
    private readonly slot: number,
    private readonly serial: number,
    private readonly etagText: string,
    private readonly bytes: Uint8Array,
    /** The operation headers kept with the entry (ResponseCache.insert's `headers`). */
    readonly headers: Readonly<Record<string, string>> | undefined,
  ) {
    super(null, null);
  }

  override get etag(): string {
    return this.etagText;
  }

  override get identity(): Uint8Array {
    return this.bytes;
  }

  override get length(): number {
    return this.bytes.byteLength;
  }

  protected override heldVariant(coding: 'br' | 'gzip'): Variant | undefined {
    return this.cache.heldVariant(this.slot, this.serial, coding);
  }

  protected override keepVariant(coding: 'br' | 'gzip', bytes: Uint8Array, etag: string | null): Uint8Array {
    return this.cache.keepVariant(this.slot, this.serial, coding, bytes, etag);
  }
}

/**
 * A worker's response cache. Its entries are slots in typed arrays (no object per answer: see
 * runtime/http/cache-tables.ts), found through a hash table of their keys' hashes. The ring holds,
 * per entry, [itemStart, keyStart) its ETag (Latin-1), [keyStart, start) its key (encodeKey's
 * bytes, compared on every lookup), [start, end) its UTF-8 body; and per
 * variant made, [start, bodyStart) its ETag and [bodyStart, end) its compressed bytes.
 */
export class ResponseCache {
  /** Entries' age limits count from here. */
  private readonly epochMs = Date.now();
  private heldBytes = 0;

  // Per slot. A slot's serial changes whenever its entry does (records and bodies handed out
  // check it); itemSerial numbers every ring item, so a record names one item exactly.
  private slotHash = new Int32Array(0);
  private slotSerial = new Int32Array(0);
  private itemStart = new Int32Array(0);
  private keyStart = new Int32Array(0);
  private bodyStart = new Int32Array(0);
  private bodyEnd = new Int32Array(0);
  private lap = new Int32Array(0);
  private entryBytes = new Int32Array(0);
  private hitCount = new Int32Array(0);
  private flags = new Uint8Array(0);
  /** The entry's operation headers: an index into headerSets (0: none). */
  private headerSet = new Uint16Array(0);
  /** When it stops being served, in ms after epochMs; Infinity: never (most answers). */
  private expiresAfterEpochMs = new Float64Array(0);
  // Per slot and coding (index 2 × slot + (br 0, gzip 1)); variantSerial 0: none held.
  private variantSerial = new Int32Array(0);
  private variantStart = new Int32Array(0);
  private variantBodyStart = new Int32Array(0);
  private variantEnd = new Int32Array(0);
  private variantLap = new Int32Array(0);
  /** The entry's hit count when written or last stepped over: a hit since then earns a second chance. */
  private variantHitsAtWrite = new Int32Array(0);
  private freeSlots: number[] = [];
  private nextSerial = 1;
  /**
   * Operation headers kept with entries, each a frozen object shared by many answers (a
   * Cache-Control value), listed once: an entry holds its index, not an object of its own.
   */
  private readonly headerSets: (Readonly<Record<string, string>> | undefined)[] = [undefined];
  private readonly headerSetIndex = new Map<object, number>();

  private readonly table = new HashSlots();
  private readonly keyMatches = (slot: number, key: string): boolean => this.keyAt(slot, key);
  /**
   * The last key encoded (encodeKey), its bytes [0, encodedLength) of keyScratch and their hash: a
   * miss looks its key up for get, then again for insert.
   */
  private encodedKey = '';
  private encodedLength = 0;
  private encodedHash = hashBytes(new Uint8Array(0), 0);
  private keyScratch = new Uint8Array(1024);

  /**
   * Cached bodies live in one ring buffer, allocated once, as views into it: an ArrayBuffer per
   * body made V8 count every miss as external memory and start a full collection about every
   * 25 MB of them (about twice a second under the report's mix). The head writes each new item
   * after the last; an entry of the previous lap in its way is evicted, or, when used since it
   * was written, kept in place and stepped over (a second chance). Compressed variants are
   * written at the head too, when first asked for; one in the way goes alone, its body stays.
   * `ringQueue` holds the items in ring order: those of the previous lap (ahead of the head),
   * then this lap's.
   */
  private ring: Buffer | null = null;
  private ringHead = 0;
  private ringLap = 0;
  private readonly ringQueue = new RecordQueue();
  /**
   * The eviction sweep's order: entries oldest first, one used since the sweep last passed it
   * going to the back instead (second-chance LRU, CLOCK). Records of entries dropped otherwise
   * are skipped when reached.
   */
  private readonly sweepQueue = new RecordQueue();
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
    return this.table.size;
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
      entries: this.table.size,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      expirations: this.expirations,
      notKept: this.notKept,
    };
  }

  /** Whether `key` is held (counts nothing; an entry past its age limit still counts as held). */
  has(key: string): boolean {
    return this.slotOf(key, this.hashOf(key)) >= 0;
  }

  /** The prepared body for `key` if held and not older than its age limit (counts a hit, or a miss unless `countMiss` is false). */
  get(key: string, nowMs: number, countMiss = true): CachedBody | undefined {
    const slot = this.slotOf(key, this.hashOf(key));
    if (slot < 0) {
      if (countMiss) this.misses++;
      return undefined;
    }
    if (this.expiresAfterEpochMs[slot]! <= nowMs - this.epochMs) {
      this.drop(slot);
      this.expirations++;
      if (countMiss) this.misses++;
      return undefined;
    }
    this.flags[slot]! |= REFERENCED | USED_IN_LAP;
    this.hitCount[slot]!++;
    this.hits++;
    return this.bodyOf(slot);
  }

  /** Counts a miss that get() was told not to (a lookup whose answer turned out to be kept under another key). */
  countMiss(): void {
    this.misses++;
  }

  /**
   * Whether insert can keep `headers` with an entry: none, or a frozen object (shared by many
   * answers) while fewer than MAX_HEADER_SETS are listed.
   */
  keepsHeaders(headers: Readonly<Record<string, string>> | undefined): boolean {
    return headers === undefined || (Object.isFrozen(headers) && (this.headerSetIndex.has(headers) || this.headerSets.length < MAX_HEADER_SETS));
  }

  /**
   * Prepares `body` (bytes and ETag, computed once here) and keeps it under `key` until
   * `expiresAtMs`. The ETag is that of `etagKey`'s answer (default `key`): an answer kept under its
   * request target (runtime/http/app.ts, targetKey) has the ETag of its response key. `headers`
   * (keepsHeaders) come back with each hit (CachedBody.headers).
   */
  insert(key: string, body: string | Uint8Array, expiresAtMs: number = Infinity, etagKey: string = key, headers?: Readonly<Record<string, string>>): PreparedBody {
    // The same bytes (and so the same ETag) whether the handler rendered text or UTF-8 bytes.
    // `body` may be borrowed (a renderer's reused buffer): it is copied before this returns.
    const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
    const etag = bodyEtag(etagKey, this.dataVersion, body, length);
    const keyBytes = this.encode(key);
    const itemBytes = etag.length + keyBytes + length;
    const size = itemBytes + ENTRY_OVERHEAD_BYTES;
    if (size > this.budgetBytes || itemBytes > this.ringBytes) {
      this.notKept++;
      return new PreparedBody(typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body), etag);
    }
    const hash = this.hashOf(key);
    const old = this.slotOf(key, hash);
    if (old >= 0) this.drop(old);
    const itemStart = this.allocate(itemBytes);
    const ring = this.ring!;
    const keyStart = itemStart + ring.write(etag, itemStart, etag.length, 'latin1');
    // keyScratch still holds `key`'s bytes: dropping and evicting entries encode no key.
    const keyScratch = this.keyScratch;
    for (let i = 0; i < keyBytes; i++) ring[keyStart + i] = keyScratch[i]!;
    const start = keyStart + keyBytes;
    if (typeof body === 'string') ring.write(body, start, length, 'utf8');
    else ring.set(body, start);
    const slot = this.newSlot();
    const serial = this.newSerial();
    this.slotHash[slot] = hash;
    this.slotSerial[slot] = serial;
    this.itemStart[slot] = itemStart;
    this.keyStart[slot] = keyStart;
    this.bodyStart[slot] = start;
    this.bodyEnd[slot] = start + length;
    this.lap[slot] = this.ringLap;
    this.entryBytes[slot] = size;
    this.hitCount[slot] = 0;
    this.flags[slot] = 0;
    this.headerSet[slot] = this.headerSetOf(headers);
    this.expiresAfterEpochMs[slot] = expiresAtMs - this.epochMs;
    this.variantSerial[2 * slot] = 0;
    this.variantSerial[2 * slot + 1] = 0;
    this.table.add(hash, slot);
    this.ringQueue.push(slot, serial, KIND_BODY);
    this.sweepQueue.push(slot, serial, KIND_BODY);
    this.heldBytes += size;
    this.evictBeyondBudget(slot);
    return new CachedBody(this, slot, serial, etag, this.view(start, start + length), headers);
  }

  /** The index of `headers` in headerSets, listed on first use (0: none, or more than keepsHeaders allows). */
  private headerSetOf(headers: Readonly<Record<string, string>> | undefined): number {
    if (headers === undefined || !this.keepsHeaders(headers)) return 0;
    let index = this.headerSetIndex.get(headers);
    if (index === undefined) {
      index = this.headerSets.push(headers) - 1;
      this.headerSetIndex.set(headers, index);
    }
    return index;
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
    this.table.clear();
    this.slotHash.fill(FREE);
    this.freeSlots = [];
    for (let slot = this.slotHash.length - 1; slot >= 0; slot--) this.freeSlots.push(slot);
    this.ringQueue.clear();
    this.sweepQueue.clear();
    this.ringHead = 0;
    this.ringLap++;
    this.heldBytes = 0;
  }

  /** A variant of the entry in `slot` (if it is still that of `serial`) made by an earlier request. */
  heldVariant(slot: number, serial: number, coding: 'br' | 'gzip'): Variant | undefined {
    const v = 2 * slot + kindOf(coding) - 1;
    if (!this.holds(slot, serial) || this.variantSerial[v] === 0) return undefined;
    return { bytes: this.view(this.variantBodyStart[v]!, this.variantEnd[v]!), etag: this.latin1(this.variantStart[v]!, this.variantBodyStart[v]!) };
  }

  /** A new variant of a held body (`slot` still that of `serial`), copied into the ring after the bodies. */
  keepVariant(slot: number, serial: number, coding: 'br' | 'gzip', bytes: Uint8Array, etag: string | null): Uint8Array {
    // Still held? (An evicted body can still be compressed for the request that holds it.)
    const etagBytes = etag?.length ?? 0;
    if (!this.holds(slot, serial) || etagBytes + bytes.byteLength > this.ringBytes) return bytes;
    const start = this.allocate(etagBytes + bytes.byteLength);
    // Making room steps over or evicts only the previous lap's items: a body just written or just
    // hit is neither, but a ring this small could still have reached it.
    if (!this.holds(slot, serial)) return bytes;
    const ring = this.ring!;
    if (etag !== null) ring.write(etag, start, etagBytes, 'latin1');
    const bodyStart = start + etagBytes;
    ring.set(bytes, bodyStart);
    const kind = kindOf(coding);
    const v = 2 * slot + kind - 1;
    const itemSerial = this.newSerial();
    const size = etagBytes + bytes.byteLength;
    this.variantSerial[v] = itemSerial;
    this.variantStart[v] = start;
    this.variantBodyStart[v] = bodyStart;
    this.variantEnd[v] = bodyStart + bytes.byteLength;
    this.variantLap[v] = this.ringLap;
    this.variantHitsAtWrite[v] = this.hitCount[slot]!;
    this.ringQueue.push(slot, itemSerial, kind);
    this.entryBytes[slot]! += size;
    this.heldBytes += size;
    this.evictBeyondBudget(slot);
    return this.view(bodyStart, bodyStart + bytes.byteLength);
  }

  /** A new item serial: int32, never 0 (a variant slot's "none"), wrapping after 2^32 items. */
  private newSerial(): number {
    const serial = this.nextSerial;
    this.nextSerial = (serial + 1) | 0 || 1;
    return serial;
  }

  private hashOf(key: string): number {
    this.encode(key);
    return this.encodedHash;
  }

  /** Encodes `key` into keyScratch (unless it is the last key encoded); returns its byte count. */
  private encode(key: string): number {
    if (key !== this.encodedKey) {
      if (this.keyScratch.length < 3 * key.length + 1) this.keyScratch = new Uint8Array(Math.max(2 * this.keyScratch.length, 3 * key.length + 1));
      this.encodedLength = encodeKey(key, this.keyScratch);
      this.encodedHash = hashBytes(this.keyScratch, this.encodedLength);
      this.encodedKey = key;
    }
    return this.encodedLength;
  }

  /** The slot holding `key` (whose hash is `hash`), or -1. */
  private slotOf(key: string, hash: number): number {
    return this.table.find(hash, key, this.keyMatches);
  }

  /** Whether the key bytes of the entry in `slot` are those of `key`. */
  private keyAt(slot: number, key: string): boolean {
    const n = this.encode(key);
    const from = this.keyStart[slot]!;
    if (this.bodyStart[slot]! - from !== n) return false;
    const ring = this.ring!;
    const keyScratch = this.keyScratch;
    for (let i = 0; i < n; i++) if (keyScratch[i] !== ring[from + i]) return false;
    return true;
  }

  private bodyOf(slot: number): CachedBody {
    return new CachedBody(this, slot, this.slotSerial[slot]!, this.latin1(this.itemStart[slot]!, this.keyStart[slot]!), this.view(this.bodyStart[slot]!, this.bodyEnd[slot]!), this.headerSets[this.headerSet[slot]!]);
  }

  // Bytes of the ring as a view and as Latin-1 text. A plain Uint8Array view and latin1Slice:
  // Buffer's subarray and toString check their arguments and build a Buffer, ~45 ns of a hit's
  // ~370 (in process, one key held among 20,000).
  private view(start: number, end: number): Uint8Array {
    const ring = this.ring!;
    return new Uint8Array(ring.buffer, ring.byteOffset + start, end - start);
  }

  private latin1(start: number, end: number): string {
    return (this.ring! as unknown as { latin1Slice(start: number, end: number): string }).latin1Slice(start, end);
  }

  /** Whether `slot` still holds the entry of `serial`. */
  private holds(slot: number, serial: number): boolean {
    return this.slotHash[slot] !== FREE && this.slotSerial[slot] === serial;
  }

  private newSlot(): number {
    if (this.freeSlots.length === 0) this.grow();
    return this.freeSlots.pop()!;
  }

  /** Doubles the slot arrays (rare: they stay at the most entries held at once, rounded up). */
  private grow(): void {
    const previous = this.slotHash.length;
    const capacity = Math.max(1024, previous * 2);
    const int32 = (old: Int32Array, size: number): Int32Array<ArrayBuffer> => {
      const grown = new Int32Array(size);
      grown.set(old);
      return grown;
    };
    this.slotHash = int32(this.slotHash, capacity).fill(FREE, previous);
    this.slotSerial = int32(this.slotSerial, capacity);
    this.itemStart = int32(this.itemStart, capacity);
    this.keyStart = int32(this.keyStart, capacity);
    this.bodyStart = int32(this.bodyStart, capacity);
    this.bodyEnd = int32(this.bodyEnd, capacity);
    this.lap = int32(this.lap, capacity);
    this.entryBytes = int32(this.entryBytes, capacity);
    this.hitCount = int32(this.hitCount, capacity);
    const flags = new Uint8Array(capacity);
    flags.set(this.flags);
    this.flags = flags;
    const headerSet = new Uint16Array(capacity);
    headerSet.set(this.headerSet);
    this.headerSet = headerSet;
    const expires = new Float64Array(capacity);
    expires.set(this.expiresAfterEpochMs);
    this.expiresAfterEpochMs = expires;
    this.variantSerial = int32(this.variantSerial, 2 * capacity);
    this.variantStart = int32(this.variantStart, 2 * capacity);
    this.variantBodyStart = int32(this.variantBodyStart, 2 * capacity);
    this.variantEnd = int32(this.variantEnd, 2 * capacity);
    this.variantLap = int32(this.variantLap, 2 * capacity);
    this.variantHitsAtWrite = int32(this.variantHitsAtWrite, 2 * capacity);
    for (let slot = capacity - 1; slot >= previous; slot--) this.freeSlots.push(slot);
  }

  /** Drops the entry in `slot` (its records are skipped when reached). */
  private drop(slot: number): void {
    this.table.remove(this.slotHash[slot]!, slot);
    this.slotHash[slot] = FREE;
    this.freeSlots.push(slot);
    this.heldBytes -= this.entryBytes[slot]!;
  }

  /** Whether a ring record's bytes are still in use: its entry held, and for a variant, that variant still the entry's. */
  private isLive(slot: number, serial: number, kind: number): boolean {
    if (kind === KIND_BODY) return this.holds(slot, serial);
    return this.slotHash[slot] !== FREE && this.variantSerial[2 * slot + kind - 1] === serial;
  }

  /** The ring record of an item in the head's way: given a second chance when used since written (true), else dropped (false). */
  private secondChance(slot: number, kind: number): boolean {
    if (kind !== KIND_BODY) {
      const v = 2 * slot + kind - 1;
      if (this.hitCount[slot] === this.variantHitsAtWrite[v]) {
        // Only the variant goes: its body stays, and compresses again when asked.
        // Its bytes, ETag included, as keepVariant counted them.
        const size = this.variantEnd[v]! - this.variantStart[v]!;
        this.variantSerial[v] = 0;
        this.entryBytes[slot]! -= size;
        this.heldBytes -= size;
        return false;
      }
      this.variantHitsAtWrite[v] = this.hitCount[slot]!;
      return true;
    }
    if ((this.flags[slot]! & USED_IN_LAP) === 0) {
      this.drop(slot);
      this.evictions++;
      return false;
    }
    this.flags[slot]! &= ~USED_IN_LAP;
    return true;
  }

  /** Where a live ring record's item begins and ends in the ring, and its lap. */
  private itemStartOf(slot: number, kind: number): number {
    return kind === KIND_BODY ? this.itemStart[slot]! : this.variantStart[2 * slot + kind - 1]!;
  }

  private itemEndOf(slot: number, kind: number): number {
    return kind === KIND_BODY ? this.bodyEnd[slot]! : this.variantEnd[2 * slot + kind - 1]!;
  }

  private lapOf(slot: number, kind: number): number {
    return kind === KIND_BODY ? this.lap[slot]! : this.variantLap[2 * slot + kind - 1]!;
  }

  private setLap(slot: number, kind: number, lap: number): void {
    if (kind === KIND_BODY) this.lap[slot] = lap;
    else this.variantLap[2 * slot + kind - 1] = lap;
  }

  /**
   * Back within the budget, never dropping `keep` (the entry being served): second-chance LRU
   * (CLOCK) over `sweepQueue`. Each insert evicts only what it must, in amortised O(1): sorting a
   * full cache by age took milliseconds, a stall for every request queued behind it.
   */
  private evictBeyondBudget(keep: number): void {
    const queue = this.sweepQueue;
    // At most two passes over the entries: the second finds every entry's second chance spent.
    for (let steps = 2 * this.table.size + 2; this.heldBytes > this.budgetBytes && steps > 0 && queue.length > 0; ) {
      const slot = queue.frontSlot;
      const serial = queue.frontSerial;
      queue.shift();
      if (!this.holds(slot, serial)) continue; // dropped otherwise: nothing to step over
      steps--;
      if (slot === keep) {
        queue.push(slot, serial, KIND_BODY);
      } else if ((this.flags[slot]! & REFERENCED) !== 0) {
        this.flags[slot]! &= ~REFERENCED;
        queue.push(slot, serial, KIND_BODY);
      } else {
        this.drop(slot);
        this.evictions++;
      }
    }
    // Records of entries dropped by the ring, by age or by replacement wait in the queue until the
    // sweep reaches them; when they are most of it, they go at once.
    if (queue.length > 2 * this.table.size + 1024) queue.filter((slot, serial) => this.holds(slot, serial));
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
   * Where in the ring an item of `length` bytes (≤ the ring's size) goes: evicts what of the
   * previous lap lies in the way, steps over what was used since (see `ring`). Ends within about
   * two laps: an item stepped over loses its second chance.
   */
  private allocate(length: number): number {
    const ring = this.ringBuffer();
    const queue = this.ringQueue;
    for (;;) {
      if (this.ringHead + length > ring.length) {
        // Wrap. The previous lap's items left at the end stay where they are, now the last of
        // this lap (which becomes the previous one).
        for (let n = queue.length; n > 0; n--) {
          const slot = queue.frontSlot;
          const serial = queue.frontSerial;
          const kind = queue.frontKind;
          if (this.isLive(slot, serial, kind) && this.lapOf(slot, kind) >= this.ringLap) break;
          queue.shift();
          if (!this.isLive(slot, serial, kind)) continue;
          this.setLap(slot, kind, this.ringLap);
          queue.push(slot, serial, kind);
        }
        this.ringLap++;
        this.ringHead = 0;
        continue;
      }
      if (queue.length === 0) return this.take(length);
      const slot = queue.frontSlot;
      const serial = queue.frontSerial;
      const kind = queue.frontKind;
      // Dropped already (budget, age, replaced; a variant dropped or made again): its bytes are free.
      if (!this.isLive(slot, serial, kind)) {
        queue.shift();
        continue;
      }
      if (this.lapOf(slot, kind) === this.ringLap || this.itemStartOf(slot, kind) >= this.ringHead + length) return this.take(length);
      queue.shift();
      if (this.secondChance(slot, kind)) {
        this.setLap(slot, kind, this.ringLap);
        queue.push(slot, serial, kind);
        this.ringHead = this.itemEndOf(slot, kind);
      }
    }
  }

  private take(length: number): number {
    const start = this.ringHead;
    this.ringHead += length;
    return start;
  }
}

/** Entries exerciseResponseCache inserts: past the 512 that make a table rebuild, and many laps of its ring. */
const EXERCISE_ENTRIES = 3000;
/** Its cache's budget: ~1,000 of its entries, so that most are evicted or stepped over. */
const EXERCISE_BUDGET_BYTES = 512 * 1024;

/**
 * Runs a throwaway cache through what a thread's own cache does only once real traffic fills it,
 * which the warm-up's small cache never did: its table rebuilding, keys that are not ASCII,
 * bodies rendered as text, entries past their age limit, second chances and evictions. Methods
 * keep V8's feedback per function, not per cache, so the thread's cache then runs optimized code
 * that has seen these paths: without it the first real load deoptimized insert, add (the table),
 * keyAt and evictBeyondBudget in each thread (--trace-deopt; the report's mix from ready).
 * Returns what its cache counted (tests).
 */
export function exerciseResponseCache(dataVersion: string): ResponseCacheStats {
  const cache = new ResponseCache(EXERCISE_BUDGET_BYTES, dataVersion);
  const nowMs = Date.now();
  const bytes = Buffer.alloc(300, 0x61);
  const headers = Object.freeze({ 'Cache-Control': 'public, max-age=60' });
  const query = new Map<string, string>();
  let expiring = '';
  for (let i = 0; i < EXERCISE_ENTRIES; i++) {
    query.set('q', i % 3 === 0 ? `Ba\u010d${i}` : `Bac${i}`);
    const key = responseKey({ operation: 'exercise', params: [String(i % 7)], query, tier: 'full', countryTier: 'full', honoured: '' });
    if (cache.get(key, nowMs) !== undefined) continue;
    // Every third as an answer kept under its request target is (runtime/http/app.ts, targetKey):
    // under another key than its ETag's, with shared operation headers.
    const held = i % 3 === 1 ? cache.insert(`target${i}`, bytes, Infinity, key, i % 2 === 0 ? headers : undefined) : cache.insert(key, i % 2 === 0 ? `{"i":${i}}` : bytes, i % 5 === 0 ? nowMs + 1 : Infinity);
    if (held.etag === null || held.length === 0) throw new Error('response cache exercise: an answer was kept without its ETag or body');
    if (i % 5 === 0) expiring = key;
    // A hit: the entry earns a second chance when the sweep or the ring's head reaches it.
    if (i % 4 === 0) cache.get(key, nowMs);
    if (i % 50 === 0 && expiring !== '') cache.get(expiring, nowMs + 2);
  }
  // Answers replaced under their key leave their records in the sweep's queue, which is then
  // filtered (more than once: each pass brings its own callback).
  for (let i = 0; i < EXERCISE_ENTRIES; i++) cache.insert(`replaced${i % 16}`, bytes);
  return cache.stats();
}
