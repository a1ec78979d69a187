// Quota counters in Redis, so any number of replicas enforce one quota. One Lua script checks
// both limits and increments both windows atomically (Redis runs a script alone):
//   quota:{key:abc}:d:2026-11-22   requests of that UTC day
//   quota:{key:abc}:m:2026-11      requests of that UTC month
// The braces are a Redis Cluster hash tag: a bucket's two keys always live on one node. Each key
// gets EXPIREAT one day after its window ends when it is created, so Redis forgets old windows.
//
// Batching (`batch`): 'none' sends one EVALSHA per request (ioredis still writes commands issued
// in one tick together); 'script' gathers the consumes of one event-loop turn into one EVALSHA of
// a script that loops over them (still exact: the script runs alone, in arrival order). bench/quota
// measures both.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { dayLabel, monthLabel, type QuotaWindows } from './windows.js';

/**
 * ioredis, required when a counter is made: loading it takes ~40–65 ms per thread, which every
 * start paid, with quotas in memory or off too.
 */
function loadRedisClient(): typeof Redis {
  return (createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis }).Redis;
}

const CONSUME_LUA = `
local day = tonumber(redis.call('GET', KEYS[1]) or '0')
local month = tonumber(redis.call('GET', KEYS[2]) or '0')
if month >= tonumber(ARGV[2]) then return {2, day, month} end
if day >= tonumber(ARGV[1]) then return {1, day, month} end
day = redis.call('INCR', KEYS[1])
if day == 1 then redis.call('EXPIREAT', KEYS[1], ARGV[3]) end
month = redis.call('INCR', KEYS[2])
if month == 1 then redis.call('EXPIREAT', KEYS[2], ARGV[4]) end
return {0, day, month}
`;

// The same steps for n buckets: KEYS = day1, month1, day2, month2 …; ARGV = 4 values per bucket.
const CONSUME_BATCH_LUA = `
local out = {}
for i = 1, #KEYS / 2 do
  local dk, mk, a = KEYS[2 * i - 1], KEYS[2 * i], 4 * (i - 1)
  local day = tonumber(redis.call('GET', dk) or '0')
  local month = tonumber(redis.call('GET', mk) or '0')
  local outcome = 0
  if month >= tonumber(ARGV[a + 2]) then outcome = 2
  elseif day >= tonumber(ARGV[a + 1]) then outcome = 1
  else
    day = redis.call('INCR', dk)
    if day == 1 then redis.call('EXPIREAT', dk, ARGV[a + 3]) end
    month = redis.call('INCR', mk)
    if month == 1 then redis.call('EXPIREAT', mk, ARGV[a + 4]) end
  end
  out[3 * i - 2], out[3 * i - 1], out[3 * i] = outcome, day, month
end
return out
`;

/** [outcome (0 allowed, 1 daily exceeded, 2 monthly exceeded), day count, month count]. */
export type RedisCounts = [number, number, number];

export type RedisBatchMode = 'none' | 'script';

export interface RedisCounterOptions {
  url: string;
  /** Prefix of every key (default `quota:`). */
  keyPrefix: string;
  /** A command without a reply after this long fails (the caller falls back). */
  timeoutMs: number;
  batch: RedisBatchMode;
  /** Most buckets in one batched script call. */
  maxBatch?: number;
  /** Called on connection errors (throttled by the caller). */
  onError?: (error: Error) => void;
  onReady?: () => void;
}

interface ScriptedRedis extends Redis {
  geoapiQuota(dayKey: string, monthKey: string, daily: number, monthly: number, dayExpire: number, monthExpire: number): Promise<RedisCounts>;
  geoapiQuotaBatch(numKeys: number, ...keysAndArgs: Array<string | number>): Promise<number[]>;
}

interface Pending {
  dayKey: string;
  monthKey: string;
  args: [number, number, number, number];
  resolve: (counts: RedisCounts) => void;
  reject: (error: Error) => void;
}

const EXPIRE_GRACE_S = 86_400;

export class RedisQuotaCounter {
  readonly client: ScriptedRedis;
  /** Set on the first connection: until then, callers may wait for it (start-up). */
  everReady = false;
  private pending: Pending[] = [];
  private flushScheduled = false;
  private readonly maxBatch: number;
  private labelDayId = -1;
  private labelDay = '';
  private labelMonthId = -1;
  private labelMonth = '';

  constructor(private readonly options: RedisCounterOptions) {
    this.maxBatch = options.maxBatch ?? 512;
    // unix:///path/redis.sock: a Redis on the same host, without the TCP stack on both sides.
    const unixPath = options.url.startsWith('unix://') ? decodeURIComponent(options.url.slice('unix://'.length)) : null;
    const connection = {
      // Fail fast instead of queueing while disconnected: the caller answers from its fallback.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.timeoutMs,
      connectTimeout: Math.max(1000, options.timeoutMs),
      // Reconnect forever, backing off to one attempt per second.
      retryStrategy: (times: number) => Math.min(times * 100, 1000),
      scripts: {
        geoapiQuota: { lua: CONSUME_LUA, numberOfKeys: 2 },
        geoapiQuotaBatch: { lua: CONSUME_BATCH_LUA },
      },
    };
    const RedisClient = loadRedisClient();
    this.client = (unixPath === null ? new RedisClient(options.url, connection) : new RedisClient({ ...connection, path: unixPath })) as ScriptedRedis;
    this.client.on('error', (error: Error) => options.onError?.(error));
    this.client.on('ready', () => {
      this.everReady = true;
      options.onReady?.();
    });
  }

  /** True while connected: requests go to Redis; otherwise the caller decides locally. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** Resolves true once connected, false after `timeoutMs` without a connection. */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.client.off('ready', onReady);
        resolve(false);
      }, timeoutMs);
      const onReady = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.client.once('ready', onReady);
    });
  }

  /** Key names of a bucket's windows. */
  keysOf(bucketKey: string, windows: QuotaWindows): [string, string] {
    if (windows.dayId !== this.labelDayId) {
      this.labelDayId = windows.dayId;
      this.labelDay = dayLabel(windows.dayId);
    }
    if (windows.monthId !== this.labelMonthId) {
      this.labelMonthId = windows.monthId;
      this.labelMonth = monthLabel(windows.monthId);
    }
    const prefix = `${this.options.keyPrefix}{${bucketKey}}`;
    return [`${prefix}:d:${this.labelDay}`, `${prefix}:m:${this.labelMonth}`];
  }

  consume(bucketKey: string, windows: QuotaWindows, dailyLimit: number, monthlyLimit: number): Promise<RedisCounts> {
    const [dayKey, monthKey] = this.keysOf(bucketKey, windows);
    const dayExpire = Math.floor(windows.dayResetMs / 1000) + EXPIRE_GRACE_S;
    const monthExpire = Math.floor(windows.monthResetMs / 1000) + EXPIRE_GRACE_S;
    if (this.options.batch === 'none') {
      return this.client.geoapiQuota(dayKey, monthKey, dailyLimit, monthlyLimit, dayExpire, monthExpire);
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ dayKey, monthKey, args: [dailyLimit, monthlyLimit, dayExpire, monthExpire], resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate runs after the poll phase: every request read in this loop turn is in.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Current [day, month] counts of a bucket, without counting. */
  async peek(bucketKey: string, windows: QuotaWindows): Promise<[number, number]> {
    const [day, month] = await this.client.mget(...this.keysOf(bucketKey, windows));
    return [Number(day ?? 0), Number(month ?? 0)];
  }

  private flush(): void {
    this.flushScheduled = false;
    const all = this.pending;
    this.pending = [];
    for (let start = 0; start < all.length; start += this.maxBatch) {
      const batch = all.slice(start, start + this.maxBatch);
      if (batch.length === 1) {
        const p = batch[0]!;
        this.client.geoapiQuota(p.dayKey, p.monthKey, ...p.args).then(p.resolve, p.reject);
        continue;
      }
      const keys: string[] = [];
      const args: number[] = [];
      for (const p of batch) {
        keys.push(p.dayKey, p.monthKey);
        args.push(...p.args);
      }
      this.client.geoapiQuotaBatch(keys.length, ...keys, ...args).then(
        (flat) => {
          for (let i = 0; i < batch.length; i++) batch[i]!.resolve([flat[3 * i]!, flat[3 * i + 1]!, flat[3 * i + 2]!]);
        },
        (error: Error) => {
          for (const p of batch) p.reject(error);
        },
      );
    }
  }

  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
