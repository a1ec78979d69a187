// Everything the server is configured with, read once — by the CLI, from its flags and the
// environment — into one typed object that is passed down (main thread → worker init → app →
// the modules that need a value). No other module reads process.env. describeConfig() is what the
// start banner prints of it (never a secret).
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { aliasHeadersFromEnv, COMPAT_MODES, DEFAULT_POLICY_FILE, type CompatMode } from '../access/policy.js';
import { quotaOptionsFrom, type QuotaMode, type QuotaOptions } from '../access/quota/options.js';
import { describeRedisUrl } from '../access/quota/redis-gate.js';
import { DEFAULT_BACKGROUND_NICE } from '../http/background-priority.js';
import { DEFAULT_COMPRESSION, MIN_COMPRESS_LENGTH, type CompressionSettings } from '../http/encoding.js';
import { DEFAULT_RESPONSE_CACHE_BYTES } from '../http/response-cache.js';
import { uwsCandidates } from '../http/uws.js';
import { DEFAULT_OBSERVABILITY, DEFAULT_WARM_UP_REQUESTS, type GeoapiConfig, type ObservabilitySettings } from '../http/config.js';

export type Env = Readonly<Record<string, string | undefined>>;
export type { GeoapiConfig };

/** A configuration problem: the CLI prints the message and the usage (exit code 2). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_PORT = 8080;
const MIB = 1024 * 1024;
/** The variables GEOAPI_RESPONSE_CACHE_MB replaced (one budget for every response cache); still read when it is not set. */
export const LEGACY_CACHE_VARIABLES = ['GEOAPI_BODY_MEMO_MB', 'GEOAPI_POSTCODE_CACHE_MB', 'GEOAPI_POSTCODE_CACHE_ENTRIES'] as const;

function integerSetting(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new ConfigError(`${name}: expected an integer from ${min} to ${max}, found ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * The response cache budget in bytes: --response-cache-mb / GEOAPI_RESPONSE_CACHE_MB (MiB, 0 = off),
 * else from the variables it replaced, read as before: the body memo's MiB (lenient: anything but
 * a positive number is its old default 64) plus the postcode cache's MiB (default 32), or off when
 * GEOAPI_POSTCODE_CACHE_ENTRIES is 0; else DEFAULT_RESPONSE_CACHE_BYTES. One budget for the whole
 * process: each worker thread's cache gets an equal share (runtime/http/server.ts).
 */
function responseCacheBytesFrom(flag: string | undefined, env: Env): number {
  const mib = integerSetting('--response-cache-mb', flag ?? env['GEOAPI_RESPONSE_CACHE_MB'], 0, 1024 * 1024);
  if (mib !== undefined) return mib * MIB;
  if (LEGACY_CACHE_VARIABLES.every((name) => env[name] === undefined)) return DEFAULT_RESPONSE_CACHE_BYTES;
  const whole = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    if (!/^\d+$/.test(raw.trim())) throw new Error(`${name}: expected a whole number, found ${JSON.stringify(raw)}`);
    return Number(raw.trim());
  };
  if (whole('GEOAPI_POSTCODE_CACHE_ENTRIES', 1) === 0) return 0;
  const bodyMemoMb = Number(env['GEOAPI_BODY_MEMO_MB']);
  return ((bodyMemoMb > 0 ? bodyMemoMb : 64) + whole('GEOAPI_POSTCODE_CACHE_MB', 32)) * MIB;
}

function listSetting(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * The configuration of `geoapi serve` from its flags (win) and the environment. Throws
 * ConfigError naming the flag or variable and what was expected.
 */
export function configFrom(args: readonly string[], env: Env): GeoapiConfig {
  const { values } = parseArgs({
    args: [...args],
    options: {
      snapshot: { type: 'string' },
      keys: { type: 'string' },
      port: { type: 'string' },
      threads: { type: 'string' },
      'background-nice': { type: 'string' },
      'warm-up-requests': { type: 'string' },
      policy: { type: 'string' },
      host: { type: 'string' },
      redis: { type: 'string' },
      quota: { type: 'string' },
      compat: { type: 'string' },
      'pid-file': { type: 'string' },
      console: { type: 'boolean' },
      'metrics-port': { type: 'string' },
      'metrics-host': { type: 'string' },
      'access-log': { type: 'boolean' },
      'slow-ms': { type: 'string' },
      'response-cache-mb': { type: 'string' },
      compression: { type: 'string' },
      'rebalance-connections': { type: 'string' },
      'brotli-quality': { type: 'string' },
      'gzip-level': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const snapshotDir = values.snapshot ?? env['GEOAPI_SNAPSHOT'];
  const keysFile = values.keys ?? env['GEOAPI_KEYS'];
  if (!snapshotDir) throw new ConfigError('serve: --snapshot <dir> (or GEOAPI_SNAPSHOT) is required');
  if (!keysFile) throw new ConfigError('serve: --keys <file> (or GEOAPI_KEYS) is required; create one with geoapi keys add --plan <plan> --file <file>');

  const quotaFlags: Partial<QuotaOptions> = {};
  if (values.redis !== undefined) quotaFlags.redisUrl = values.redis;
  if (values.quota !== undefined) quotaFlags.mode = values.quota as QuotaMode;
  let quota: QuotaOptions;
  try {
    quota = quotaOptionsFrom(env, quotaFlags);
  } catch (error) {
    // Worded as when the server checked them at start (exit code 1, not a usage error).
    throw new Error(`quota: ${(error as Error).message}`);
  }
  const compat = compatSetting(values.compat ?? env['GEOAPI_COMPAT']);
  const responseCacheBytes = responseCacheBytesFrom(values['response-cache-mb'], env);

  const cursorSecret = env['GEOAPI_CURSOR_SECRET']?.trim();
  const host = values.host ?? env['GEOAPI_HOST'];
  const snapshotWatch = (env['GEOAPI_SNAPSHOT_WATCH'] ?? 'on').trim().toLowerCase();
  if (!['on', 'off', '1', '0', 'true', 'false'].includes(snapshotWatch)) throw new ConfigError(`GEOAPI_SNAPSHOT_WATCH: expected on or off, found ${JSON.stringify(env['GEOAPI_SNAPSHOT_WATCH'])}`);
  const consoleEnv = env['GEOAPI_CONSOLE'];
  if (consoleEnv !== undefined && !['', '0', '1', 'true', 'false'].includes(consoleEnv)) {
    throw new ConfigError(`GEOAPI_CONSOLE: expected 1, true, 0 or false, found ${JSON.stringify(consoleEnv)}`);
  }
  return {
    snapshotDir: resolve(snapshotDir),
    keysFile: resolve(keysFile),
    policyFile: resolve((values.policy ?? env['GEOAPI_POLICY']) || DEFAULT_POLICY_FILE),
    port: integerSetting('--port', values.port ?? env['GEOAPI_PORT'], 0, 65535) ?? DEFAULT_PORT,
    host: host ? host : null,
    threads: integerSetting('--threads', values.threads ?? env['GEOAPI_THREADS'], 1, 256) ?? availableParallelism(),
    backgroundNice: integerSetting('--background-nice', values['background-nice'] ?? env['GEOAPI_BACKGROUND_NICE'], 0, 19) ?? DEFAULT_BACKGROUND_NICE,
    warmUpRequests: integerSetting('--warm-up-requests', values['warm-up-requests'] ?? env['GEOAPI_WARM_UP_REQUESTS'], 0, 1_000_000) ?? DEFAULT_WARM_UP_REQUESTS,
    keyHeaderAliases: aliasHeadersFromEnv(env),
    compat,
    uwsCandidates: uwsCandidates(env),
    quota,
    snapshotWatch: snapshotWatch === 'on' || snapshotWatch === '1' || snapshotWatch === 'true',
    pidFile: resolve((values['pid-file'] ?? env['GEOAPI_PID_FILE']) || pidFileFor(snapshotDir)),
    operations: {
      cursorSecret: cursorSecret ? cursorSecret : null,
      previousCursorSecrets: listSetting(env['GEOAPI_CURSOR_SECRET_PREVIOUS']),
    },
    console: values.console === true || consoleEnv === '1' || consoleEnv === 'true',
    observability: observabilityFrom(values, env),
    responseCacheBytes,
    compression: compressionFrom(values, env),
    rebalanceConnections: onOffSetting('--rebalance-connections', values['rebalance-connections'] ?? env['GEOAPI_REBALANCE_CONNECTIONS'], true),
  };
}

/** An on|off setting (also 1/0, true/false); `fallback` when not given. */
function onOffSetting(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (value === 'on' || value === '1' || value === 'true') return true;
  if (value === 'off' || value === '0' || value === 'false') return false;
  throw new ConfigError(`${name}: expected on or off, found ${JSON.stringify(raw)}`);
}

/** --compression on|off, --brotli-quality 0–11, --gzip-level 1–9 (and their GEOAPI_ variables); DEFAULT_COMPRESSION otherwise. */
function compressionFrom(values: { compression?: string | undefined; 'brotli-quality'?: string | undefined; 'gzip-level'?: string | undefined }, env: Env): CompressionSettings {
  const raw = values.compression ?? env['GEOAPI_COMPRESSION'];
  const mode = raw === undefined || raw.trim() === '' ? 'on' : raw.trim().toLowerCase();
  if (mode !== 'on' && mode !== 'off') throw new ConfigError(`--compression: expected on or off, found ${JSON.stringify(raw)}`);
  return {
    enabled: mode === 'on',
    brotliQuality: integerSetting('--brotli-quality', values['brotli-quality'] ?? env['GEOAPI_BROTLI_QUALITY'], 0, 11) ?? DEFAULT_COMPRESSION.brotliQuality,
    gzipLevel: integerSetting('--gzip-level', values['gzip-level'] ?? env['GEOAPI_GZIP_LEVEL'], 1, 9) ?? DEFAULT_COMPRESSION.gzipLevel,
  };
}

/** Metrics listener and request logs: --metrics-port/--metrics-host, --access-log, --slow-ms (and their GEOAPI_ variables). */
function observabilityFrom(values: { 'metrics-port'?: string | undefined; 'metrics-host'?: string | undefined; 'access-log'?: boolean | undefined; 'slow-ms'?: string | undefined }, env: Env): ObservabilitySettings {
  const accessLogEnv = env['GEOAPI_ACCESS_LOG'];
  if (accessLogEnv !== undefined && !['', '0', '1', 'true', 'false'].includes(accessLogEnv)) {
    throw new ConfigError(`GEOAPI_ACCESS_LOG: expected 1 or 0 (true or false), found ${JSON.stringify(accessLogEnv)}`);
  }
  const metricsHost = values['metrics-host'] ?? env['GEOAPI_METRICS_HOST'];
  return {
    metricsPort: integerSetting('--metrics-port', values['metrics-port'] ?? env['GEOAPI_METRICS_PORT'], 0, 65535) ?? null,
    metricsHost: metricsHost ? metricsHost : DEFAULT_OBSERVABILITY.metricsHost,
    accessLog: values['access-log'] ?? (accessLogEnv === '1' || accessLogEnv === 'true'),
    slowMs: integerSetting('--slow-ms', values['slow-ms'] ?? env['GEOAPI_SLOW_MS'], 0, 3_600_000) ?? DEFAULT_OBSERVABILITY.slowMs,
  };
}

/** --compat / GEOAPI_COMPAT: csc or none (any case); absent or empty: null (the policy file decides). */
function compatSetting(value: string | undefined): CompatMode | null {
  if (value === undefined || value.trim() === '') return null;
  const mode = value.trim().toLowerCase();
  if (!(COMPAT_MODES as readonly string[]).includes(mode)) throw new ConfigError(`--compat: expected one of ${COMPAT_MODES.join(', ')}, found ${JSON.stringify(value)}`);
  return mode as CompatMode;
}

/** The compat mode in words, for the start banner. */
export function describeCompat(mode: CompatMode): string {
  return mode === 'csc'
    ? 'csc (clients of the hosted API: X-CSCAPI-KEY accepted, X-CSC-* headers beside X-GEOAPI-*, flat 429 fields)'
    : 'none (geoapi names only; --compat csc for clients of the hosted API)';
}

/**
 * The default pid file of a server of `snapshotDir`: beside the directory, not in it (a build
 * into the same --out replaces the directory). `geoapi reload` finds the server through it.
 */
export function pidFileFor(snapshotDir: string): string {
  return `${resolve(snapshotDir)}.pid`;
}

/** What quotas do, in words: "off", "in memory, saved to … every 1000 ms", "in Redis at host:port". */
export function describeQuota(quota: QuotaOptions): string {
  switch (quota.mode) {
    case 'off':
      return 'off';
    case 'memory':
      return quota.stateFile ? `in memory, saved to ${quota.stateFile} every ${quota.persistIntervalMs} ms` : 'in memory, not saved';
    case 'redis':
      return `in Redis at ${describeRedisUrl(quota.redisUrl ?? '')} (${quota.replicas} replica${quota.replicas === 1 ? '' : 's'} expected)`;
  }
}

const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 100) / 100} MiB`;

/** The configuration as banner lines, minus secrets (cursor secrets and Redis credentials never appear). */
export function describeConfig(config: GeoapiConfig): string[] {
  const { operations } = config;
  const previous = operations.previousCursorSecrets.length;
  return [
    `snapshot reloads: SIGHUP, geoapi reload (pid file ${config.pidFile})${config.snapshotWatch ? ', and when manifest.json is replaced' : ''}`,
    `keys: ${config.keysFile}; quotas: ${describeQuota(config.quota)}`,
    `policy: ${config.policyFile}; key header aliases: ${config.keyHeaderAliases.length > 0 ? config.keyHeaderAliases.join(', ') : 'none'}`,
    `postcode cursors: ${operations.cursorSecret === null ? 'random secret per process (GEOAPI_CURSOR_SECRET not set)' : 'GEOAPI_CURSOR_SECRET set'}${previous > 0 ? `, ${previous} previous secret${previous === 1 ? '' : 's'} accepted` : ''}`,
    `console: ${config.console ? '/console on, with an in-memory playground key (shared Playground quota)' : 'off (--console turns it on)'}; OpenAPI document at /openapi.json`,
    `metrics: ${config.observability.metricsPort === null ? 'off (--metrics-port)' : `on ${config.observability.metricsHost}:${config.observability.metricsPort}`}; access log: ${config.observability.accessLog ? 'on' : 'off'}; slow requests logged from ${config.observability.slowMs} ms`,
    `response cache: ${config.responseCacheBytes === 0 ? 'off' : `${mib(config.responseCacheBytes)} for the process (${mib(Math.floor(config.responseCacheBytes / config.threads))} per thread)`}`,
    `connection rebalancing: ${config.threads < 2 ? 'none (one request thread)' : config.rebalanceConnections ? 'on (a thread answering more than its share closes a keep-alive connection now and then)' : 'off'}`,
    `compression: ${config.compression.enabled ? `br quality ${config.compression.brotliQuality}, gzip level ${config.compression.gzipLevel}, answers from ${MIN_COMPRESS_LENGTH} bytes` : 'off (answers go out uncompressed)'}`,
  ];
}
