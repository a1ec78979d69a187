// `geoapi start` (what `npm start` runs): the shortest path from a fresh clone to a 200.
// Builds the default snapshot when missing or stale, creates a development key file with one key
// per plan when missing (printing the keys once), then serves on GEOAPI_PORT or 8080.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { addKey, newKeyFile, writeKeyFile } from '../access/keys.js';
import { PLAN_NAMES } from '../access/policy.js';
import { configFrom, type Env } from './config.js';
import { dataHome, keysFileFrom } from './paths.js';
import { readAhead } from './read-ahead.js';

type Print = (line: string) => void;

/** Creates `file` with one development key per plan; returns the plaintext keys by plan. */
export function createDevelopmentKeys(file: string, now = new Date()): Map<string, { id: string; key: string }> {
  const keyFile = newKeyFile();
  const keys = new Map<string, { id: string; key: string }>();
  for (const plan of PLAN_NAMES) {
    const { record, key } = addKey(keyFile, { plan, name: `development key (${plan})`, now });
    keys.set(plan, { id: record.id, key });
  }
  mkdirSync(dirname(file), { recursive: true });
  writeKeyFile(file, keyFile);
  return keys;
}

export async function runStartCommand(args: string[], print: Print, env: Env): Promise<number> {
  // Everything start creates lives in the data home (GEOAPI_HOME; see paths.ts), never inside node_modules.
  const home = dataHome(env);
  const snapshotDir = env['GEOAPI_SNAPSHOT'] ?? join(home, 'snapshots', 'default');
  const defaultSnapshot = env['GEOAPI_SNAPSHOT'] === undefined;
  // At start, and on SIGHUP while serving: rebuild the default snapshot when the installed
  // @countrystatecity/countries is newer (the build replaces the directory; the server then swaps).
  const ensureSnapshot = async (): Promise<void> => {
    const { ensureDefaultSnapshot } = await import('../../build-index/default-snapshot.js');
    const started = Date.now();
    const snapshot = await ensureDefaultSnapshot(snapshotDir);
    if (snapshot.built) print(`Built the default snapshot in ${snapshot.dir} (${snapshot.reason}) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  };
  if (defaultSnapshot) await ensureSnapshot();

  const keysFile = resolve(keysFileFrom(undefined, env));
  let exampleKey = '<your key>';
  if (!existsSync(keysFile)) {
    const keys = createDevelopmentKeys(keysFile);
    print(`Created ${keysFile} with one development key per plan (shown only now; the file keeps only their HMAC):`);
    for (const [plan, { id, key }] of keys) print(`  ${plan.padEnd(12)} ${id}  ${key}`);
    exampleKey = keys.get('business')!.key;
  } else {
    print(`Using the keys in ${keysFile} (geoapi keys list; geoapi keys add --plan <plan> for a new one).`);
  }

  // Quota counts persist next to the keys (GEOAPI_QUOTA_STATE_FILE still wins).
  const quotaStateFile = env['GEOAPI_QUOTA_STATE_FILE'] ?? resolve(home, 'quota-state.json');
  const config = configFrom(args, { ...env, GEOAPI_SNAPSHOT: snapshotDir, GEOAPI_KEYS: keysFile, GEOAPI_QUOTA_STATE_FILE: quotaStateFile });
  const snapshotRead = readAhead(config.snapshotDir);
  // Loaded now, while the snapshot is read: see read-ahead.ts.
  const { serveUntilStopped } = await import('./serve.js');
  return serveUntilStopped(config, print, [
    'Try it:',
    `  curl -s -H "X-GEOAPI-KEY: ${exampleKey}" http://localhost:${config.port}/v1/countries/US`,
  ], defaultSnapshot ? { beforeSnapshotReload: ensureSnapshot } : {}, snapshotRead);
}
