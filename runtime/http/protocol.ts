// Messages between the main thread (runtime/http/server.ts) and worker threads (worker.ts).
import type { KeySnapshot } from '../access/key-index.js';
import type { UwsBuild } from './uws.js';

export interface WorkerInit {
  threadIndex: number;
  threadCount: number;
  host: string | null;
  /** Snapshot bytes from loadSnapshotBytes (SharedArrayBuffers are shared, not copied). */
  snapshot: unknown;
  /** Module URLs. */
  openStoreModule: string;
  operationsModule: string;
  quotaModule: string | null;
  /** What the quota module's createQuotaShared returned in the main thread. */
  quotaShared: unknown;
  policyText: string;
  policySource: string;
  aliasHeaders: string[];
  keys: KeySnapshot;
  uwsCandidates: string[];
  fixedNowMs: number | null;
}

export type MainToWorker =
  | { type: 'listen'; port: number }
  | { type: 'keys'; keys: KeySnapshot }
  | { type: 'policy'; text: string; source: string }
  | { type: 'stop' };

export interface StoreSummary {
  dataVersion: string;
  recordCounts: Record<string, number>;
}

export type WorkerToMain =
  | { type: 'loaded'; build: UwsBuild; store: StoreSummary; operations: number; skippedKeys: string[] }
  | { type: 'listening'; port: number }
  | { type: 'listen-failed'; port: number }
  | { type: 'fatal'; message: string }
  | { type: 'log'; message: string };
