// Live snapshot swap, main-thread side. A reload reads the configured snapshot directory again
// (through its real path, so a `current` symlink flipped mid-read cannot mix two versions), checks
// it completely off the request path (manifest, every section's size/name/CRC, required sections,
// record counts: loadSnapshotBytes + openStore), then switches the workers in two phases:
// every worker opens a Store over the shared bytes and says so (prepare), and only when all of
// them have does each one switch (commit) — so no worker is left on another version when one
// fails. Reloads are serialised, and requests arriving while one runs collapse into one more run,
// which reads the newest snapshot on disk: two swaps in quick succession end on the newest.
// A snapshot that fails a check is refused with one log line naming the file; the old one keeps
// serving.
import { realpathSync, statSync, type Stats } from 'node:fs';
import { loadSnapshotBytes, manifestPath, type SnapshotBytes } from '../store/load.js';
import { openStore } from '../store/open.js';
import { withSharedStructures } from '../engine/shared.js';
import { collectSoon } from './collect.js';
import type { MainToWorker, StoreSummary, WorkerToMain } from './protocol.js';

export type ReloadStatus = 'swapped' | 'unchanged' | 'refused' | 'unavailable';

export interface ReloadOutcome {
  status: ReloadStatus;
  /** The data version served once the reload is over. */
  dataVersion: string;
  /** Why it was refused (the failing check, naming the file). */
  message?: string;
}

/** What is being served: its summary and what tells two builds apart. */
interface Serving {
  summary: StoreSummary;
  builtAt: string;
}

export interface SnapshotSwapOptions {
  /** The configured snapshot directory (a `current` symlink is followed anew on each reload). */
  snapshotDir: string;
  /** The snapshot served at start (only its identity: holding its bytes here would keep them alive after a swap). */
  initial: StoreSummary & { builtAt: string };
  /** False when the test seam opens its own store: no snapshot bytes to swap. */
  swappable: boolean;
  /** Sends `message` to every worker and collects each one's answer. */
  askAll(message: MainToWorker): Promise<WorkerToMain[]>;
  broadcast(message: MainToWorker): void;
  log(message: string): void;
  /** How often manifest.json is checked for a replacement; null: not watched. */
  watchIntervalMs: number | null;
}

export interface SnapshotSwapper {
  /** Loads, checks and switches to the snapshot now on disk (serialised and coalesced). */
  reload(reason: string): Promise<ReloadOutcome>;
  readonly current: StoreSummary;
  /** Stops watching the snapshot. */
  stop(): void;
}

function summaryOf(bytes: SnapshotBytes): StoreSummary {
  return { dataVersion: bytes.manifest.dataVersion, recordCounts: { ...bytes.manifest.recordCounts } };
}

function describe(summary: StoreSummary): string {
  const counts = Object.entries(summary.recordCounts).map(([entity, count]) => `${count} ${entity}`).join(', ');
  return `dataVersion ${summary.dataVersion}; ${counts}`;
}

export function startSnapshotSwapper(options: SnapshotSwapOptions): SnapshotSwapper {
  const { snapshotDir, log } = options;
  const { builtAt, ...initialSummary } = options.initial;
  let serving: Serving = { summary: initialSummary, builtAt };
  let generation = 0;

  /** Step 1: the new snapshot read and checked completely, or the one-line reason it is refused. */
  function loadChecked(): { bytes: SnapshotBytes } | { refused: string } {
    try {
      const dir = realpathSync(snapshotDir);
      const loaded = loadSnapshotBytes(dir);
      // Record counts against the manifest, relation arrays: the checks a worker would otherwise fail.
      openStore(loaded);
      // The new snapshot's shared structures (engine/shared.ts) travel with its bytes.
      return { bytes: withSharedStructures(loaded, log) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { refused: message.split('\n')[0]! };
    }
  }

  /** This thread's copy of a loaded snapshot (kept or refused) is garbage once a run is over. */
  async function runOnce(reason: string): Promise<ReloadOutcome> {
    try {
      return await loadAndSwitch(reason);
    } finally {
      if (options.swappable) collectSoon(100);
    }
  }

  async function loadAndSwitch(reason: string): Promise<ReloadOutcome> {
    if (!options.swappable) {
      log(`snapshot: reload (${reason}) is not available when the operations module opens its own store`);
      return { status: 'unavailable', dataVersion: serving.summary.dataVersion };
    }
    const loaded = loadChecked();
    if ('refused' in loaded) {
      log(`snapshot: refused (${reason}): ${loaded.refused}; still serving dataVersion ${serving.summary.dataVersion}`);
      return { status: 'refused', dataVersion: serving.summary.dataVersion, message: loaded.refused };
    }
    const { bytes } = loaded;
    if (bytes.manifest.dataVersion === serving.summary.dataVersion && bytes.manifest.builtAt === serving.builtAt) {
      log(`snapshot: ${bytes.dir} unchanged (${reason}); still serving dataVersion ${serving.summary.dataVersion}`);
      return { status: 'unchanged', dataVersion: serving.summary.dataVersion };
    }
    // Step 2: every worker opens the new store beside the old one; step 3: all switch, or none.
    const current = ++generation;
    const answers = await options.askAll({ type: 'snapshot-prepare', generation: current, snapshot: bytes });
    const failed = answers.find((answer) => answer.type !== 'snapshot-prepared');
    if (failed !== undefined) {
      options.broadcast({ type: 'snapshot-abort', generation: current });
      const message = failed.type === 'snapshot-failed' || failed.type === 'fatal' ? failed.message : `a worker answered ${failed.type}`;
      log(`snapshot: refused (${reason}): ${message}; still serving dataVersion ${serving.summary.dataVersion}`);
      return { status: 'refused', dataVersion: serving.summary.dataVersion, message };
    }
    options.broadcast({ type: 'snapshot-commit', generation: current });
    const previous = serving.summary.dataVersion;
    serving = { summary: summaryOf(bytes), builtAt: bytes.manifest.builtAt };
    log(`snapshot: now serving ${bytes.dir} (${describe(serving.summary)}; was ${previous}; ${reason})`);
    return { status: 'swapped', dataVersion: serving.summary.dataVersion };
  }

  // Serialised: one run at a time. Requests arriving before the queued run starts share it.
  let tail: Promise<unknown> = Promise.resolve();
  let queued: Promise<ReloadOutcome> | null = null;
  const reload = (reason: string): Promise<ReloadOutcome> => {
    if (queued !== null) return queued;
    const next = tail.then(() => {
      queued = null;
      return runOnce(reason);
    });
    queued = next;
    tail = next.catch((error: Error) => log(`snapshot: reload failed: ${error.stack ?? error.message}`));
    return next;
  };

  // The snapshot replaced on disk: `geoapi build --out <same dir>` renames a complete new directory
  // into place, or a `current` symlink is pointed at another directory. Either way manifest.json
  // (stat follows the symlink) gets another inode or mtime. While a build moves the old directory
  // aside the file is briefly missing: that is no change; its return is. The first stat is taken
  // here, synchronously: fs.watchFile took its own asynchronously, so a change made before that
  // first poll (a busy machine, a swap right after start) became its baseline and was never seen.
  const manifestFile = manifestPath(snapshotDir);
  const statOf = (): Stats | undefined => statSync(manifestFile, { throwIfNoEntry: false });
  let known = statOf();
  let debounce: NodeJS.Timeout | null = null;
  const poll = (): void => {
    const now = statOf();
    if (now === undefined) return;
    if (known !== undefined && now.ino === known.ino && now.mtimeMs === known.mtimeMs && now.size === known.size) return;
    known = now;
    if (debounce !== null) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = null;
      void reload('manifest.json replaced');
    }, options.watchIntervalMs ?? 0);
    debounce.unref();
  };
  const watcher = options.watchIntervalMs !== null && options.swappable ? setInterval(poll, options.watchIntervalMs) : null;
  watcher?.unref();

  return {
    reload,
    get current() {
      return serving.summary;
    },
    stop() {
      if (debounce !== null) clearTimeout(debounce);
      if (watcher !== null) clearInterval(watcher);
    },
  };
}
