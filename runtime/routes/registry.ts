// Every operation the server exposes; runtime/http registers each path natively with uWS.
import { configurePostcodeCursors, postcodeOperations } from './postcodes/index.js';
import { changeOperations, configureChangeTokens } from './changes/index.js';
import { referenceOperations } from './reference/index.js';
import { usageOperation } from './account/usage.js';
import { searchOperations } from './search/index.js';
import type { Operation } from './types.js';
import { preparationSteps } from '../engine/index.js';
import { CITY_FIELDS, STATE_FIELDS } from '../render/fields.js';
import { projectionFor } from '../render/projection.js';
import { warmRowJson } from '../render/row-json.js';
import type { Store } from '../store/types.js';
import { settleBufferMaps, warmUpSteps } from './warm-up.js';

/** Rows of each table the row writer runs over at each tier, and how many per preparation step. */
const WARM_ROWS = 2000;
const WARM_ROWS_PER_STEP = 500;

/**
 * What the first requests would otherwise prepare (runtime/engine preparationSteps), then the row
 * writer run over some rows at each tier, then (given the server's clock) every operation's
 * warm-up requests (warm-up.ts): steps for the server to run between requests after loading.
 */
export function preparationStepsFor(store: Store, nowMs?: () => number): (() => void)[] {
  // Before any step optimizes code that would otherwise be thrown away (see there).
  settleBufferMaps();
  const steps = preparationSteps(store);
  for (const [table, set] of [[store.cities, CITY_FIELDS], [store.states, STATE_FIELDS]] as const) {
    const rowBytes = table.rowBytes;
    if (rowBytes === null) continue;
    const rows = Math.min(table.count, WARM_ROWS);
    // In slices: a step holds its thread for its whole length, and a swap's preparation runs while the thread serves.
    for (const tier of ['basic', 'coordinates', 'full'] as const) {
      for (let from = 0; from < rows; from += WARM_ROWS_PER_STEP) steps.push(() => warmRowJson(rowBytes, projectionFor(set, tier), from, Math.min(rows, from + WARM_ROWS_PER_STEP)));
    }
  }
  if (nowMs !== undefined) steps.push(...warmUpSteps(store, allOperations(), nowMs));
  return steps;
}

export function allOperations(): Operation[] {
  return [...referenceOperations, ...postcodeOperations, ...searchOperations, ...changeOperations, usageOperation];
}

/** What the operations are configured with (runtime/config.ts reads it; each worker applies it). */
export interface OperationSettings {
  /** Signs new postcode cursors (GEOAPI_CURSOR_SECRET); null: a random one per process. */
  cursorSecret: string | null;
  /** Still verify (GEOAPI_CURSOR_SECRET_PREVIOUS, rotation). */
  previousCursorSecrets: string[];
}

/**
 * Applies the settings to the operations' module state, before the first request. The secret is
 * always set here: the main thread draws one for every thread when none is configured.
 */
export function configureOperations(settings: OperationSettings & { cursorSecret: string }): void {
  const secrets = {
    current: Buffer.from(settings.cursorSecret, 'utf8'),
    previous: settings.previousCursorSecrets.map((secret) => Buffer.from(secret, 'utf8')),
    // The main thread already said so when it drew a random secret.
    ephemeral: false,
  };
  // Change-feed tokens use the postcode cursors' secrets (decisions.md: same machinery).
  configurePostcodeCursors(secrets);
  configureChangeTokens(secrets);
}

