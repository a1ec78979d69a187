// The documented scale-out example, run as documented: run-replicas.sh starts a Redis, two geoapi
// replicas (`geoapi serve --redis …`) and nginx in front; one quota holds across both replicas.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { defaultSnapshotDir, REPO_ROOT, request } from '../../support/server.js';
import { burst, ReplicaSetup } from './fixtures/replica.js';
import { freePortBlock, redisUnavailableReason } from './fixtures/redis-server.js';

const SCRIPT = path.join(REPO_ROOT, 'deploy/replicas/run-replicas.sh');

function missing(): string | null {
  if (spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status !== 0) return 'nginx is not installed (apt-get install -y nginx-light)';
  return redisUnavailableReason(true);
}

const reason = missing();
if (reason && process.env['CI'] === 'true') test('the replicas example needs nginx and redis-server under CI', () => assert.fail(reason));

test('two replicas behind nginx sharing one Redis: 150 simultaneous requests on a fresh Community key give 100 × 200 and 50 × 429', { skip: reason ?? false }, async () => {
  const setup = new ReplicaSetup();
  const key = setup.key('community');
  const snapshot = await defaultSnapshotDir();
  // nginx on port, the replicas on port + 1 and + 2, the script's own Redis on port + 3.
  const port = await freePortBlock(4);
  const child = spawn('bash', [SCRIPT, '--snapshot', snapshot, '--keys', setup.keysFile, '--policy', setup.policyFile, '--port', String(port), '--replicas', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready: ')) resolve();
      });
      void exited.then((code) => reject(new Error(`run-replicas.sh exited (${code}) before it was ready:\n${output}`)));
    });
    const url = `http://127.0.0.1:${port}/v1/countries`;
    const { responses, byStatus } = await burst(() => request(url, { key }), 150);
    assert.deepEqual(byStatus, { 200: 100, 429: 50 }, output);
    const used = responses.filter((r) => r.status === 200).map((r) => Number(r.headers['x-geoapi-daily-used']));
    assert.deepEqual(used.sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i + 1));
    const refused = responses.find((r) => r.status === 429)!;
    assert.equal(refused.json().details.period, 'daily');
    assert.equal(refused.headers['cache-control'], 'no-store');
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0, `run-replicas.sh stops cleanly on SIGTERM:\n${output}`);
    setup.remove();
  }
});
