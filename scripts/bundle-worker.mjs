// Bundles a worker thread's code into one file after tsc: dist/runtime/http/worker.js and every
// module it imports (~130 of ours, ~95 of libphonenumber-js, flatbuffers, kdbush) become
// dist/runtime/http/worker.bundle.js. Each request thread loads its code when the server starts;
// as ES modules that is ~230 files to resolve, read (on libuv's threadpool, which the snapshot's
// read keeps busy then) and link, ~220–250 ms per thread on the report's machine against ~85 ms
// for the bundle. The server spawns the bundle when it was made from the compiled modules it sits
// beside, and the modules otherwise (runtime/http/worker-code.ts): the stamp written beside it
// holds dist/.tsbuildinfo's size and time, which every tsc run that emits rewrites.
// Packages with native code or their own worker files (uWebSockets.js, pino, prom-client, ioredis)
// stay outside the bundle, loaded from node_modules as before.
import { statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const entry = `${dist}runtime/http/worker.js`;
const outfile = `${dist}runtime/http/worker.bundle.js`;
const stampFile = `${dist}runtime/http/worker.bundle.json`;

function buildInfo() {
  try {
    const { size, mtimeMs } = statSync(`${dist}.tsbuildinfo`);
    return { size, mtimeMs };
  } catch {
    return null;
  }
}

await build({
  entryPoints: [entry],
  outfile,
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
writeFileSync(stampFile, `${JSON.stringify({ format: 1, tsBuildInfo: buildInfo() })}\n`);
