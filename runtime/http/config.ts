// The server's configuration: everything runtime/http/server.ts is started with, as one typed
// object. The CLI reads it once from flags and the environment (runtime/cli/config.ts) and
// passes it down; nothing under runtime/http reads process.env.
import type { QuotaOptions } from '../access/quota/options.js';
import type { OperationSettings } from '../routes/registry.js';

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
  /** Extra key headers (GEOAPI_KEY_HEADER_ALIASES), besides the policy's. */
  keyHeaderAliases: string[];
  /** uWebSockets.js packages tried in order (GEOAPI_UWS_CANDIDATES). */
  uwsCandidates: string[];
  /** Quota counting: off, memory or redis (--quota / GEOAPI_QUOTA, --redis / GEOAPI_REDIS_URL, …). */
  quota: QuotaOptions;
  /** Settings of the operations: postcode cursor secrets. */
  operations: OperationSettings;
  /**
   * Budget in bytes of each thread's one response cache (every operation's rendered bodies, their
   * compressed variants and ETags): --response-cache-mb / GEOAPI_RESPONSE_CACHE_MB, else 128 MiB;
   * 0 turns it off.
   */
  responseCacheBytes: number;
}
