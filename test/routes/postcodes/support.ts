// Snapshots for the postcode tests: the fixture dataset (test/fixtures/csc) and the full dataset
// (../shared/data/csc, required when CI=true), each built once per test process into a temp dir.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSnapshot } from '../../../build-index/build.js';
import { loadStore } from '../../../runtime/store/index.js';
import type { Store } from '../../../runtime/store/types.js';
import type { PostcodeRecord } from '../../../runtime/format/model.js';
import { compareUtf8 } from '../../../runtime/indexes/string-table.js';
import { matchKey, postcodeKey } from '../../../runtime/text/normalise.js';
import type { PostcodeFilters } from '../../../runtime/engine/postcodes/engine.js';
export { prng as random } from '../../support/random.js';

export { fixtureSource, fullDatasetSkip, fullSource, repoRoot } from '../../support/paths.js';

export interface BuiltSnapshot {
  dir: string;
  store: Store;
}

const built = new Map<string, BuiltSnapshot>();
process.once('exit', () => {
  for (const { dir } of built.values()) rmSync(dir, { recursive: true, force: true });
});

/** Builds `source` into a temp dir (once per process) and opens it. */
export function snapshotOf(source: string): BuiltSnapshot {
  let snapshot = built.get(source);
  if (snapshot === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'geoapi-postcodes-'));
    buildSnapshot({ source, out: dir });
    snapshot = { dir, store: loadStore(dir) };
    built.set(source, snapshot);
  }
  return snapshot;
}

/** Every postcode record of a country, decoded one by one (the oracle's input). */
export function recordsOfCountry(store: Store, iso2: string): PostcodeRecord[] {
  const out: PostcodeRecord[] = [];
  for (let row = 0; row < store.postcodes.count; row++) {
    const record = store.postcodes.record(row);
    if (record.country_code === iso2) out.push(record);
  }
  return out;
}

/** The documented order: postcodeKey(code), then code (UTF-8 byte order), then id. */
export function compareDocumented(a: PostcodeRecord, b: PostcodeRecord): number {
  return compareUtf8(postcodeKey(a.code), postcodeKey(b.code)) || compareUtf8(a.code, b.code) || a.id - b.id;
}

/** Brute-force filter, straight from the spec's wording. */
export function matchesFilters(record: PostcodeRecord, filters: PostcodeFilters): boolean {
  if (filters.stateCode !== null && (record.state_code ?? '').toUpperCase() !== filters.stateCode) return false;
  if (filters.cityId !== null && record.city_id !== filters.cityId) return false;
  if (filters.type !== null && (record.type ?? '').toLowerCase() !== filters.type) return false;
  if (filters.q !== null) {
    const codeHit = postcodeKey(record.code).startsWith(postcodeKey(filters.q));
    const localityHit = record.locality_name !== null && matchKey(record.locality_name).includes(filters.q);
    if (!codeHit && !localityHit) return false;
  }
  return true;
}

