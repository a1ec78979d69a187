// The objects of the last request each route answered, held on purpose, so that V8 keeps the code
// it optimized for them.
//
// Optimized code holds weakly the objects it was specialised on. When a full collection finds
// none of them alive, V8 throws the code away ("weak objects" in --trace-deopt), and the next
// requests run unoptimized while it compiles the code again. A request's context, reply and
// answer are garbage as soon as it is answered, so between requests nothing of them is alive:
// every full collection of a request thread threw away 12–21 functions of the request path
// (serveRequest, writeResponse, the parameter parsers, Context, PreparedBody, …), and the first
// one after ready ~40, among them parseRequest for the warm-up's stand-ins. Measured on the
// fixture: with one request's objects kept per route, none (README, Memory: Compiling after
// ready, "What a full collection threw away").
//
// Kept per route and per status, each replaced by the next of its kind: a few small objects each
// (a cached answer's bytes are a view of the response cache's ring, which lives anyway), all let
// go at a swap.

/** Which of a request's objects: its context, its reply, the answer written. */
export type Part = 0 | 1 | 2;
export const CONTEXT: Part = 0;
export const REPLY: Part = 1;
export const ANSWER: Part = 2;
const PARTS = 3;

export class Keepsakes {
  /** A 200's objects, by route and part: the path nearly every request takes, one store each. */
  private readonly ok: (object | null)[];
  /** Any other status's, by route, under status × PARTS + part: each status's objects are made in a place of their own. */
  private readonly other: Map<number, object>[];
  private standIns: readonly object[] = [];

  /** `routeSlots`: one more than the highest route index. */
  constructor(routeSlots: number) {
    this.ok = new Array<object | null>(routeSlots * PARTS).fill(null);
    this.other = Array.from({ length: routeSlots }, () => new Map<number, object>());
  }

  /** One of the objects of a request of route `routeIndex` answered (or to be answered) `status`. */
  keep(routeIndex: number, status: number, part: Part, value: object): void {
    if (status === 200) this.ok[routeIndex * PARTS + part] = value;
    else this.other[routeIndex]!.set(status * PARTS + part, value);
  }

  /**
   * Lets go of every request's objects (not the stand-ins): a swap's. A context holds its store and
   * an answer its response cache, which would otherwise outlive the swap on a route that gets no
   * request after it. The first collection then throws the code away once, as any swap does.
   */
  forget(): void {
    this.ok.fill(null);
    for (const byStatus of this.other) byStatus.clear();
  }

  /** The warm-up's stand-ins for uWS's request and response: no real request has their classes. */
  keepStandIns(...standIns: object[]): void {
    this.standIns = standIns;
  }

  /** How many objects are held (tests). */
  get size(): number {
    let size = this.standIns.length;
    for (const value of this.ok) if (value !== null) size++;
    for (const byStatus of this.other) size += byStatus.size;
    return size;
  }
}
