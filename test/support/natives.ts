// Tests that ask V8 itself: a script run in a child node with V8's natives syntax
// (%HaveSameMap, %OptimizeFunctionOnNextCall, …), optionally with its deopt trace.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/** The module at `path` (relative to the test file whose import.meta.url is `base`), as a string literal for the child's script. */
export function moduleLiteral(path: string, base: string): string {
  return JSON.stringify(new URL(path, base).href);
}

/** Runs `script` (an ES module) in a child node with natives syntax and `flags`; its stdout, once it exited 0. */
export function runWithNatives(script: string, flags: readonly string[] = []): string {
  const child = spawnSync(process.execPath, ['--allow-natives-syntax', ...flags, '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout;
}

/** `function: reason` of each deopt in a --trace-deopt output, from the first `marker` line on. */
export function deoptsAfter(trace: string, marker: string): string[] {
  const deopts: string[] = [];
  for (const line of trace.slice(Math.max(0, trace.indexOf(marker))).split('\n')) {
    const bailout = /bailout \(kind: [^,]+, reason: ([^)]*)\): begin\. deoptimizing \S+ <JSFunction (\S+)/.exec(line);
    if (bailout !== null) deopts.push(`${bailout[2]}: ${bailout[1]}`);
  }
  return deopts;
}
