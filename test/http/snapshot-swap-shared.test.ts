// A reload's snapshot-prepare message carries the new snapshot's own shared structures
// (runtime/engine/shared.ts), built from that snapshot when it was loaded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SHARED } from '../../runtime/engine/shared-names.js';
import type { MainToWorker, WorkerToMain } from '../../runtime/http/protocol.js';
import { startSnapshotSwapper } from '../../runtime/http/snapshot-swap.js';
import { fixtureSnapshot } from '../support/snapshots.js';

describe('snapshot swap and shared structures', () => {
  it('sends a reloaded snapshot to the workers together with the shared structures built from it', async () => {
    const { dir } = fixtureSnapshot();
    const prepared: MainToWorker[] = [];
    const swapper = startSnapshotSwapper({
      snapshotDir: dir,
      // Another identity than the snapshot on disk, so each reload swaps.
      initial: { dataVersion: 'older', recordCounts: {}, builtAt: '' },
      swappable: true,
      askAll: async (message): Promise<WorkerToMain[]> => {
        prepared.push(message);
        return message.type === 'snapshot-prepare' ? [{ type: 'snapshot-prepared', generation: message.generation }] : [];
      },
      broadcast: () => undefined,
      log: () => undefined,
      watchIntervalMs: null,
    });
    assert.equal((await swapper.reload('test')).status, 'swapped');
    const first = prepared.at(-1);
    assert.ok(first?.type === 'snapshot-prepare');
    const derived = first.snapshot.derived ?? {};
    assert.ok(derived[SHARED.cityKinds] instanceof SharedArrayBuffer);
    assert.ok(derived[SHARED.localityByteStarts] instanceof SharedArrayBuffer);
    swapper.stop();
  });
});
