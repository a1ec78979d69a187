// Connection rebalancing between the request threads. Every thread listens on the same port
// (SO_REUSEPORT): the kernel hashes each new connection to one thread, and a keep-alive client's
// requests all go where its connection went. With few connections (a balancer's upstream pool, a
// load generator's 32) one thread often answers 60–75 % of the requests while the other has cores
// to spare, and the busier thread's queue sets the tail (README, Health, metrics and logs: How
// requests spread over the threads). uWebSockets.js 20.30 cannot hand accepted connections to
// threads in turn, so a thread that answers more than its share closes one connection after an
// answer (`Connection: close`, as draining does); the client reconnects, and the kernel hashes the
// new connection afresh. Only the busier thread sheds, so connections drift towards the idler one.
//
// Each thread writes its count of answered requests into its slot of one shared Int32Array; a
// slot has one writer, and a read seeing a count a few requests old changes nothing here. Counts
// wrap at 2^32 (a thread answering 20,000 requests a second wraps in ~2.5 days): differences are
// taken modulo 2^32, which is exact while a window is under 2^31 answers.

/** Answers a thread counts between two looks at the others' counts. */
export const REBALANCE_WINDOW = 256;
/** A thread sheds a connection when its share of the window's answers is above fair share × (1 + this). */
export const REBALANCE_TOLERANCE = 0.15;
/**
 * When no other thread answered anything since the last look, the thread may hold a lone client's
 * connection, which no close can even out, or several connections all dealt to it, which one close
 * may: then it closes at most one connection per this many ms. Short enough that two connections
 * dealt to one thread are split within a second or so (each close moves one with even odds), long
 * enough that a lone client at 20,000 requests a second reconnects 4 times a second, not 80.
 */
export const REBALANCE_LONE_INTERVAL_MS = 250;

/** The shared counts, one slot per thread (made by the main thread, sent with each thread's init). */
export function threadAnswerCounts(threads: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Math.max(1, threads) * Int32Array.BYTES_PER_ELEMENT));
}

export class Rebalancer {
  /** Connections this thread closed to rebalance (its metric). */
  closed = 0;
  private answered = 0;
  private answeredAtLook = 0;
  private allAtLook = 0;
  private closeNext = false;
  private loneClosedAt = -Infinity;
  private readonly threshold: number;

  /**
   * `counts`: the shared counts, or null when this thread does not rebalance (one thread, the
   * setting off, the warm-up's own requests).
   */
  constructor(
    private readonly counts: Int32Array | null,
    private readonly threadIndex: number,
    threadCount: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.threshold = threadCount > 1 ? (1 + REBALANCE_TOLERANCE) / threadCount : 2;
    // Counting goes on from the counts as they stand.
    if (counts !== null) {
      this.answered = this.answeredAtLook = counts[threadIndex]!;
      this.allAtLook = sumOf(counts);
    }
  }

  /** A rebalancer that never closes a connection (and counts nothing). */
  static off(): Rebalancer {
    return new Rebalancer(null, 0, 1);
  }

  /**
   * The warm-up's: it runs this one's code (V8 compiles what real requests will run), counting
   * into an array of its own, and never closes a connection (the loopback soak keeps its own).
   */
  forWarmUp(): Rebalancer {
    return this.counts === null ? Rebalancer.off() : new Rebalancer(threadAnswerCounts(1), 0, 1);
  }

  /**
   * Counts one answer; true when its connection should be closed after it. An answer that can
   * close its connection then calls closing(); one that cannot (a bodiless answer) leaves the
   * close to the next.
   */
  onAnswer(): boolean {
    const counts = this.counts;
    if (counts === null) return false;
    const answered = (this.answered = (this.answered + 1) | 0);
    counts[this.threadIndex] = answered;
    if (((answered - this.answeredAtLook) | 0) >= REBALANCE_WINDOW) this.look(counts, answered);
    return this.closeNext;
  }

  /** The answer onAnswer() asked to close its connection does. */
  closing(): void {
    this.closeNext = false;
    this.closed++;
  }

  /** Compares this thread's share of the answers since the last look with the threshold. */
  private look(counts: Int32Array, answered: number): void {
    const all = sumOf(counts);
    const own = (answered - this.answeredAtLook) | 0;
    const window = (all - this.allAtLook) | 0;
    this.answeredAtLook = answered;
    this.allAtLook = all;
    // At most one connection per window: the client's new connection lands on any thread.
    this.closeNext = window > 0 && own > this.threshold * window;
    if (this.closeNext && own === window) {
      const now = this.nowMs();
      if (now - this.loneClosedAt < REBALANCE_LONE_INTERVAL_MS) this.closeNext = false;
      else this.loneClosedAt = now;
    }
  }
}

/** The counts' sum, modulo 2^32. */
function sumOf(counts: Int32Array): number {
  let all = 0;
  for (let i = 0; i < counts.length; i++) all = (all + counts[i]!) | 0;
  return all;
}
