// Prepared bodies for the default lists (countries, states of a country, cities of a state or
// country, all states …) and details (country, state): serialised once per (operation, path,
// projection — which encodes tier and translations flag) and kept as UTF-8 bytes, with gzip and
// brotli variants compressed on first demand. Requests with fields/sort/q/locale never come here.
// Bounded: once the bytes held (body + variants) exceed the budget (default 64 MiB,
// GEOAPI_BODY_MEMO_MB), the least recently used entries are dropped down to 7/8 of it.
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Store } from '../../store/types.js';
import type { RequestContext, Reply } from '../types.js';

/** Bodies smaller than this are sent as they are (compression gains too little). */
export const COMPRESS_MIN_BYTES = 1024;

/** Budget of memos made from now on (configuration: GEOAPI_BODY_MEMO_MB, runtime/config.ts). */
let defaultBudgetBytes = 64 * 1024 * 1024;

/** Sets the budget of the memos made from now on (each worker, before its first request). */
export function setBodyMemoBudget(bytes: number): void {
  defaultBudgetBytes = bytes;
}

interface Entry {
  body: Uint8Array;
  gzip?: Uint8Array;
  br?: Uint8Array;
  /** Memo clock at the last use: a hit only writes this (no Map reordering per request). */
  usedAt: number;
}

/** An eviction frees down to this share of the budget, so that a full memo does not sort on every insert. */
const EVICT_TO = 7 / 8;

export class BodyMemo {
  private readonly entries = new Map<string, Entry>();
  private heldBytes = 0;
  private clock = 0;

  constructor(readonly budgetBytes: number = defaultBudgetBytes) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** The entry for `key`, built by `serialise` on a miss; marked as most recently used. */
  entry(key: string, serialise: () => string | Uint8Array): Entry {
    let entry = this.entries.get(key);
    if (entry) {
      entry.usedAt = ++this.clock;
      return entry;
    }
    const body = serialise();
    entry = { body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body, usedAt: ++this.clock };
    this.entries.set(key, entry);
    this.grow(entry.body.byteLength);
    return entry;
  }

  /** Adds the compressed variants the client accepts (lazily, once per entry). */
  variants(entry: Entry, acceptEncoding: string | undefined): Pick<Reply, 'gzip' | 'br'> {
    if (!acceptEncoding || entry.body.byteLength < COMPRESS_MIN_BYTES) return {};
    const out: Pick<Reply, 'gzip' | 'br'> = {};
    if (/\bbr\b/.test(acceptEncoding)) {
      if (!entry.br) {
        // Quality 5: a fraction of quality 11's time on multi-MB bodies, most of its ratio.
        entry.br = brotliCompressSync(entry.body, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: entry.body.byteLength },
        });
        this.grow(entry.br.byteLength);
      }
      out.br = entry.br;
    }
    if (/\bgzip\b/.test(acceptEncoding)) {
      if (!entry.gzip) {
        entry.gzip = gzipSync(entry.body, { level: 6 });
        this.grow(entry.gzip.byteLength);
      }
      out.gzip = entry.gzip;
    }
    return out;
  }

  private grow(bytes: number): void {
    this.heldBytes += bytes;
    if (this.heldBytes <= this.budgetBytes || this.entries.size <= 1) return;
    // Evict the least recently used, but never the entry just touched (the most recent one).
    const byAge = [...this.entries].sort((a, b) => a[1].usedAt - b[1].usedAt);
    byAge.pop();
    const target = this.budgetBytes * EVICT_TO;
    for (const [key, oldest] of byAge) {
      if (this.heldBytes <= target) break;
      this.entries.delete(key);
      this.heldBytes -= oldest.body.byteLength + (oldest.gzip?.byteLength ?? 0) + (oldest.br?.byteLength ?? 0);
    }
  }
}

const memos = new WeakMap<Store, BodyMemo>();

/** The memo of one snapshot (a new snapshot starts empty). */
export function bodyMemo(store: Store): BodyMemo {
  let memo = memos.get(store);
  if (!memo) {
    memo = new BodyMemo();
    memos.set(store, memo);
  }
  return memo;
}

/** A 200 reply from the memo: prepared bytes plus the variants the client accepts. */
export function memoizedReply(ctx: RequestContext, key: string, serialise: () => string | Uint8Array, headers: Record<string, string>): Reply {
  const memo = bodyMemo(ctx.store);
  const entry = memo.entry(key, serialise);
  // Small bodies (details) never get variants: skip the header lookup and the spread.
  if (entry.body.byteLength < COMPRESS_MIN_BYTES) return { status: 200, body: entry.body, headers };
  return { status: 200, body: entry.body, headers, ...memo.variants(entry, ctx.header('accept-encoding')) };
}
