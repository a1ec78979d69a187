// Shared by the search tests: snapshots (fixture built once per process; the full dataset via the
// machine-wide cached build of test/reference/support/snapshots.ts), direct operation calls, a
// real server (test/support/server.ts) over the fixture, the JSON Schemas, and a seeded PRNG.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';
import { buildSnapshot } from '../../../build-index/build.js';
import { searchOperations } from '../../../runtime/routes/search/index.js';
import { ApiError, type PlanName } from '../../../runtime/contract/index.js';
import { bodyOf, type Operation } from '../../../runtime/routes/types.js';
import { loadStore } from '../../../runtime/store/index.js';
import type { Store } from '../../../runtime/store/types.js';
import { contextFor } from '../reference/support/context.js';
import { startTestServer, type TestServer } from '../../support/server.js';
export { prng } from '../../support/random.js';

/** A real server (child process, one worker, no quotas) over the fixture snapshot, one key per plan. */
export function startSearchServer(): Promise<TestServer> {
  return startTestServer({ snapshotDir: fixtureSnapshotDir() });
}

export { fullDatasetSkip, fullSnapshot } from '../../support/snapshots.js';

import { fixtureSource, repoRoot } from '../../support/paths.js';
export { fixtureSource, repoRoot };

export const PLANS: readonly PlanName[] = ['community', 'starter', 'supporter', 'professional', 'business', 'legacy'];

const byName = new Map(searchOperations.map((op) => [op.name, op]));
export function operation(name: 'autocomplete' | 'fuzzySearch' | 'nearbySearch' | 'reverseLookup'): Operation {
  const op = byName.get(name);
  if (!op) throw new Error(`search operation ${name} not exported by runtime/routes/search/index.ts`);
  return op;
}

let fixtureDir: string | null = null;
let fixture: Store | null = null;

/** The fixture snapshot directory (test/fixtures/csc), built into a temp dir once per process. */
export function fixtureSnapshotDir(): string {
  if (!fixtureDir) {
    const dir = mkdtempSync(join(tmpdir(), 'geoapi-search-fixture-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    buildSnapshot({ source: fixtureSource, out: join(dir, 'snapshot') });
    fixtureDir = join(dir, 'snapshot');
  }
  return fixtureDir;
}

export function fixtureStore(): Store {
  fixture ??= loadStore(fixtureSnapshotDir());
  return fixture;
}

export interface Called {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Calls an operation handler directly (no HTTP) with the real policy's gates for `plan`. */
export function call(store: Store, name: 'autocomplete' | 'fuzzySearch' | 'nearbySearch' | 'reverseLookup', query: Record<string, string>, plan: PlanName = 'business'): Called {
  const op = operation(name);
  try {
    const reply = op.handle(contextFor(store, op, { plan, query }));
    return { status: reply.status, body: JSON.parse(String(bodyOf(reply))), headers: reply.headers ?? {} };
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, body: { message: error.message, details: error.details }, headers: {} };
    throw error;
  }
}

/** The items of a 200 reply (fails the test otherwise). */
export function items(called: Called): Record<string, unknown>[] {
  if (called.status !== 200) throw new Error(`expected 200, found ${called.status}: ${JSON.stringify(called.body)}`);
  return called.body as Record<string, unknown>[];
}

// ---- JSON Schemas ------------------------------------------------------------------------------

const Ajv = AjvModule as unknown as typeof AjvModule.default;
const ajv = new Ajv({ allErrors: true, strict: false });
const errorSchemas = JSON.parse(readFileSync(join(repoRoot, 'schemas/http/search-errors.json'), 'utf8')) as { $id: string };
ajv.addSchema(errorSchemas);

function schema(file: string): (data: unknown) => string | null {
  const validate = ajv.compile(JSON.parse(readFileSync(join(repoRoot, 'schemas/http', file), 'utf8')) as object);
  return (data) => (validate(data) ? null : ajv.errorsText(validate.errors, { separator: '\n' }));
}

export const validators = {
  autocomplete: schema('search-autocomplete.json'),
  fuzzySearch: schema('search-fuzzy.json'),
  nearbySearch: schema('search-nearby.json'),
  reverseLookup: schema('reverse.json'),
  errorA: (data: unknown) => check(`${errorSchemas.$id}#/definitions/shapeA`, data),
  errorA403: (data: unknown) => check(`${errorSchemas.$id}#/definitions/shapeA403`, data),
  errorB: (data: unknown) => check(`${errorSchemas.$id}#/definitions/shapeB`, data),
  errorB403: (data: unknown) => check(`${errorSchemas.$id}#/definitions/shapeB403`, data),
};

function check(ref: string, data: unknown): string | null {
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`schema ${ref} not found`);
  return validate(data) ? null : ajv.errorsText(validate.errors, { separator: '\n' });
}

// ---- randomness --------------------------------------------------------------------------------

