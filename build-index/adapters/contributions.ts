// The upstream countries-states-cities `contributions/` layout:
//   regions/regions.json, subregions/subregions.json, countries/countries.json,
//   states/states.json, cities/XX.json, postcodes/XX.json (postcodes optional).
// `--source` may name the contributions/ directory itself or its parent.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceAdapter, SourceReadContext, SourceReadResult } from './types.js';
import { SourceFiles } from './files.js';

function isRoot(dir: string): boolean {
  return existsSync(join(dir, 'countries', 'countries.json')) && existsSync(join(dir, 'states', 'states.json'));
}

function jsonFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
}

export const contributionsAdapter: SourceAdapter = {
  name: 'contributions',

  detect(dir) {
    if (isRoot(dir)) return dir;
    const nested = join(dir, 'contributions');
    return isRoot(nested) ? nested : null;
  },

  read(root: string, { sink, diagnostics, progress }: SourceReadContext): SourceReadResult {
    const files = new SourceFiles(diagnostics);
    const single = [
      ['regions', 'regions/regions.json', 'region'],
      ['subregions', 'subregions/subregions.json', 'subregion'],
      ['countries', 'countries/countries.json', 'country'],
      ['states', 'states/states.json', 'state'],
    ] as const;
    for (const [entity, file, noun] of single) {
      progress(`reading ${file}`, 0, 1);
      const path = join(root, file);
      if (!existsSync(path) && (entity === 'regions' || entity === 'subregions')) {
        diagnostics.warn('missing optional files', `${file}: not found; no ${entity}`);
        continue;
      }
      const rows = files.readArray(path, file, noun);
      if (rows) sink(entity, file, rows);
    }
    for (const [entity, folder, noun] of [['cities', 'cities', 'city'], ['postcodes', 'postcodes', 'postcode']] as const) {
      const names = jsonFilesIn(join(root, folder));
      if (names.length === 0) diagnostics.warn('missing optional files', `${folder}/: no *.json files; no ${entity}`);
      names.forEach((name, i) => {
        progress(`reading ${folder}/`, i, names.length);
        const file = `${folder}/${name}`;
        const rows = files.readArray(join(root, folder, name), file, noun);
        if (rows) sink(entity, file, rows);
      });
    }
    return { sourceRelease: 'csc-contributions', newestMtimeMs: files.newestMtimeMs, filesRead: files.filesRead };
  },
};
