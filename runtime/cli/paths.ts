// Default locations, relative to the package root (this file is dist/runtime/cli/paths.js), so
// `npm start` works from any working directory.
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from './config.js';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DEFAULT_KEYS_FILE = fileURLToPath(new URL('../../../data/keys.json', import.meta.url));
export const DEFAULT_SNAPSHOT_DIR = fileURLToPath(new URL('../../../data/snapshots/default', import.meta.url));

/** True when this package runs from inside a node_modules directory (installed as a dependency). */
export function installedAsDependency(packageRoot: string = PACKAGE_ROOT): boolean {
  return packageRoot.split(sep).includes('node_modules');
}

/**
 * Where `geoapi start` keeps what it creates (keys.json, snapshots/default, quota-state.json):
 * GEOAPI_HOME, else — when installed as a dependency, where an `npm ci` or upgrade would wipe it —
 * $XDG_DATA_HOME/geoapi or ~/.local/share/geoapi, else the repository's data/ directory.
 */
export function dataHome(env: Env, packageRoot: string = PACKAGE_ROOT): string {
  if (env['GEOAPI_HOME']) return env['GEOAPI_HOME'];
  if (!installedAsDependency(packageRoot)) return join(packageRoot, 'data');
  return join(env['XDG_DATA_HOME'] || join(env['HOME'] || homedir(), '.local', 'share'), 'geoapi');
}

/** The key file: --file, else GEOAPI_KEYS, else keys.json in the data home (data/keys.json in a clone). */
export function keysFileFrom(flag: string | undefined, env: Env): string {
  return flag ?? (env['GEOAPI_KEYS'] || join(dataHome(env), 'keys.json'));
}
