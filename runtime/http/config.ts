// The server's configuration: everything runtime/http/server.ts is started with, as one typed
// object. The CLI reads it once from flags and the environment (runtime/cli/config.ts) and
// passes it down; nothing under runtime/http reads process.env.
import type { CompatMode } from '../access/policy.js';
import type { QuotaOptions } from '../access/quota/options.js';
import type { OperationSettings } from '../routes/registry.js';
import type { CompressionSettings } from './encoding.js';

export interface GeoapiConfig {
  /** Snapshot directory (absolute): --snapshot / GEOAPI_SNAPSHOT. */
  snapshotDir: string;
  /** Key file (absolute): --keys / GEOAPI_KEYS. */
  keysFile: string;
  /** Policy file (absolute): --policy / GEOAPI_POLICY, else data/policy.json. */
  policyFile: string;
  /** --port / GEOAPI_PORT, else 8080; 0 picks a free port. */
  port: number;
  /** --host / GEOAPI_HOST; null: every interface. */
  host: string | null;
  /** --threads / GEOAPI_THREADS, else one per core. */
  threads: number;
  /**
   * --background-nice / GEOAPI_BACKGROUND_NICE, else DEFAULT_BACKGROUND_NICE: how much higher the
   * nice value of V8's platform threads (its compiler and GC helpers) is than the request
   * threads' once the server is ready (background-priority.ts); 0 leaves it.
   */
  backgroundNice: number;
  /**
   * --warm-up-requests / GEOAPI_WARM_UP_REQUESTS, else DEFAULT_WARM_UP_REQUESTS: requests each
   * thread sends through its own pipeline before the server says ready, so that V8 has compiled
   * the request path before real traffic meets it (app.ts soakStep); 0: none.
   */
  warmUpRequests: number;
  /** Extra key headers (GEOAPI_KEY_HEADER_ALIASES), besides the policy's. */
  keyHeaderAliases: string[];
  /** --compat / GEOAPI_COMPAT: 'csc' for the hosted API's clients, 'none'; null: the policy file's `compat` decides. */
  compat: CompatMode | null;
  /** uWebSockets.js packages tried in order (GEOAPI_UWS_CANDIDATES). */
  uwsCandidates: string[];
  /** Quota counting: off, memory or redis (--quota / GEOAPI_QUOTA, --redis / GEOAPI_REDIS_URL, …). */
  quota: QuotaOptions;
  /** Whether a replaced snapshot (manifest.json changed on disk) is swapped in (GEOAPI_SNAPSHOT_WATCH; default on). */
  snapshotWatch: boolean;
  /** Where `geoapi serve` writes its process id for `geoapi reload` (--pid-file / GEOAPI_PID_FILE, else <snapshot dir>.pid). */
  pidFile: string;
  /** Settings of the operations: postcode cursor secrets. */
  operations: OperationSettings;
  /**
   * Budget in bytes of all response caches of the process together (every operation's rendered
   * bodies, their compressed variants and ETags; each worker thread's cache gets an equal share):
   * --response-cache-mb / GEOAPI_RESPONSE_CACHE_MB, else DEFAULT_RESPONSE_CACHE_BYTES; 0 turns it off.
   */
  responseCacheBytes: number;
  /** Whether and how answers are compressed: --compression, --brotli-quality, --gzip-level (and their GEOAPI_ variables); DEFAULT_COMPRESSION. */
  compression: CompressionSettings;
  /**
   * Whether a request thread answering more than its share of the requests closes a keep-alive
   * connection after an answer now and then, so that the client reconnects and the kernel deals the
   * new connection again (runtime/http/rebalance.ts): --rebalance-connections / GEOAPI_REBALANCE_CONNECTIONS, default on.
   */
  rebalanceConnections: boolean;
  /** Serve the interactive console at /console with an in-memory playground key: --console / GEOAPI_CONSOLE=1. */
  console: boolean;
  /** Metrics listener and request logs (issue 14). */
  observability: ObservabilitySettings;
}

export interface ObservabilitySettings {
  /** --metrics-port / GEOAPI_METRICS_PORT: Prometheus metrics on their own listener; null (default): off. */
  metricsPort: number | null;
  /** --metrics-host / GEOAPI_METRICS_HOST, else 127.0.0.1. */
  metricsHost: string;
  /** --access-log / GEOAPI_ACCESS_LOG=1: one log line per answered request (5xx and slow ones are always logged). */
  accessLog: boolean;
  /** --slow-ms / GEOAPI_SLOW_MS, else 100: answers taking at least this long are logged. */
  slowMs: number;
}

/**
 * Requests each thread sends through its pipeline before its first ready, by default: 6,000 in
 * process (app.ts soakStep), then 3,000 over a loopback socket (socket-soak.ts). V8 optimizes a
 * function once it has run enough; the warm-up's few requests per operation leave most of the
 * request path unoptimized, and real traffic then made TurboFan compile ~600 functions in the
 * first seconds after ready (full dataset, 2 threads on 2 cores, the report's mix), its threads
 * taking the cores from the request threads: at 5,000 req/s answers waited up to a second. Sent
 * first, these move most of that compiling before ready (README, Memory: Compiling after ready).
 */
export const DEFAULT_WARM_UP_REQUESTS = 9000;

export const DEFAULT_OBSERVABILITY: ObservabilitySettings = { metricsPort: null, metricsHost: '127.0.0.1', accessLog: false, slowMs: 100 };
