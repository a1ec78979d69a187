// Shared helpers for build and store tests: repository paths, temp dirs, small source datasets.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { fixtureSource, fullSource, repoRoot } from '../support/paths.js';

export { fullDatasetSkip, repoRoot, requireFullDataset } from '../support/paths.js';
export const fixtureDir = fixtureSource;
export const fullDatasetDir = fullSource;

export function tempDir(prefix = 'geoapi-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes files (path → JSON value or raw text) under `root`. */
export function writeFiles(root: string, files: Record<string, unknown>): void {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content, null, 1));
  }
}

/** A minimal valid contributions/ dataset; override files to break it. */
export function smallDataset(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'contributions/regions/regions.json': [{ id: 1, name: 'Europe', translations: { de: 'Europa' }, wikiDataId: 'Q46' }],
    'contributions/subregions/subregions.json': [{ id: 1, name: 'Western Europe', region_id: 1, translations: {}, wikiDataId: null }],
    'contributions/countries/countries.json': [
      { id: 10, name: 'France', iso2: 'FR', iso3: 'FRA', phonecode: '33', region_id: 1, subregion_id: 1, latitude: '46.00000000', longitude: '2.00000000', timezones: [{ zoneName: 'Europe/Paris' }] },
      { id: 11, name: 'Belgium', iso2: 'BE', iso3: 'BEL', phonecode: '32', region_id: 1, subregion_id: 1, latitude: '50.83333333', longitude: '4.00000000' },
    ],
    'contributions/states/states.json': [
      { id: 100, name: 'Île-de-France', country_id: 10, country_code: 'FR', iso2: 'IDF', iso3166_2: 'FR-IDF', latitude: '48.8', longitude: '2.5' },
      { id: 101, name: 'Brussels', country_id: 11, country_code: 'BE', iso2: 'BRU', iso3166_2: null },
    ],
    'contributions/cities/FR.json': [
      { id: 1000, name: 'Paris', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR', latitude: '48.85341', longitude: '2.3488', population: 2138551, level: 1, type: 'capital' },
      { id: 1001, name: 'Versailles', state_id: 100, state_code: 'IDF', country_id: 10, country_code: 'FR', latitude: '48.80359', longitude: '2.13424' },
    ],
    'contributions/cities/BE.json': [
      { id: 1002, name: 'Bruxelles', state_id: 101, state_code: 'BRU', country_id: 11, country_code: 'BE', latitude: '50.85045', longitude: '4.34878' },
    ],
    'contributions/postcodes/FR.json': [
      { id: 5000, code: '75001', country_id: 10, country_code: 'FR', state_id: 100, state_code: 'IDF', city_id: 1000, locality_name: 'Paris', type: 'full', latitude: '48.86', longitude: '2.34' },
    ],
    ...overrides,
  };
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `runBuildCommand(args)` in a child process, as `geoapi build` would. */
export function runBuildCli(args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  const cli = join(repoRoot, 'dist/build-index/cli.js');
  const script = `import { runBuildCommand } from ${JSON.stringify(cli)}; process.exitCode = await runBuildCommand(${JSON.stringify(args)});`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
