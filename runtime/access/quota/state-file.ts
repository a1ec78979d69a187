// Persistence of the embedded counters: the main thread writes the table to a JSON file every
// `intervalMs` (when something changed) and on graceful shutdown, and loads it at start. A write
// goes to a temporary file that is fsynced and renamed over the old one, so a crash leaves either
// the previous or the new state, never a torn file. A SIGKILL therefore loses at most the
// requests counted since the last completed write: at most one interval plus one write's time.
import { mkdirSync, promises as fsp, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { CounterEntry, CounterTable } from './counter-table.js';
import { StateFileLock } from './state-lock.js';
import { ThrottledLog } from './throttled-log.js';
import { dayIdFromLabel, dayLabel, monthIdFromLabel, monthIdOf, monthLabel } from './windows.js';

export const STATE_FORMAT = 'geoapi-quota-state/1';

interface StoredBucket {
  key: string;
  day: string;
  dayUsed: number;
  month: string;
  monthUsed: number;
}

export function serialiseState(entries: readonly CounterEntry[], savedAt: Date): string {
  const buckets: StoredBucket[] = entries.map((e) => ({
    key: e.key,
    day: dayLabel(e.dayId),
    dayUsed: e.dayCount,
    month: monthLabel(e.monthId),
    monthUsed: e.monthCount,
  }));
  return `${JSON.stringify({ format: STATE_FORMAT, savedAt: savedAt.toISOString(), buckets })}\n`;
}

/** Parses a state file; throws with expected vs found on anything else. */
export function parseState(text: string): CounterEntry[] {
  const doc = JSON.parse(text) as { format?: unknown; buckets?: unknown };
  if (doc?.format !== STATE_FORMAT) throw new Error(`expected format "${STATE_FORMAT}", found ${JSON.stringify(doc?.format)}`);
  if (!Array.isArray(doc.buckets)) throw new Error(`expected "buckets" to be an array, found ${typeof doc.buckets}`);
  return doc.buckets.map((raw: unknown, i: number) => {
    const b = raw as Partial<StoredBucket>;
    const dayId = dayIdFromLabel(String(b?.day));
    const monthId = monthIdFromLabel(String(b?.month));
    const ok =
      typeof b?.key === 'string' &&
      !Number.isNaN(dayId) &&
      !Number.isNaN(monthId) &&
      Number.isInteger(b.dayUsed) &&
      Number.isInteger(b.monthUsed) &&
      b.dayUsed! >= 0 &&
      b.monthUsed! >= 0;
    if (!ok) throw new Error(`buckets[${i}]: expected {key, day: YYYY-MM-DD, dayUsed, month: YYYY-MM, monthUsed}, found ${JSON.stringify(raw)}`);
    return { key: b.key!, dayId, dayCount: b.dayUsed!, monthId, monthCount: b.monthUsed! };
  });
}

export interface StateFileOptions {
  /** Milliseconds between writes (only when counts changed). */
  intervalMs: number;
  now?: () => Date;
  log?: (message: string) => void;
}

export class QuotaStateFile {
  private timer: NodeJS.Timeout | undefined;
  private writtenGeneration = -1;
  private writing: Promise<void> | undefined;
  private readonly now: () => Date;
  private readonly log: (message: string) => void;
  private readonly writeErrors: ThrottledLog;
  private readonly lock: StateFileLock;

  constructor(
    readonly filePath: string,
    private readonly table: CounterTable,
    private readonly options: StateFileOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.log = options.log ?? ((message) => console.error(message));
    this.writeErrors = new ThrottledLog(60_000, this.log);
    this.lock = new StateFileLock(filePath, this.log);
  }

  /**
   * Restores the counts of the current month (older buckets are dropped). A missing file is a
   * first start; an unreadable one is moved aside (`.corrupt-<time>`) and counting starts over.
   * Takes the state file's lock first: throws StateFileLockedError when another live server holds it.
   */
  load(): number {
    mkdirSync(path.dirname(this.filePath), { recursive: true });
    this.lock.acquire();
    let text: string;
    try {
      text = readFileSync(this.filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let entries: CounterEntry[];
    try {
      entries = parseState(text);
    } catch (error) {
      const aside = `${this.filePath}.corrupt-${Date.now()}`;
      renameSync(this.filePath, aside);
      this.log(`quota: state file ${this.filePath} is unreadable (${(error as Error).message}); moved to ${aside}, counting starts at zero`);
      return 0;
    }
    const currentMonth = monthIdOf(this.now().getTime());
    let restored = 0;
    for (const entry of entries) {
      if (entry.monthId < currentMonth) continue;
      if (this.table.set(entry)) restored++;
    }
    this.writtenGeneration = this.table.generation;
    return restored;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Writes the table when it changed since the last write; concurrent calls share one write. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    const generation = this.table.generation;
    if (generation === this.writtenGeneration) return;
    this.writing = this.write(generation).finally(() => {
      this.writing = undefined;
    });
    return this.writing;
  }

  /** Stops the timer and writes the final state (graceful shutdown). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try {
      await this.flush();
    } finally {
      this.lock.release();
    }
  }

  private async write(generation: number): Promise<void> {
    const text = serialiseState(this.table.entries(), this.now());
    const tmp = path.join(path.dirname(this.filePath), `.${path.basename(this.filePath)}.${process.pid}.tmp`);
    try {
      await fsp.mkdir(path.dirname(this.filePath), { recursive: true });
      const handle = await fsp.open(tmp, 'w');
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fsp.rename(tmp, this.filePath);
      this.writtenGeneration = generation;
      this.writeErrors.reset();
    } catch (error) {
      // Keep serving; the next tick retries (writtenGeneration is unchanged).
      this.writeErrors.write(`quota: could not write ${this.filePath}: ${(error as Error).message}`);
    }
  }
}
