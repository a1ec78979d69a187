// Bundles two programs into one file each after tsc, each with every module it imports (ours,
// libphonenumber-js, flatbuffers, kdbush):
// - a request thread's code, dist/runtime/http/worker.js → worker.bundle.js. Each request thread
//   loads its code when the server starts; as ES modules that is ~230 files to resolve, read (on
//   libuv's threadpool, which the snapshot's read keeps busy then) and link, ~220–250 ms per
//   thread on the report's machine against ~85 ms for the bundle;
// - the `geoapi` command's, dist/runtime/cli/commands.js → commands.bundle.js (its entry,
//   main.js, loads it): ~140 modules for `serve`, loaded while the snapshot is read.
// Each is used when it was made from the compiled modules it sits beside, and the modules otherwise
// (runtime/http/worker-code.ts): the stamp written beside it holds dist/.tsbuildinfo's size and
// time, which every tsc run that emits rewrites. Modules a command imports lazily (`serve`'s, the
// build's) are in its bundle too, still evaluated only when imported.
// Packages with native code or their own worker files (uWebSockets.js, pino, prom-client, ioredis)
// stay outside the bundles, loaded from node_modules as before.
import { statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const PROGRAMS = [`${dist}runtime/http/worker`, `${dist}runtime/cli/commands`];

function buildInfo() {
  try {
    const { size, mtimeMs } = statSync(`${dist}.tsbuildinfo`);
    return { size, mtimeMs };
  } catch {
    return null;
  }
}

for (const program of PROGRAMS) {
  await build({
    entryPoints: [`${program}.js`],
    outfile: `${program}.bundle.js`,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@trufflesuite/uws-js-unofficial', '@btc-vision/uwebsockets.js', 'pino', 'prom-client', 'ioredis'],
    // tsc's source maps are followed: `node --enable-source-maps` names the TypeScript lines.
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // Written last: a bundle without its stamp is never used.
  writeFileSync(`${program}.bundle.json`, `${JSON.stringify({ format: 1, tsBuildInfo: buildInfo() })}\n`);
}
