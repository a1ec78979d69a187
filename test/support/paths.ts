// Where things are, for every test: the repository root (tests run from dist/test/…), the fixture
// dataset, and the full dataset (../shared/data/csc, next to the repository, never inside it).
// A test needing the full dataset skips when it is absent locally and fails when CI=true.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file is dist/test/support/paths.js. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
export const fixtureSource = join(repoRoot, 'test/fixtures/csc');
export const fullSource = resolve(repoRoot, '../shared/data/csc');

/** True when the full dataset is there. */
export function fullDatasetPresent(): boolean {
  return existsSync(join(fullSource, 'contributions/countries/countries.json'));
}

/**
 * `skip` option for full-dataset tests: a reason to skip when the dataset is absent, false (run)
 * when present or when CI=true, so CI never silently skips: the test then fails on the data.
 */
export function fullDatasetSkip(): string | false {
  if (fullDatasetPresent() || process.env['CI'] === 'true') return false;
  return `full dataset not found at ${fullSource}`;
}

/** Throws (a test failure) when the full dataset is absent. */
export function requireFullDataset(): void {
  if (!fullDatasetPresent()) throw new Error(`full dataset expected at ${fullSource}, found nothing (CI=${process.env['CI'] ?? ''})`);
}
