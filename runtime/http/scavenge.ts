// Whether V8's young-generation collections (scavenges) split their work over helper threads.
// By default each scavenge hands tasks to V8's platform threads and waits for every task it
// started. When the request threads take every core, a helper runs only once one of them gives
// its core up, and the collecting thread waits meanwhile; what survives a scavenge here is a few
// tens of KB, too little to split. Measured on the full dataset, 2 threads on 2 cores, the
// report's mix at saturation (8 rounds alternated): 86–142 ms of scavenges per 5 s against
// 163–217 ms with helpers (README, Memory: Garbage collection).
// Process-wide: V8 reads the flag at each scavenge, in every thread's isolate.
import { setFlagsFromString } from 'node:v8';

export interface ScavengeChoice {
  /** Whether scavenges use helper threads. */
  parallel: boolean;
  /** Whether node's command line named the flag (V8 has it already). */
  given: boolean;
  /** Why, for the start banner. */
  why: string;
}

/** `--parallel-scavenge` / `--no-parallel-scavenge` (either spelling) on node's command line: the operator's choice. */
const GIVEN = /^--(no-)?parallel[-_]scavenge$/;

/**
 * Helpers stay on only when a core is left over for them; node's command line (execArgv) decides
 * when it names the flag.
 */
export function chooseScavenge(threads: number, cores: number, execArgv: readonly string[]): ScavengeChoice {
  let given: RegExpExecArray | null = null;
  for (const arg of execArgv) given = GIVEN.exec(arg) ?? given;
  if (given !== null) return { parallel: given[1] === undefined, given: true, why: 'as given on the node command line' };
  if (threads >= cores) {
    return { parallel: false, given: false, why: `${threads} request thread${threads === 1 ? '' : 's'} on ${cores} core${cores === 1 ? '' : 's'}: a helper would wait for a core they use` };
  }
  return { parallel: true, given: false, why: `${cores - threads} of ${cores} cores left for helpers` };
}

/** Applies a choice made here, either way (one given on the command line V8 has already). */
export function applyScavenge(choice: ScavengeChoice): void {
  if (!choice.given) setFlagsFromString(choice.parallel ? '--parallel-scavenge' : '--no-parallel-scavenge');
}
