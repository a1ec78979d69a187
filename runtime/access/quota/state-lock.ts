// An exclusive lock beside the quota state file (`<file>.lock`, holding the owner's pid and host),
// so two servers pointed at the same state file refuse to start instead of overwriting each
// other's counts every second. A lock whose process is gone (same host, pid not alive) is stale:
// it is taken over with a log line. Released on graceful stop and on process exit.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';

export class StateFileLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateFileLockedError';
  }
}

interface LockOwner {
  pid: number;
  host: string;
}

function readOwner(lockFile: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<LockOwner>;
    return Number.isSafeInteger(owner.pid) && typeof owner.host === 'string' ? (owner as LockOwner) : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class StateFileLock {
  private held = false;
  private readonly releaseOnExit = (): void => this.release();

  constructor(
    readonly stateFile: string,
    private readonly log: (message: string) => void,
  ) {}

  get lockFile(): string {
    return `${this.stateFile}.lock`;
  }

  /** Takes the lock or throws StateFileLockedError naming the process that holds it. */
  acquire(): void {
    if (this.held) return;
    for (let attempt = 0; attempt < 2; attempt++) {
      let fd: number;
      try {
        fd = openSync(this.lockFile, 'wx', 0o644);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = readOwner(this.lockFile);
        const here = hostname();
        if (owner && (owner.host !== here || alive(owner.pid))) {
          throw new StateFileLockedError(
            `state file ${this.stateFile} is in use by process ${owner.pid} on ${owner.host} (lock ${this.lockFile}); ` +
              'give each server its own GEOAPI_QUOTA_STATE_FILE, or share counts between servers with --redis',
          );
        }
        this.log(`quota: taking over the stale lock ${this.lockFile} (${owner ? `process ${owner.pid} is gone` : 'unreadable'})`);
        rmSync(this.lockFile, { force: true });
        continue;
      }
      try {
        writeSync(fd, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`);
      } finally {
        closeSync(fd);
      }
      this.held = true;
      process.once('exit', this.releaseOnExit);
      return;
    }
    throw new StateFileLockedError(`state file ${this.stateFile}: could not take the lock ${this.lockFile} (another server took it at the same moment)`);
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    process.off('exit', this.releaseOnExit);
    if (readOwner(this.lockFile)?.pid === process.pid) rmSync(this.lockFile, { force: true });
  }
}
