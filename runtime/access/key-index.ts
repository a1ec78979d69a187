// Per-request key lookup in a worker: HMAC the presented key once, one Map lookup. A small bounded
// cache maps recently presented key strings to their entry so repeat callers skip the HMAC, and
// the last key presented is compared first, so a caller sending one key over and over skips the
// cache's hashing of a new string too.
import { createHmac, type Hmac } from 'node:crypto';
import type { Caller } from '../contract/index.js';
import { callerFor } from './gate.js';
import { MAX_KEY_LENGTH, type KeyFile } from './keys.js';
import type { Policy } from './policy.js';

/** What the main thread posts to workers: no names, nothing but what lookup needs. */
export interface KeySnapshot {
  secret: string;
  entries: { id: string; hash: string; plan: string; expiresMs: number | null; revoked: boolean }[];
}

export function keySnapshotOf(keyFile: KeyFile): KeySnapshot {
  return {
    secret: keyFile.secret,
    entries: keyFile.keys.map((record) => ({
      id: record.id,
      hash: record.hash,
      plan: record.plan,
      expiresMs: record.expires === null ? null : Date.parse(record.expires),
      revoked: record.revoked,
    })),
  };
}

/** Id of the console's in-memory playground key in the key snapshot (never in a key file). */
export const CONSOLE_KEY_ID = 'console-playground';

/** `snapshot` plus one key held in memory only (the console's playground key), hashed with the file's secret. */
export function withMemoryKey(snapshot: KeySnapshot, key: { id: string; plan: string; plaintext: string }): KeySnapshot {
  const hash = createHmac('sha256', Buffer.from(snapshot.secret, 'hex')).update(key.plaintext, 'utf8').digest('hex');
  return { ...snapshot, entries: [...snapshot.entries.filter((entry) => entry.id !== key.id), { id: key.id, hash, plan: key.plan, expiresMs: null, revoked: false }] };
}

interface Entry {
  caller: Caller;
  /** Infinity when the key does not expire. */
  expiresMs: number;
}

const CACHE_LIMIT = 4096;
/**
 * The last HMAC made, held on purpose. HMACs are made only for keys not yet in the cache, so most
 * full collections would find none alive and free their hidden classes; V8 then throws away the
 * code of lookup and of the pipeline it is inlined into (runtime/http/keepsakes.ts says why).
 */
let lastHmac: Hmac | null = null;
const NOT_FOUND: Entry = { caller: null as unknown as Caller, expiresMs: -Infinity };

export class KeyIndex {
  private readonly byHash = new Map<string, Entry>();
  private readonly cache = new Map<string, Entry>();
  /**
   * The last key presented and its entry. Each request's key is a new string: a Map lookup hashes
   * all of it (~600 instructions for a geoapi key), comparing it with the last one reads it once
   * (a repeated answer under callgrind, fixture snapshot: 27,972 → 27,088 instructions).
   */
  private lastPresented = '';
  private lastEntry = NOT_FOUND;
  private readonly secret: Buffer;
  /** Keys skipped because the policy does not know their plan (reported by the loader). */
  readonly skipped: string[] = [];

  constructor(snapshot: KeySnapshot, policy: Policy) {
    this.secret = Buffer.from(snapshot.secret, 'hex');
    for (const entry of snapshot.entries) {
      if (entry.revoked) continue;
      const plan = policy.plans[entry.plan as keyof Policy['plans']];
      if (!plan) {
        this.skipped.push(entry.id);
        continue;
      }
      this.byHash.set(entry.hash, { caller: callerFor(entry.id, plan.name, policy), expiresMs: entry.expiresMs ?? Infinity });
    }
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The caller for a presented key, or null (unknown, revoked or expired: one answer for all). */
  lookup(presented: string, nowMs: number): Caller | null {
    if (presented.length === 0 || presented.length > MAX_KEY_LENGTH) return null;
    if (presented === this.lastPresented) return nowMs < this.lastEntry.expiresMs ? this.lastEntry.caller : null;
    let entry = this.cache.get(presented);
    if (entry === undefined) {
      const hmac = createHmac('sha256', this.secret);
      lastHmac = hmac;
      entry = this.byHash.get(hmac.update(presented, 'utf8').digest('hex')) ?? NOT_FOUND;
      // Bounded without bookkeeping: start over when full (a flood of random keys costs one HMAC each anyway).
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(presented, entry);
    }
    this.lastPresented = presented;
    this.lastEntry = entry;
    return nowMs < entry.expiresMs ? entry.caller : null;
  }
}
