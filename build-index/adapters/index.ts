// Source layout detection: the first adapter that recognises the directory reads it.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BuildError } from '../diagnostics.js';
import { contributionsAdapter } from './contributions.js';
import { installedPackageDir, npmPackageAdapter, NPM_PACKAGE_NAME } from './npm-package.js';
import type { SourceAdapter } from './types.js';

export const ADAPTERS: readonly SourceAdapter[] = [contributionsAdapter, npmPackageAdapter];

export interface ResolvedSource {
  adapter: SourceAdapter;
  root: string;
}

/** `source` is a directory, or `npm` for the installed @countrystatecity/countries package. */
export function resolveSource(source: string): ResolvedSource {
  let dir: string;
  if (source === 'npm') {
    const installed = installedPackageDir();
    if (!installed) throw new BuildError(`--source npm: package ${NPM_PACKAGE_NAME} is not installed (run npm install)`);
    dir = installed;
  } else {
    dir = resolve(source);
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BuildError(`source ${dir}: expected a directory, found ${existsSync(dir) ? 'a file' : 'nothing'}`);
  for (const adapter of ADAPTERS) {
    const root = adapter.detect(dir);
    if (root) return { adapter, root };
  }
  throw new BuildError(
    `source ${dir}: unrecognised layout: expected a contributions/ layout (countries/countries.json, states/states.json, cities/*.json) ` +
      `or its parent, or the ${NPM_PACKAGE_NAME} package (dist/data/countries.json and <Country>-<ISO2>/meta.json)`,
  );
}
