#!/usr/bin/env node
// The `geoapi` command's entry. It loads the command (commands.ts) from its bundle,
// commands.bundle.js, which `npm run build` makes after tsc, and from the compiled modules when the
// bundle is missing or older than them (worker-code.ts: the same choice as the request threads').
// One file instead of ~140 modules for `serve`, which loaded beside the snapshot's read and took
// CPU from it: full dataset, 2-core VM, spawn → first answer medians 1,022 → 991 and 939 → 900 ms
// (7 and 8 starts alternated; README, Startup). Nothing else is imported here: the choice costs
// two stats and a small read.
import { chooseCode, TS_BUILD_INFO } from '../http/worker-code.js';

const code = chooseCode(new URL('./', import.meta.url), 'commands', TS_BUILD_INFO);
const { runCommand } = (await import(code.url.href)) as typeof import('./commands.js');
await runCommand(process.argv.slice(2), process.env);
