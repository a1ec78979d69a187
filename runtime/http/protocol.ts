// Messages between the main thread (runtime/http/server.ts) and worker threads (worker.ts), and
// the one module seam tests use.
import type { KeySnapshot } from '../access/key-index.js';
import type { CompatMode } from '../access/policy.js';
import type { QuotaShared } from '../access/quota/index.js';
import type { OperationSettings } from '../routes/registry.js';
import type { Operation } from '../routes/types.js';
import type { SnapshotBytes } from '../store/load.js';
import type { Store } from '../store/types.js';
import type { ConsoleSettings } from './docs.js';
import type { CompressionSettings } from './encoding.js';
import type { ObserveSettings, MetricJson } from './observe.js';
import type { UwsBuild } from './uws.js';

/**
 * The one seam for tests (ServerOptions.operationsModule): a module that replaces the operation
 * registry, exporting `operations` or `allOperations()`, and optionally `openStore(snapshotDir)`
 * to answer from a store of its own instead of loading a snapshot (HTTP-layer tests without data,
 * test/http/fixtures/test-operations.ts).
 */
export interface OperationsModule {
  operations?: readonly Operation[];
  allOperations?(): Operation[];
  openStore?(snapshotDir: string): Store;
}

export interface WorkerInit {
  threadIndex: number;
  threadCount: number;
  host: string | null;
  snapshotDir: string;
  /** URL of the test seam (OperationsModule), or null for the operation registry. */
  operationsModule: string | null;
  /** The operations' settings, with the cursor secret the main thread drew when none was configured. */
  operationSettings: OperationSettings & { cursorSecret: string };
  /** Budget of this thread's response cache, in bytes (0: off): its share of the process's one budget (GeoapiConfig.responseCacheBytes / threads). */
  responseCacheBytes: number;
  /** GeoapiConfig.compression. */
  compression: CompressionSettings;
  /** GeoapiConfig.warmUpRequests: sent through the thread's pipeline before its first ready. */
  warmUpRequests: number;
  /** Every thread's count of answers, one shared slot each (rebalance.ts); null: connections are not rebalanced. */
  answerCounts: Int32Array | null;
  policyText: string;
  policySource: string;
  aliasHeaders: string[];
  /** --compat / GEOAPI_COMPAT over the policy file's `compat` (null: the file decides). */
  compat: CompatMode | null;
  keys: KeySnapshot;
  uwsCandidates: string[];
  fixedNowMs: number | null;
  /** The console's settings (its playground key) when --console is on, else null. */
  console: ConsoleSettings | null;
  /** Request counters on (metrics listener configured), access log, slow-request threshold. */
  observe: ObserveSettings;
}

/**
 * What a worker waits for after loading its code: the main thread reads the snapshot meanwhile
 * (workers start first, so that their code loads while it does).
 */
export interface WorkerStart {
  type: 'start';
  /** Snapshot bytes from loadSnapshotBytes (SharedArrayBuffers are shared, not copied); null when the operations module opens its own store. */
  snapshot: SnapshotBytes | null;
  /** What createQuotaShared returned in the main thread; null when quotas are off. */
  quota: QuotaShared | null;
}

export type MainToWorker =
  | WorkerStart
  | { type: 'listen'; port: number }
  | { type: 'keys'; keys: KeySnapshot }
  | { type: 'policy'; text: string; source: string }
  // Live snapshot swap (snapshot-swap.ts): open a store over these bytes beside the current one,
  // then switch to it (commit) or forget it (abort).
  | { type: 'snapshot-prepare'; generation: number; snapshot: SnapshotBytes }
  | { type: 'snapshot-commit'; generation: number }
  | { type: 'snapshot-abort'; generation: number }
  | { type: 'stop' }
  | { type: 'metrics'; id: number }
  /** Every thread has finished preparing its first store: /readyz may answer ready. */
  | { type: 'warm' }
  /**
   * After every thread listens: the structures the main thread built once for all of them from the
   * first snapshot (engine/shared.ts; null when that failed). A thread prepares its first store then.
   */
  | { type: 'derived'; derived: Record<string, SharedArrayBuffer> | null };

export interface StoreSummary {
  dataVersion: string;
  recordCounts: Record<string, number>;
}

export type WorkerToMain =
  | { type: 'loaded'; build: UwsBuild; store: StoreSummary; operations: number; skippedKeys: string[] }
  | { type: 'listening'; port: number }
  | { type: 'listen-failed'; port: number }
  /** This thread has run its store's preparation steps (at once with the test seam, which has none), sending `warmUpRequests` through its pipeline (the soak). */
  | { type: 'warmed'; ms: number; warmUpRequests: number }
  | { type: 'snapshot-prepared'; generation: number }
  | { type: 'snapshot-failed'; generation: number; message: string }
  | { type: 'fatal'; message: string }
  | { type: 'log'; message: string }
  /** A finished JSON log line (a request event), written by the main thread as is. */
  | { type: 'log-line'; line: string }
  | { type: 'metrics'; id: number; metrics: MetricJson[] };
