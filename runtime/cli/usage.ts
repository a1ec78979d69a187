import { DEFAULT_WARM_UP_REQUESTS } from '../http/config.js';

// Thrown for bad command lines: the dispatcher prints the message and the usage, exit code 2.
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `usage: geoapi <command> [options]

  start                      build the default snapshot if needed, create keys.json with one
                             development key per plan if missing (in GEOAPI_HOME: default data/ in a
                             checkout, ~/.local/share/geoapi when installed under node_modules),
                             serve on port 8080 (GEOAPI_PORT)
  serve --snapshot <dir> --keys <file> [--port <n>] [--threads <n>] [--policy <file>] [--host <addr>]
                             serve a snapshot (env: GEOAPI_SNAPSHOT, GEOAPI_KEYS, GEOAPI_PORT,
                             GEOAPI_THREADS, GEOAPI_POLICY, GEOAPI_HOST)
                             [--redis <url>] count quotas in a Redis shared by every replica
                             (GEOAPI_REDIS_URL; default: in memory, saved to data/quota-state.json)
                             [--quota off|memory|redis] whether and where quotas count (GEOAPI_QUOTA)
                             [--compat csc|none] answer the hosted API's clients too (GEOAPI_COMPAT;
                             default: the policy file's "compat", else none)
                             [--pid-file <file>] where geoapi reload finds it (GEOAPI_PID_FILE;
                             default <snapshot dir>.pid). SIGHUP reloads keys, policy and snapshot;
                             a snapshot replaced on disk is swapped in (GEOAPI_SNAPSHOT_WATCH=off: not)
                             [--response-cache-mb <n>] budget in MiB of all response caches together,
                             shared out between the threads; 0 = off (GEOAPI_RESPONSE_CACHE_MB; default 32)
                             [--compression on|off] [--brotli-quality <0-11>] [--gzip-level <1-9>]
                             compress answers for clients that accept it (GEOAPI_COMPRESSION,
                             GEOAPI_BROTLI_QUALITY, GEOAPI_GZIP_LEVEL; default on, 1, 1)
                             [--warm-up-requests <n>] requests each thread answers itself before
                             the server says ready, so V8 compiles the request path first
                             (GEOAPI_WARM_UP_REQUESTS; default ${DEFAULT_WARM_UP_REQUESTS}; 0 = none)
                             [--rebalance-connections on|off] a thread answering more than its share
                             closes a keep-alive connection now and then, so the client's new one is
                             dealt again (GEOAPI_REBALANCE_CONNECTIONS; default on)
                             [--background-nice <0-19>] how much lower V8's compiler and GC helper
                             threads run than the request threads once ready
                             (GEOAPI_BACKGROUND_NICE; default 10; 0 = the same)
  reload [--snapshot <dir>] [--pid-file <file>]
                             tell the running server to switch to the snapshot now on disk
                             (SIGHUP to the pid in <snapshot dir>.pid; default: start's snapshot)
  build [--source <dir>|npm] [--out <dir>]
                             build a snapshot from a dataset
  keys add --plan <plan> [--name <text>] [--expires <YYYY-MM-DD|ISO time>] [--file <file>]
                             create an API key; the key is printed once, as the last line
  keys list [--file <file>]  list keys (never the keys themselves: only their HMAC is stored)
  keys revoke <id> [--file <file>]
                             revoke a key (the server picks the change up within a second)
  verify <snapshot-dir>      check every section file's SHA-256 against manifest.json;
                             one line per section, exit code 0 when all match, else 1
  --version                  print the version

geoapi <command> --help prints that command's usage.

The key file defaults to GEOAPI_KEYS, else keys.json in the data home: GEOAPI_HOME, else data/ in a
checkout, else ~/.local/share/geoapi (XDG_DATA_HOME) when installed under node_modules.`;
