// Which code a thread runs: a program's compiled modules or their bundle, which `npm run build`
// makes after tsc (scripts/bundle.mjs). Two programs are bundled: a request thread's, worker.js
// (one file loads in ~85 ms against ~220–250 ms for ~230 modules), and the `geoapi` command's,
// runtime/cli/commands.js (chosen by main.js, the command's entry, before anything else loads). A
// bundle is used only when it was made from the compiled modules beside it: its stamp
// (<name>.bundle.json) holds the size and time of dist/.tsbuildinfo, which every tsc run that
// emits rewrites, so a `tsc` without the bundle step leaves the modules in use instead of stale
// code. An installed package carries no .tsbuildinfo (nothing compiles there): its bundles are
// used as built.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface WorkerCode {
  url: URL;
  bundled: boolean;
  /** For the start banner: which code, and why. */
  description: string;
}

/**
 * dist/.tsbuildinfo: dates the compiled modules a bundle was made from. The same from the modules
 * (dist/runtime/http/) and from either bundle (dist/runtime/http/, dist/runtime/cli/).
 */
export const TS_BUILD_INFO = fileURLToPath(new URL('../../.tsbuildinfo', import.meta.url));

interface BundleStamp {
  format: 1;
  tsBuildInfo: { size: number; mtimeMs: number } | null;
}

function readStamp(file: string): BundleStamp | null {
  try {
    const stamp = JSON.parse(readFileSync(file, 'utf8')) as Partial<BundleStamp>;
    return stamp.format === 1 && stamp.tsBuildInfo !== undefined ? (stamp as BundleStamp) : null;
  } catch {
    return null;
  }
}

function statOrNull(file: string): { size: number; mtimeMs: number } | null {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

/**
 * The code of program `name` in `dir` (the directory of <name>.js), with `buildInfoFile` the tsc
 * build info that dates the modules. `modulesOnly`: the caller loads modules that must be the
 * program's own (a test seam importing runtime modules), so the bundle's copies would not do.
 */
export function chooseCode(dir: URL, name: string, buildInfoFile: string, modulesOnly: string | null = null): WorkerCode {
  const modules = new URL(`./${name}.js`, dir);
  const bundle = new URL(`./${name}.bundle.js`, dir);
  const useModules = (why: string): WorkerCode => ({ url: modules, bundled: false, description: `modules (${why})` });
  if (modulesOnly !== null) return useModules(modulesOnly);
  const stamp = readStamp(fileURLToPath(new URL(`./${name}.bundle.json`, dir)));
  if (stamp === null || statOrNull(fileURLToPath(bundle)) === null) return useModules('no bundle: `npm run build` makes one');
  const buildInfo = statOrNull(buildInfoFile);
  if (stamp.tsBuildInfo !== null && buildInfo !== null && (buildInfo.size !== stamp.tsBuildInfo.size || buildInfo.mtimeMs !== stamp.tsBuildInfo.mtimeMs)) {
    return useModules('the bundle is older than the compiled modules: `npm run build` bundles them again');
  }
  return { url: bundle, bundled: true, description: `one bundle (${name}.bundle.js, made by \`npm run build\`)` };
}

/** A request thread's code in `httpDir` (the directory of worker.js): chooseCode for worker.js. */
export function chooseWorkerCode(httpDir: URL, buildInfoFile: string, modulesOnly: string | null = null): WorkerCode {
  return chooseCode(httpDir, 'worker', buildInfoFile, modulesOnly);
}
