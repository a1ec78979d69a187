// Logs a recurring problem once, then at most once per interval with how often it recurred, so
// an unreachable Redis or a read-only disk does not flood the log at request rate.
export class ThrottledLog {
  private lastMs = Number.NEGATIVE_INFINITY;
  private suppressed = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly sink: (message: string) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Returns true when the message was written. */
  write(message: string): boolean {
    const now = this.clock();
    if (now - this.lastMs < this.intervalMs) {
      this.suppressed++;
      return false;
    }
    const repeats = this.suppressed > 0 ? ` (${this.suppressed} more since the last report)` : '';
    this.sink(`${message}${repeats}`);
    this.lastMs = now;
    this.suppressed = 0;
    return true;
  }

  /** Forgets the throttle (the problem is over): the next occurrence is logged at once. */
  reset(): void {
    this.lastMs = Number.NEGATIVE_INFINITY;
    this.suppressed = 0;
  }
}
