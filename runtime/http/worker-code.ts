// Which file a request thread runs: worker.js and the modules it imports, or their bundle,
// worker.bundle.js, which `npm run build` makes after tsc (scripts/bundle-worker.mjs: one file
// loads in ~85 ms against ~220–250 ms for ~230 modules). The bundle is used only when it was made
// from the compiled modules beside it: its stamp (worker.bundle.json) holds the size and time of
// dist/.tsbuildinfo, which every tsc run that emits rewrites, so a `tsc` without the bundle step
// leaves the modules in use instead of stale code. An installed package carries no .tsbuildinfo
// (nothing compiles there): its bundle is used as built.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface WorkerCode {
  url: URL;
  bundled: boolean;
  /** For the start banner: which code, and why. */
  description: string;
}

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
 * The worker code in `httpDir` (the directory of worker.js), with `buildInfoFile` the tsc build
 * info that dates the modules. `modulesOnly`: the caller loads modules that must be the worker's
 * own (a test seam importing runtime modules), so the bundle's copies would not do.
 */
export function chooseWorkerCode(httpDir: URL, buildInfoFile: string, modulesOnly: string | null = null): WorkerCode {
  const modules = new URL('./worker.js', httpDir);
  const bundle = new URL('./worker.bundle.js', httpDir);
  const useModules = (why: string): WorkerCode => ({ url: modules, bundled: false, description: `modules (${why})` });
  if (modulesOnly !== null) return useModules(modulesOnly);
  const stamp = readStamp(fileURLToPath(new URL('./worker.bundle.json', httpDir)));
  if (stamp === null || statOrNull(fileURLToPath(bundle)) === null) return useModules('no bundle: `npm run build` makes one');
  const buildInfo = statOrNull(buildInfoFile);
  if (stamp.tsBuildInfo !== null && buildInfo !== null && (buildInfo.size !== stamp.tsBuildInfo.size || buildInfo.mtimeMs !== stamp.tsBuildInfo.mtimeMs)) {
    return useModules('the bundle is older than the compiled modules: `npm run build` bundles them again');
  }
  return { url: bundle, bundled: true, description: 'one bundle (worker.bundle.js, made by `npm run build`)' };
}
