// The `@countrystatecity/countries` npm package layout (dist/data):
//   countries.json (summary rows: no timezones, translations), regions.json, subregions.json,
//   <Country_Name>-<ISO2>/meta.json (the full country row), <Country>/states.json,
//   <Country>/<State_Name>-<CODE>/cities.json. No postcodes.
// `--source` may name the package directory, its dist/data directory, or `npm` (the installed one).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SourceAdapter, SourceReadContext, SourceReadResult } from './types.js';
import { SourceFiles } from './files.js';

export const NPM_PACKAGE_NAME = '@countrystatecity/countries';

function isDataDir(dir: string): boolean {
  return existsSync(join(dir, 'countries.json')) && !existsSync(join(dir, 'countries', 'countries.json')) &&
    readdirSync(dir).some((entry) => /-[A-Z0-9]{2}$/.test(entry) && existsSync(join(dir, entry, 'meta.json')));
}

/** The installed package's directory (resolved from this module, like `import` would). */
export function installedPackageDir(): string | null {
  try {
    const require = createRequire(import.meta.url);
    return dirname(require.resolve(`${NPM_PACKAGE_NAME}/package.json`));
  } catch {
    // Older exports maps hide package.json: fall back to the main entry's directory.
    try {
      const require = createRequire(import.meta.url);
      let dir = dirname(require.resolve(NPM_PACKAGE_NAME));
      while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
      return dir;
    } catch {
      return null;
    }
  }
}

/** `name@version` from the package.json above a data dir, or null. */
export function packageRelease(dataDir: string): string | null {
  for (let dir = dataDir, i = 0; i < 4; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name && pkg.version) return `${pkg.name}@${pkg.version}`;
    } catch {
      return null;
    }
  }
  return null;
}

function entryDirs(dir: string): string[] {
  return readdirSync(dir)
    .filter((entry) => /-[A-Za-z0-9]+$/.test(entry) && statSync(join(dir, entry)).isDirectory())
    .sort();
}

export const npmPackageAdapter: SourceAdapter = {
  name: 'npm-package',

  detect(dir) {
    for (const candidate of [dir, join(dir, 'dist', 'data'), join(dir, 'data')]) {
      if (existsSync(candidate) && isDataDir(candidate)) return candidate;
    }
    return null;
  },

  read(root: string, { sink, diagnostics, progress }: SourceReadContext): SourceReadResult {
    const files = new SourceFiles(diagnostics);
    for (const [entity, file, noun] of [['regions', 'regions.json', 'region'], ['subregions', 'subregions.json', 'subregion']] as const) {
      if (!existsSync(join(root, file))) {
        diagnostics.warn('missing optional files', `${file}: not found; no ${entity}`);
        continue;
      }
      const rows = files.readArray(join(root, file), file, noun);
      if (rows) sink(entity, file, rows);
    }

    // Country rows: meta.json is the full row; countries.json only fills in countries without a folder.
    const summaries = files.readArray(join(root, 'countries.json'), 'countries.json', 'country') ?? [];
    const countryDirs = entryDirs(root);
    const metaRows: unknown[] = [];
    const metaIds = new Set<unknown>();
    countryDirs.forEach((countryDir, i) => {
      progress('reading country folders', i, countryDirs.length);
      const metaFile = `${countryDir}/meta.json`;
      if (!existsSync(join(root, metaFile))) return;
      const meta = files.readObject(join(root, metaFile), metaFile, 'country');
      if (meta) {
        metaRows.push(meta);
        metaIds.add(meta.id);
      }
    });
    const summaryOnly = summaries.filter((row) => !(row && typeof row === 'object' && metaIds.has((row as { id?: unknown }).id)));
    sink('countries', '*/meta.json', metaRows);
    if (summaryOnly.length > 0) sink('countries', 'countries.json', summaryOnly);

    countryDirs.forEach((countryDir, i) => {
      progress('reading states and cities', i, countryDirs.length);
      const statesFile = `${countryDir}/states.json`;
      if (existsSync(join(root, statesFile))) {
        const rows = files.readArray(join(root, statesFile), statesFile, 'state');
        if (rows) sink('states', statesFile, rows);
      }
      for (const stateDir of entryDirs(join(root, countryDir))) {
        const citiesFile = `${countryDir}/${stateDir}/cities.json`;
        if (!existsSync(join(root, citiesFile))) continue;
        const rows = files.readArray(join(root, citiesFile), citiesFile, 'city');
        if (rows) sink('cities', citiesFile, rows);
      }
    });

    const sourceRelease = packageRelease(root) ?? 'countrystatecity-npm-layout';
    return { sourceRelease, newestMtimeMs: files.newestMtimeMs, filesRead: files.filesRead };
  },
};
