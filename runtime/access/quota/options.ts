// Quota settings: from the environment, overridden by command-line flags (`--redis <url>` sets
// `redisUrl`). Every value is checked; errors say what was expected and what was found.
import path from 'node:path';
import type { RedisBatchMode } from './redis-counter.js';

export type QuotaMode = 'off' | 'memory' | 'redis';

export interface QuotaOptions {
  /** off: count nothing; memory: this process's counters (+ state file); redis: shared counters. */
  mode: QuotaMode;
  /** Memory mode: where counters are persisted (null: not persisted). */
  stateFile: string | null;
  /** Memory mode: milliseconds between state-file writes (the most a crash loses). */
  persistIntervalMs: number;
  /** Buckets the in-memory table holds (rounded up to a power of two; 96 bytes each). */
  capacity: number;
  redisUrl: string | null;
  redisKeyPrefix: string;
  /** A Redis reply slower than this is treated as an outage for that request. */
  redisTimeoutMs: number;
  redisBatch: RedisBatchMode;
  /** Requests arriving before the first Redis connection wait this long for it. */
  redisConnectWaitMs: number;
  /** Expected replica count: during a Redis outage each replica allows 1/replicas of each quota. */
  replicas: number;
  /** An ongoing problem (Redis down, state file unwritable) is logged at most once per interval. */
  logIntervalMs: number;
}

export const DEFAULT_QUOTA_OPTIONS: Readonly<QuotaOptions> = Object.freeze({
  mode: 'memory',
  stateFile: path.resolve('data/quota-state.json'),
  persistIntervalMs: 1000,
  capacity: 65_536,
  redisUrl: null,
  redisKeyPrefix: 'quota:',
  redisTimeoutMs: 250,
  redisBatch: 'script',
  redisConnectWaitMs: 3000,
  replicas: 1,
  logIntervalMs: 30_000,
});

function integer(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max) throw new Error(`${name}: expected an integer from ${min} to ${max}, found ${JSON.stringify(text)}`);
  return n;
}

/**
 * Reads GEOAPI_QUOTA (off|memory|redis), GEOAPI_REDIS_URL, GEOAPI_QUOTA_STATE_FILE ('' or
 * 'none' = no file), GEOAPI_QUOTA_PERSIST_MS, GEOAPI_QUOTA_SLOTS, GEOAPI_REDIS_PREFIX,
 * GEOAPI_REDIS_TIMEOUT_MS, GEOAPI_REDIS_BATCH (script|none), GEOAPI_REDIS_CONNECT_WAIT_MS,
 * GEOAPI_REPLICAS and GEOAPI_QUOTA_LOG_INTERVAL_MS; `overrides` (command-line flags) win.
 * A Redis URL without an explicit mode selects redis mode.
 */
export function quotaOptionsFrom(env: Readonly<Record<string, string | undefined>>, overrides: Partial<QuotaOptions> = {}): QuotaOptions {
  const options: QuotaOptions = { ...DEFAULT_QUOTA_OPTIONS };
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined ? undefined : value.trim();
  };
  const redisUrl = read('GEOAPI_REDIS_URL');
  if (redisUrl) options.redisUrl = redisUrl;
  const stateFile = read('GEOAPI_QUOTA_STATE_FILE');
  if (stateFile !== undefined) options.stateFile = stateFile === '' || stateFile === 'none' ? null : path.resolve(stateFile);
  const ints: Array<[string, keyof QuotaOptions, number, number]> = [
    ['GEOAPI_QUOTA_PERSIST_MS', 'persistIntervalMs', 10, 3_600_000],
    ['GEOAPI_QUOTA_SLOTS', 'capacity', 8, 1 << 24],
    ['GEOAPI_REDIS_TIMEOUT_MS', 'redisTimeoutMs', 1, 60_000],
    ['GEOAPI_REDIS_CONNECT_WAIT_MS', 'redisConnectWaitMs', 0, 600_000],
    ['GEOAPI_REPLICAS', 'replicas', 1, 10_000],
    ['GEOAPI_QUOTA_LOG_INTERVAL_MS', 'logIntervalMs', 0, 86_400_000],
  ];
  for (const [name, key, min, max] of ints) {
    const value = read(name);
    if (value !== undefined && value !== '') (options[key] as number) = integer(name, value, min, max);
  }
  const prefix = read('GEOAPI_REDIS_PREFIX');
  if (prefix) options.redisKeyPrefix = prefix;
  const batch = read('GEOAPI_REDIS_BATCH');
  if (batch) {
    if (batch !== 'script' && batch !== 'none') throw new Error(`GEOAPI_REDIS_BATCH: expected "script" or "none", found ${JSON.stringify(batch)}`);
    options.redisBatch = batch;
  }
  const mode = read('GEOAPI_QUOTA');
  const explicitMode = overrides.mode ?? (mode ? mode : undefined);
  Object.assign(options, withoutUndefined(overrides));
  if (explicitMode !== undefined) {
    if (explicitMode !== 'off' && explicitMode !== 'memory' && explicitMode !== 'redis') {
      throw new Error(`GEOAPI_QUOTA: expected "off", "memory" or "redis", found ${JSON.stringify(explicitMode)}`);
    }
    options.mode = explicitMode;
  } else if (options.redisUrl) {
    options.mode = 'redis';
  }
  if (options.mode === 'redis') {
    if (!options.redisUrl) throw new Error('quota mode "redis": expected a Redis URL (--redis <url> or GEOAPI_REDIS_URL), found none');
    if (!/^(rediss?:\/\/|unix:\/\/\/)/.test(options.redisUrl)) {
      throw new Error(`Redis URL: expected redis://host:port, rediss://… or unix:///path/to/redis.sock, found ${JSON.stringify(options.redisUrl)}`);
    }
  }
  return options;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
