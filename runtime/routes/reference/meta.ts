// GET /v1/meta/data-version: what the snapshot was built from (all plans).
import type { Operation } from '../types.js';
import { CACHE_SHORT, renderedJson } from './common.js';

export const dataVersion: Operation = {
  name: 'dataVersion',
  path: '/v1/meta/data-version',
  errorShape: 'A',
  params: [],
  doc: { tag: 'Meta', summary: 'What the loaded snapshot was built from', response: { schema: 'data-version' }, statuses: [] },
  handle(ctx) {
    const { manifest } = ctx.store;
    const body = {
      dataVersion: manifest.dataVersion,
      sourceRelease: manifest.sourceRelease,
      updatedAt: manifest.builtAt,
      recordCounts: manifest.recordCounts,
    };
    return renderedJson(() => JSON.stringify(body), CACHE_SHORT);
  },
};
