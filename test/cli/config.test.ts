// The configuration object: flags and environment → GeoapiConfig, and what the start banner says
// of it (quota mode always as configured; never a secret).
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_POLICY_FILE } from '../../runtime/access/policy.js';
import { describeAllocator } from '../../runtime/cli/allocator.js';
import { banner } from '../../runtime/cli/serve.js';
import { ConfigError, configFrom, describeConfig, describeQuota, DEFAULT_PORT } from '../../runtime/cli/config.js';
import { USAGE } from '../../runtime/cli/usage.js';
import type { RunningServer } from '../../runtime/http/server.js';

const REQUIRED = { GEOAPI_SNAPSHOT: 'snap', GEOAPI_KEYS: 'keys.json' };

describe('configFrom', () => {
  it('reads the required paths from flags or the environment, resolved, with the defaults for the rest', () => {
    const config = configFrom([], REQUIRED);
    assert.equal(config.snapshotDir, resolve('snap'));
    assert.equal(config.keysFile, resolve('keys.json'));
    assert.equal(config.policyFile, DEFAULT_POLICY_FILE);
    assert.equal(config.port, DEFAULT_PORT);
    assert.equal(config.host, null);
    assert.ok(config.threads >= 1);
    assert.deepEqual(config.keyHeaderAliases, []);
    assert.deepEqual(config.uwsCandidates, ['@btc-vision/uwebsockets.js', '@trufflesuite/uws-js-unofficial']);
    assert.equal(config.quota.mode, 'memory');
    assert.deepEqual(config.operations, { cursorSecret: null, previousCursorSecrets: [] });
    assert.equal(config.responseCacheBytes, 32 * 1024 * 1024);
  });

  it('reads one response cache budget in MiB (flag, then GEOAPI_RESPONSE_CACHE_MB), else from the variables it replaced', () => {
    const MiB = 1024 * 1024;
    assert.equal(configFrom(['--response-cache-mb', '16'], { ...REQUIRED, GEOAPI_RESPONSE_CACHE_MB: '8' }).responseCacheBytes, 16 * MiB);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_RESPONSE_CACHE_MB: '0' }).responseCacheBytes, 0);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_RESPONSE_CACHE_MB: '8', GEOAPI_BODY_MEMO_MB: '100' }).responseCacheBytes, 8 * MiB, 'the new name wins');
    // The old per-cache variables: their sum, or off when the postcode cache had 0 entries.
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_BODY_MEMO_MB: '8' }).responseCacheBytes, (8 + 32) * MiB);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_POSTCODE_CACHE_MB: '2' }).responseCacheBytes, (64 + 2) * MiB);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_BODY_MEMO_MB: 'lots' }).responseCacheBytes, (64 + 32) * MiB, 'a body memo size that is not a positive number keeps its old default');
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_POSTCODE_CACHE_ENTRIES: '0' }).responseCacheBytes, 0);
    assert.throws(() => configFrom([], { ...REQUIRED, GEOAPI_RESPONSE_CACHE_MB: 'lots' }), /--response-cache-mb: expected an integer from 0 to 1048576, found "lots"/);
    assert.match(describeConfig(configFrom([], { ...REQUIRED, GEOAPI_RESPONSE_CACHE_MB: '0' })).join('\n'), /response cache: off/);
    assert.match(describeConfig(configFrom(['--threads', '4'], REQUIRED)).join('\n'), /response cache: 32 MiB for the process \(8 MiB per thread\)/);
  });

  it('compresses at brotli quality 1 and gzip level 1 unless told otherwise (flag, then variable), or not at all when off', () => {
    assert.deepEqual(configFrom([], REQUIRED).compression, { enabled: true, brotliQuality: 1, gzipLevel: 1 });
    const env = { ...REQUIRED, GEOAPI_COMPRESSION: 'off', GEOAPI_BROTLI_QUALITY: '5', GEOAPI_GZIP_LEVEL: '6' };
    assert.deepEqual(configFrom([], env).compression, { enabled: false, brotliQuality: 5, gzipLevel: 6 });
    assert.deepEqual(configFrom(['--compression', 'ON', '--brotli-quality', '11', '--gzip-level', '9'], env).compression, { enabled: true, brotliQuality: 11, gzipLevel: 9 });
    assert.throws(() => configFrom(['--compression', 'maybe'], REQUIRED), /--compression: expected on or off, found "maybe"/);
    assert.throws(() => configFrom([], { ...REQUIRED, GEOAPI_BROTLI_QUALITY: '12' }), /--brotli-quality: expected an integer from 0 to 11, found "12"/);
    assert.throws(() => configFrom(['--gzip-level', '0'], REQUIRED), /--gzip-level: expected an integer from 1 to 9, found "0"/);
    assert.match(describeConfig(configFrom([], REQUIRED)).join('\n'), /^compression: br quality 1, gzip level 1, answers from 1024 bytes$/m);
    assert.match(describeConfig(configFrom([], env)).join('\n'), /^compression: off \(answers go out uncompressed\)$/m);
  });

  it('lowers V8\'s background threads by 10 nice levels unless told otherwise (flag, then variable; 0 leaves them)', () => {
    assert.equal(configFrom([], REQUIRED).backgroundNice, 10);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_BACKGROUND_NICE: '0' }).backgroundNice, 0);
    assert.equal(configFrom(['--background-nice', '19'], { ...REQUIRED, GEOAPI_BACKGROUND_NICE: '0' }).backgroundNice, 19);
    assert.throws(() => configFrom([], { ...REQUIRED, GEOAPI_BACKGROUND_NICE: '-5' }), /--background-nice: expected an integer from 0 to 19, found "-5"/);
  });

  it('rebalances connections between threads unless told not to (flag, then variable), and says so in the banner', () => {
    assert.equal(configFrom([], REQUIRED).rebalanceConnections, true);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_REBALANCE_CONNECTIONS: 'off' }).rebalanceConnections, false);
    assert.equal(configFrom(['--rebalance-connections', 'on'], { ...REQUIRED, GEOAPI_REBALANCE_CONNECTIONS: '0' }).rebalanceConnections, true);
    assert.throws(() => configFrom(['--rebalance-connections', 'sometimes'], REQUIRED), /--rebalance-connections: expected on or off, found "sometimes"/);
    assert.match(describeConfig(configFrom(['--threads', '2'], REQUIRED)).join('\n'), /^connection rebalancing: on \(/m);
    assert.match(describeConfig(configFrom(['--threads', '2', '--rebalance-connections', 'off'], REQUIRED)).join('\n'), /^connection rebalancing: off$/m);
    assert.match(describeConfig(configFrom(['--threads', '1'], REQUIRED)).join('\n'), /^connection rebalancing: none \(one request thread\)$/m);
  });

  it('sends 9,000 warm-up requests through each thread\'s pipeline before ready unless told otherwise (flag, then variable; 0: none)', () => {
    assert.equal(configFrom([], REQUIRED).warmUpRequests, 9000);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_WARM_UP_REQUESTS: '0' }).warmUpRequests, 0);
    assert.equal(configFrom(['--warm-up-requests', '20000'], { ...REQUIRED, GEOAPI_WARM_UP_REQUESTS: '0' }).warmUpRequests, 20000);
    assert.throws(() => configFrom(['--warm-up-requests', 'lots'], REQUIRED), /--warm-up-requests: expected an integer from 0 to 1000000, found "lots"/);
  });

  it('states in --help the defaults it applies (warm-up requests, background nice, response cache)', () => {
    const config = configFrom([], REQUIRED);
    assert.match(USAGE, new RegExp(`GEOAPI_WARM_UP_REQUESTS; default ${config.warmUpRequests};`));
    assert.match(USAGE, new RegExp(`GEOAPI_BACKGROUND_NICE; default ${config.backgroundNice};`));
    assert.match(USAGE, new RegExp(`GEOAPI_RESPONSE_CACHE_MB; default ${config.responseCacheBytes / (1024 * 1024)}\\)`));
  });

  it('lets flags win over the environment', () => {
    const env = { ...REQUIRED, GEOAPI_PORT: '9000', GEOAPI_THREADS: '3', GEOAPI_HOST: '0.0.0.0', GEOAPI_POLICY: 'env-policy.json', GEOAPI_QUOTA: 'memory' };
    const config = configFrom(['--snapshot', 'other', '--port', '0', '--threads', '2', '--host', '127.0.0.1', '--policy', 'p.json', '--quota', 'off'], env);
    assert.equal(config.snapshotDir, resolve('other'));
    assert.equal(config.port, 0);
    assert.equal(config.threads, 2);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.policyFile, resolve('p.json'));
    assert.equal(config.quota.mode, 'off');
    const fromEnv = configFrom([], env);
    assert.equal(fromEnv.port, 9000);
    assert.equal(fromEnv.threads, 3);
    assert.equal(fromEnv.host, '0.0.0.0');
    assert.equal(fromEnv.policyFile, resolve('env-policy.json'));
  });

  it('reads every other setting with its existing name and meaning', () => {
    const config = configFrom([], {
      ...REQUIRED,
      GEOAPI_KEY_HEADER_ALIASES: 'X-Legacy-Key, X-CSCAPI-KEY',
      GEOAPI_UWS_CANDIDATES: 'a, b',
      GEOAPI_CURSOR_SECRET: ' s3cret ',
      GEOAPI_CURSOR_SECRET_PREVIOUS: 'old1, old2',
      GEOAPI_REDIS_URL: 'redis://user:pw@cache:6380/1',
      GEOAPI_REPLICAS: '3',
    });
    assert.deepEqual(config.keyHeaderAliases, ['X-Legacy-Key', 'X-CSCAPI-KEY']);
    assert.deepEqual(config.uwsCandidates, ['a', 'b']);
    assert.equal(config.operations.cursorSecret, 's3cret');
    assert.deepEqual(config.operations.previousCursorSecrets, ['old1', 'old2']);
    assert.equal(config.quota.mode, 'redis', 'a Redis URL without a mode selects redis');
    assert.equal(config.quota.replicas, 3);
    assert.equal(configFrom(['--redis', 'redis://flag:6379'], REQUIRED).quota.redisUrl, 'redis://flag:6379');
  });

  it('refuses missing or malformed settings, naming them', () => {
    assert.throws(() => configFrom([], { GEOAPI_KEYS: 'k' }), (error: Error) => error instanceof ConfigError && /--snapshot <dir> \(or GEOAPI_SNAPSHOT\) is required/.test(error.message));
    assert.throws(() => configFrom([], { GEOAPI_SNAPSHOT: 's' }), ConfigError);
    assert.throws(() => configFrom(['--port', '70000'], REQUIRED), /--port: expected an integer from 0 to 65535, found "70000"/);
    assert.throws(() => configFrom([], { ...REQUIRED, GEOAPI_THREADS: 'many' }), /--threads: expected an integer from 1 to 256, found "many"/);
    assert.throws(() => configFrom(['--quota', 'sometimes'], REQUIRED), /quota: GEOAPI_QUOTA: expected "off", "memory" or "redis", found "sometimes"/);
    assert.throws(() => configFrom([], { ...REQUIRED, GEOAPI_POSTCODE_CACHE_MB: 'big' }), /GEOAPI_POSTCODE_CACHE_MB: expected a whole number/);
    assert.throws(() => configFrom(['--nope'], REQUIRED), /nope/);
    assert.throws(() => configFrom(['--background-nice', '20'], REQUIRED), /--background-nice: expected an integer from 0 to 19, found "20"/);
    assert.throws(() => configFrom(['--compat', 'hosted'], REQUIRED), /--compat: expected one of none, csc, found "hosted"/);
  });

  it('reads the compat switch from --compat, else GEOAPI_COMPAT; absent leaves it to the policy file', () => {
    assert.equal(configFrom([], REQUIRED).compat, null);
    assert.equal(configFrom([], { ...REQUIRED, GEOAPI_COMPAT: 'CSC' }).compat, 'csc');
    assert.equal(configFrom(['--compat', 'none'], { ...REQUIRED, GEOAPI_COMPAT: 'csc' }).compat, 'none');
  });
});

describe('the start banner', () => {
  const server: RunningServer = {
    port: 8080,
    url: 'http://localhost:8080',
    threads: 2,
    scavenge: { parallel: false, given: false, why: '2 request threads on 2 cores: a helper would wait for a core they use' },
    background: { nice: 10, threads: 6, why: "V8's compiler and GC helpers yield the cores to the request threads once ready", apply: () => {} },
    workerCode: { url: new URL('file:///x/worker.bundle.js'), bundled: true, description: 'one bundle (worker.bundle.js, made by `npm run build`)' },
    uws: { packageName: '@btc-vision/uwebsockets.js', version: '20.57.0', binary: '/x/uws.node', abi: '115' },
    store: { dataVersion: 'abc', recordCounts: { countries: 250 } },
    quota: 'off',
    compat: 'none',
    metricsUrl: null,
    reloadKeys: () => undefined,
    reloadPolicy: () => undefined,
    reloadSnapshot: async () => ({ status: 'unchanged', dataVersion: 'abc' }),
    close: async () => undefined,
    exited: Promise.resolve(),
  };

  it('says which compat mode runs', () => {
    assert.match(banner(server, configFrom([], REQUIRED)).join('\n'), /^compat: none \(geoapi names only; --compat csc for clients of the hosted API\)$/m);
    assert.match(banner({ ...server, compat: 'csc' }, configFrom([], REQUIRED)).join('\n'), /^compat: csc \(clients of the hosted API: X-CSCAPI-KEY accepted/m);
  });

  it('says what quotas do as configured: off is off', () => {
    const off = banner(server, configFrom(['--quota', 'off'], REQUIRED)).join('\n');
    assert.match(off, /quotas: off$/m);
    assert.doesNotMatch(off, /quotas: on/);
    const memory = banner(server, configFrom([], { ...REQUIRED, GEOAPI_QUOTA_STATE_FILE: 'none' })).join('\n');
    assert.match(memory, /quotas: in memory, not saved$/m);
    const saved = configFrom([], { ...REQUIRED, GEOAPI_QUOTA_STATE_FILE: 'q.json' });
    assert.equal(describeQuota(saved.quota), `in memory, saved to ${resolve('q.json')} every 1000 ms`);
  });

  it('prints the configuration without secrets', () => {
    const config = configFrom([], {
      ...REQUIRED,
      GEOAPI_REDIS_URL: 'redis://user:redis-password@cache:6380/1',
      GEOAPI_CURSOR_SECRET: 'cursor-secret-value',
      GEOAPI_CURSOR_SECRET_PREVIOUS: 'older-secret-value',
      GEOAPI_KEY_HEADER_ALIASES: 'X-Legacy-Key',
    });
    const pinned = { MALLOC_MMAP_THRESHOLD_: '131072' };
    const lines = banner(server, config, pinned);
    const text = lines.join('\n');
    assert.equal(lines[0], 'geoapi listening on http://localhost:8080 (2 threads)');
    assert.match(text, /^snapshot: .*snap \(dataVersion abc; 250 countries\)$/m);
    assert.match(text, /quotas: in Redis at cache:6380\/1 \(1 replica expected\)/);
    assert.match(text, /key header aliases: X-Legacy-Key/);
    assert.match(text, /postcode cursors: GEOAPI_CURSOR_SECRET set, 1 previous secret accepted/);
    for (const secret of ['redis-password', 'cursor-secret-value', 'older-secret-value']) assert.ok(!text.includes(secret), `banner shows ${secret}`);
    const allocator = describeAllocator(pinned);
    assert.deepEqual(lines.slice(3, -4), [...describeConfig(config), ...(allocator === null ? [] : [allocator])]);
    assert.equal(lines.at(-4), 'gc: scavenges on the collecting thread alone (2 request threads on 2 cores: a helper would wait for a core they use)');
    assert.equal(lines.at(-3), "background threads: nice +10 for 6 threads (V8's compiler and GC helpers yield the cores to the request threads once ready)");
    assert.equal(lines.at(-2), 'worker code: one bundle (worker.bundle.js, made by `npm run build`)');
    assert.match(lines.at(-1)!, /^compat: none /);
  });

  it('says when the background threads run at the request threads\' priority, and why', () => {
    const same = banner({ ...server, background: { nice: 0, threads: 0, why: 'unchanged (--background-nice 0)', apply: () => {} } }, configFrom([], REQUIRED));
    assert.ok(same.includes('background threads: unchanged (--background-nice 0)'));
  });
});

describe('the allocator line', () => {
  it('says on Linux whether glibc\'s mmap threshold is pinned, and how to pin it when it is not', () => {
    assert.equal(describeAllocator({ MALLOC_MMAP_THRESHOLD_: '131072' }, 'linux'), 'allocator: MALLOC_MMAP_THRESHOLD_=131072 (glibc gives large freed buffers back)');
    assert.equal(describeAllocator({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072' }, 'linux'), 'allocator: glibc.malloc.mmap_threshold set in GLIBC_TUNABLES');
    assert.match(describeAllocator({}, 'linux')!, /^allocator: MALLOC_MMAP_THRESHOLD_ not set: .*set it to 131072 \(npm start and the systemd unit do\)$/);
    assert.match(describeAllocator({ MALLOC_MMAP_THRESHOLD_: ' ' }, 'linux')!, /not set/);
  });

  it('says nothing where glibc is not the allocator', () => {
    assert.equal(describeAllocator({}, 'darwin'), null);
    assert.equal(describeAllocator({}, 'win32'), null);
  });
});
