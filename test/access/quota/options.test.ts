import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_QUOTA_OPTIONS, quotaOptionsFrom } from '../../../runtime/access/quota/options.js';

test('defaults to in-memory counters persisted every second to data/quota-state.json', () => {
  const options = quotaOptionsFrom({});
  assert.equal(options.mode, 'memory');
  assert.equal(options.stateFile, path.resolve('data/quota-state.json'));
  assert.equal(options.persistIntervalMs, 1000);
  assert.deepEqual(options, { ...DEFAULT_QUOTA_OPTIONS });
});

test('a Redis URL from the environment or --redis selects Redis mode', () => {
  assert.equal(quotaOptionsFrom({ GEOAPI_REDIS_URL: 'redis://r:6379' }).mode, 'redis');
  const flagged = quotaOptionsFrom({}, { redisUrl: 'redis://flag:6380/2' });
  assert.equal(flagged.mode, 'redis');
  assert.equal(flagged.redisUrl, 'redis://flag:6380/2');
  // An explicit mode wins.
  assert.equal(quotaOptionsFrom({ GEOAPI_REDIS_URL: 'redis://r:6379', GEOAPI_QUOTA: 'memory' }).mode, 'memory');
});

test('reads every setting from the environment', () => {
  const options = quotaOptionsFrom({
    GEOAPI_QUOTA_STATE_FILE: 'none',
    GEOAPI_QUOTA_PERSIST_MS: '250',
    GEOAPI_QUOTA_SLOTS: '1024',
    GEOAPI_REDIS_URL: 'rediss://secure:6380',
    GEOAPI_REDIS_PREFIX: 'geo:',
    GEOAPI_REDIS_TIMEOUT_MS: '100',
    GEOAPI_REDIS_BATCH: 'none',
    GEOAPI_REDIS_CONNECT_WAIT_MS: '0',
    GEOAPI_REPLICAS: '3',
    GEOAPI_QUOTA_LOG_INTERVAL_MS: '5000',
  });
  assert.deepEqual(options, {
    mode: 'redis',
    stateFile: null,
    persistIntervalMs: 250,
    capacity: 1024,
    redisUrl: 'rediss://secure:6380',
    redisKeyPrefix: 'geo:',
    redisTimeoutMs: 100,
    redisBatch: 'none',
    redisConnectWaitMs: 0,
    replicas: 3,
    logIntervalMs: 5000,
  });
});

test('refuses bad settings, saying what was expected and found', () => {
  assert.throws(() => quotaOptionsFrom({ GEOAPI_QUOTA: 'sometimes' }), /GEOAPI_QUOTA: expected "off", "memory" or "redis", found "sometimes"/);
  assert.throws(() => quotaOptionsFrom({ GEOAPI_QUOTA_PERSIST_MS: '1s' }), /GEOAPI_QUOTA_PERSIST_MS: expected an integer from 10 to 3600000, found "1s"/);
  assert.throws(() => quotaOptionsFrom({ GEOAPI_REPLICAS: '0' }), /GEOAPI_REPLICAS: expected an integer from 1/);
  assert.throws(() => quotaOptionsFrom({ GEOAPI_QUOTA: 'redis' }), /expected a Redis URL \(--redis <url> or GEOAPI_REDIS_URL\), found none/);
  assert.throws(() => quotaOptionsFrom({ GEOAPI_REDIS_URL: 'localhost:6379' }), /expected redis:\/\/host:port, rediss:\/\/… or unix:\/\/\/path\/to\/redis.sock, found "localhost:6379"/);
  assert.equal(quotaOptionsFrom({ GEOAPI_REDIS_URL: 'unix:///run/redis/redis.sock' }).mode, 'redis');
  assert.throws(() => quotaOptionsFrom({ GEOAPI_REDIS_BATCH: 'yes' }), /expected "script" or "none", found "yes"/);
});
