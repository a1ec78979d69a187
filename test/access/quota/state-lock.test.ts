// Two servers given the same quota state file: the second refuses to start (it would overwrite
// the first one's counts every second); a lock left by a killed server is taken over.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { QuotaStateFile } from '../../../runtime/access/quota/state-file.js';
import { CounterTable } from '../../../runtime/access/quota/counter-table.js';
import { startTestServer } from '../../support/server.js';
import { fixtureSnapshot, tempDir } from '../../cli/support.js';

test('a second server on the same quota state file refuses to start, naming the file and the first server', async () => {
  const stateFile = join(tempDir(), 'quota-state.json');
  const env = { GEOAPI_QUOTA_STATE_FILE: stateFile };
  const first = await startTestServer({ snapshotDir: fixtureSnapshot(), quota: 'default', env });
  try {
    await assert.rejects(
      startTestServer({ snapshotDir: fixtureSnapshot(), quota: 'default', env }),
      new RegExp(`state file ${stateFile.replace(/[.]/g, '\\.')} is in use by process ${first.pid} .*GEOAPI_QUOTA_STATE_FILE.*--redis`),
    );
    assert.equal((await first.get('/v1/countries/US', { plan: 'business' })).status, 200, 'the first server keeps serving');
  } finally {
    assert.equal(await first.stop(), 0);
    await first.close();
  }
  assert.equal(existsSync(`${stateFile}.lock`), false, 'a graceful stop releases the lock');
  const next = await startTestServer({ snapshotDir: fixtureSnapshot(), quota: 'default', env });
  await next.close();
});

test('a lock left by a server that was killed is taken over, with a log line', async () => {
  const stateFile = join(tempDir(), 'quota-state.json');
  const killed = await startTestServer({ snapshotDir: fixtureSnapshot(), quota: 'default', env: { GEOAPI_QUOTA_STATE_FILE: stateFile } });
  process.kill(killed.pid, 'SIGKILL');
  await killed.close();
  assert.equal(JSON.parse(readFileSync(`${stateFile}.lock`, 'utf8')).pid, killed.pid, 'SIGKILL leaves the lock behind');
  const next = await startTestServer({ snapshotDir: fixtureSnapshot(), quota: 'default', env: { GEOAPI_QUOTA_STATE_FILE: stateFile } });
  try {
    await next.waitForLog(new RegExp(`taking over the stale lock .*process ${killed.pid} is gone`));
    assert.equal((await next.get('/v1/countries/US', { plan: 'business' })).status, 200);
  } finally {
    await next.close();
  }
});

test('a lock file that is not ours and unreadable is treated as stale', () => {
  const stateFile = join(tempDir(), 'quota-state.json');
  writeFileSync(`${stateFile}.lock`, '\0\0\0');
  const logs: string[] = [];
  const state = new QuotaStateFile(stateFile, CounterTable.create(64), { intervalMs: 1000, log: (m) => logs.push(m) });
  assert.equal(state.load(), 0);
  assert.match(logs.join('\n'), /taking over the stale lock .*unreadable/);
});
