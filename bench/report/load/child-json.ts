// Runs one of the report's clients (loadgen.js, single-answers.js) in a child node process, so the
// report's own process — its heap, its collections — never shares a thread with the measuring, and
// reads the one JSON line the client prints last.
import { spawn } from 'node:child_process';

/** `script` under node with `argv` (and `stdin` written to it, when given); resolves to its last stdout line, parsed. */
export function jsonFromChild<T>(script: string, what: string, argv: string[], stdin?: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...argv], { stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${what} failed (${code}): ${err}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as T);
      } catch {
        reject(new Error(`${what} printed no result: ${out}${err}`));
      }
    });
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}
