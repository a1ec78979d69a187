// `geoapi <command> --help` and `geoapi --version`. Per-command help is cut out of USAGE (the
// lines of that command's entries), so the two cannot drift apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './paths.js';
import { USAGE } from './usage.js';

/** USAGE's entries for `command` (an entry: a line "  <command>…" and its deeper-indented continuation), or null. */
export function commandUsage(command: string): string | null {
  const lines = USAGE.split('\n');
  const picked: string[] = [];
  let inEntry = false;
  for (const line of lines) {
    if (/^ {2}\S/.test(line)) inEntry = line.slice(2).split(/\s/)[0] === command;
    else if (!/^ {3,}\S/.test(line)) inEntry = false;
    if (inEntry) picked.push(line);
  }
  if (picked.length === 0) return null;
  return `usage: geoapi ${command} [options]\n\n${picked.join('\n')}`;
}

/** True when the arguments ask for help (`--help` / `-h` anywhere before a `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name?: string; version?: string };
  return `${pkg.name ?? 'geoapi'} ${pkg.version ?? '(unknown version)'}`;
}
