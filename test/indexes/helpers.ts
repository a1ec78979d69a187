// Shared by the index tests: a seeded PRNG, typo generation, and the full dataset's names and
// coordinates when ../shared/data/csc is present (required when CI=true).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
export { prng } from '../support/random.js';

import { fullSource as fullDataRoot, repoRoot } from '../support/paths.js';
export { repoRoot };


export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

const TYPO_LETTERS = 'abcdefghijklmnopqrstuvwxyzéüñаое ';

/** One or two random edits (delete, insert, substitute, transpose) and maybe a case change. */
export function typo(random: () => number, text: string): string {
  const chars = [...text];
  const edits = 1 + Math.floor(random() * 2);
  for (let e = 0; e < edits && chars.length > 1; e++) {
    const i = Math.floor(random() * chars.length);
    const kind = Math.floor(random() * 4);
    if (kind === 0) chars.splice(i, 1);
    else if (kind === 1) chars.splice(i, 0, pick(random, [...TYPO_LETTERS]));
    else if (kind === 2) chars[i] = pick(random, [...TYPO_LETTERS]);
    else if (i + 1 < chars.length) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
  }
  const out = chars.join('');
  return random() < 0.2 ? out.toUpperCase() : out;
}

export interface FullPlace {
  name: string;
  native: string | null;
  latitude: string | null;
  longitude: string | null;
}

let cachedCities: FullPlace[] | null | undefined;

/**
 * The full dataset's cities (file order), or null when the data is absent — which fails when
 * CI=true, so CI never silently skips the full-dataset checks.
 */
export function fullDatasetCities(): FullPlace[] | null {
  if (cachedCities !== undefined) return cachedCities;
  const dir = path.join(fullDataRoot, 'contributions/cities');
  if (!fs.existsSync(dir)) {
    if (process.env.CI === 'true') throw new Error(`full dataset expected at ${fullDataRoot} (CI=true), found nothing`);
    cachedCities = null;
    return null;
  }
  const cities: FullPlace[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    for (const raw of JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>[]) {
      cities.push({
        name: String(raw.name),
        native: typeof raw.native === 'string' ? raw.native : null,
        latitude: typeof raw.latitude === 'string' ? raw.latitude : null,
        longitude: typeof raw.longitude === 'string' ? raw.longitude : null,
      });
    }
  }
  cachedCities = cities;
  return cities;
}

/** A buffer holding exactly `bytes` at offset 0, as the snapshot loader hands sections over. */
export function ownBuffer(bytes: Uint8Array, shared = false): ArrayBufferLike {
  const buffer = shared ? new SharedArrayBuffer(bytes.byteLength) : new ArrayBuffer(bytes.byteLength);
  new Uint8Array(buffer).set(bytes);
  return buffer;
}
