// Puts the process's background threads below the request threads in the kernel's scheduler once
// the server is ready. V8 compiles optimized code and marks the heap on its platform threads,
// concurrently with the threads running JavaScript. After ready, real traffic meets code the
// warm-up did not optimize, and TurboFan compiles hundreds of functions in a few seconds: on the
// full dataset, 2 request threads on 2 cores, V8's 4 platform threads took 55 % of the process's
// CPU in the first 3 s of the report's mix at 5,000 req/s, the request threads fell behind, and
// answers waited up to a second (README, Memory: Compiling after ready). With a higher nice value
// those compiles run in the time the request threads leave, and still finish. Before ready they
// keep their priority: the warm-up's compiles should finish before the server says ready.
// Linux only: a thread's nice value is its own there (setpriority on a thread id); elsewhere it is
// the whole process's, so nothing is changed.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export interface BackgroundPriority {
  /** How much higher the background threads' nice value is (to be) than the request threads' (0: unchanged). */
  nice: number;
  /** Threads to lower. */
  threads: number;
  /** Why, for the start banner. */
  why: string;
  /** Lowers them (at ready); again, or on a plan that changes nothing, it does nothing. */
  apply(): void;
}

/** The request threads' nice value + this, for the background threads (README, Memory: Compiling after ready). */
export const DEFAULT_BACKGROUND_NICE = 10;

/** The highest nice value (the lowest priority) Linux has. */
const LOWEST = 19;

const UNCHANGED = (why: string): BackgroundPriority => ({ nice: 0, threads: 0, why: `unchanged (${why})`, apply: () => {} });

let planned: BackgroundPriority | null = null;

/**
 * Which threads to lower by `nice` (capped at 19) from the calling thread's nice value: every
 * thread of the process there now but the calling one. Call it from the main thread before any
 * request thread starts: V8's platform threads and Node's own are created at process start, and
 * threads created later (the worker threads) are not among them. Once per process: a second call
 * (a second server in one process) answers the first plan, as the first server's request threads
 * exist by then.
 */
export function planBackgroundPriority(nice: number, taskDir = '/proc/self/task'): BackgroundPriority {
  planned ??= plan(nice, taskDir);
  return planned;
}

function plan(nice: number, taskDir: string): BackgroundPriority {
  if (nice === 0) return UNCHANGED('--background-nice 0');
  if (process.platform !== 'linux') return UNCHANGED(`per-thread priorities need Linux, this is ${process.platform}`);
  let ids: number[];
  try {
    ids = readdirSync(taskDir)
      .map(Number)
      .filter((id) => Number.isInteger(id) && id !== process.pid);
  } catch (error) {
    return UNCHANGED(`${taskDir}: ${(error as Error).message}`);
  }
  const own = getPriority();
  const target = Math.min(LOWEST, own + nice);
  let applied = false;
  return {
    nice: target - own,
    threads: ids.length,
    why: "V8's compiler and GC helpers yield the cores to the request threads once ready",
    apply: () => {
      if (applied) return;
      applied = true;
      for (const id of ids) {
        try {
          // Only ever lowered: raising a priority back needs privileges.
          if (getPriority(id) < target) setPriority(id, target);
        } catch {
          // The thread ended meanwhile.
        }
      }
    },
  };
}
