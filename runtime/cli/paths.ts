// Default locations, relative to the package root (this file is dist/runtime/cli/paths.js), so
// `npm start` works from any working directory.
import { fileURLToPath } from 'node:url';
import type { Env } from '../config.js';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DEFAULT_KEYS_FILE = fileURLToPath(new URL('../../../data/keys.json', import.meta.url));
export const DEFAULT_SNAPSHOT_DIR = fileURLToPath(new URL('../../../data/snapshots/default', import.meta.url));

/** The key file: --file, else GEOAPI_KEYS, else data/keys.json. */
export function keysFileFrom(flag: string | undefined, env: Env): string {
  return flag ?? (env['GEOAPI_KEYS'] || DEFAULT_KEYS_FILE);
}
