// The operations' parameter declarations (ParamSpec, what the OpenAPI document is generated from)
// agree with what their handlers parse: every handler is run in-process on the fixture snapshot
// with a query that records each name it reads, and the declared bounds and enums are probed at
// and just past their edges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callerFor } from '../../../runtime/access/gate.js';
import { loadPolicy } from '../../../runtime/access/policy.js';
import { ApiError } from '../../../runtime/contract/index.js';
import { engineFor } from '../../../runtime/engine/index.js';
import { paramNamesOf } from '../../../runtime/http/app.js';
import { allOperations } from '../../../runtime/routes/registry.js';
import type { Operation, ParamSpec, RequestContext } from '../../../runtime/routes/types.js';
import { fixtureSnapshot } from '../../support/snapshots.js';
import { usageReportOf } from '../../../runtime/access/usage.js';

const { store } = fixtureSnapshot();
const engine = engineFor(store);
const policy = loadPolicy();
const business = callerFor('test', 'business', policy);

/** A query map that remembers every name the handler asks about. */
class RecordingQuery extends Map<string, string> {
  readonly read = new Set<string>();
  override get(name: string): string | undefined {
    this.read.add(name);
    return super.get(name);
  }
  override has(name: string): boolean {
    this.read.add(name);
    return super.has(name);
  }
}

function pathParams(op: Operation): Record<string, string> {
  const params: Record<string, string> = {};
  for (const spec of op.params ?? []) if (spec.in === 'path') params[spec.name] = spec.example ?? 'x';
  return params;
}

/** The parameter a 400 names in the fields/sort messages of decisions.md (not in the "Invalid query parameters" form). */
function namedByMessage(message: string): string | null {
  if (/^Unknown field\(s\): /.test(message)) return 'fields';
  if (/^(Invalid sort token |Field ".*" is not sortable)/.test(message)) return 'sort';
  return null;
}

/** Runs the handler; returns the 400 message naming a parameter (or null when there is none) and the names read. */
function run(op: Operation, query: Record<string, string>): { badParam: string | null; message: string | null; read: Set<string> } {
  const recording = new RecordingQuery(Object.entries(query));
  const ctx: RequestContext = {
    params: pathParams(op),
    query: recording,
    header: () => undefined,
    caller: business,
    engine,
    store,
    now: new Date('2026-01-15T12:00:00Z'),
    requireFeature: () => undefined,
    hasFeature: () => true,
    usage: () => usageReportOf(business.plan, undefined, Date.parse('2026-01-15T12:00:00Z')),
  };
  try {
    op.handle(ctx);
    return { badParam: null, message: null, read: recording.read };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const named = /^Invalid query parameters: ([a-z_0-9]+):/.exec(error.message)?.[1] ?? namedByMessage(error.message);
    return { badParam: error.status === 400 ? (named ?? '?') : null, message: error.message, read: recording.read };
  }
}

/** Required parameters with their examples: a request that passes the required checks. */
function baseQuery(op: Operation): Record<string, string> {
  const query: Record<string, string> = {};
  for (const spec of op.params ?? []) if (spec.in === 'query' && spec.required) query[spec.name] = spec.example ?? 'x';
  return query;
}

const operations = allOperations();
/** 400s about a combination of parameters, which the declarations describe in words only. */
const CROSS_PARAMETER_RULES = /must differ from from/;
const queryParams = (op: Operation): ParamSpec[] => (op.params ?? []).filter((spec) => spec.in === 'query');

describe('operation parameter declarations', () => {
  it('every operation declares its parameters, documents itself, and declares exactly the path parameters of its route', () => {
    for (const op of operations) {
      assert.ok(op.params, `${op.name} declares no params`);
      assert.ok(op.doc, `${op.name} has no doc`);
      const declared = op.params.filter((spec) => spec.in === 'path').map((spec) => spec.name);
      assert.deepEqual(declared, paramNamesOf(op.path), `${op.name}: path parameters`);
      const names = op.params.map((spec) => `${spec.in}:${spec.name}`);
      assert.equal(new Set(names).size, names.length, `${op.name}: a parameter is declared twice`);
    }
  });

  it('every query parameter a handler reads is declared, and every declared one is read', () => {
    for (const op of operations) {
      const declared = new Set(queryParams(op).map((spec) => spec.name));
      const read = new Set<string>();
      const scenarios: Record<string, string>[] = [{}, baseQuery(op)];
      for (const spec of queryParams(op)) scenarios.push({ ...baseQuery(op), [spec.name]: spec.example ?? String(spec.default ?? spec.minimum ?? 'ab') });
      const all: Record<string, string> = {};
      for (const spec of queryParams(op)) all[spec.name] = spec.example ?? String(spec.default ?? spec.minimum ?? 'ab');
      scenarios.push(all);
      for (const query of scenarios) for (const name of run(op, query).read) read.add(name);
      const undeclared = [...read].filter((name) => !declared.has(name));
      assert.deepEqual(undeclared, [], `${op.name} reads query parameters it does not declare`);
      const unread = [...declared].filter((name) => !read.has(name));
      assert.deepEqual(unread, [], `${op.name} declares query parameters it never reads`);
    }
  });

  it('declared minimum, maximum and enum values are the ones parsing accepts, and just past them is a 400 naming the parameter', () => {
    let probes = 0;
    for (const op of operations) {
      for (const spec of queryParams(op)) {
        const accepted: string[] = [];
        const refused: string[] = [];
        if (spec.type === 'integer' || spec.type === 'number') {
          const step = spec.type === 'integer' ? 1 : 0.01;
          if (spec.minimum !== undefined) {
            accepted.push(String(spec.minimum));
            refused.push(String(Math.round((spec.minimum - step) * 100) / 100));
          }
          if (spec.maximum !== undefined) {
            accepted.push(String(spec.maximum));
            refused.push(String(Math.round((spec.maximum + step) * 100) / 100));
          }
          if (spec.default !== undefined) accepted.push(String(spec.default));
          refused.push('abc');
        }
        if (spec.enum && spec.type !== 'list') {
          accepted.push(...spec.enum);
          refused.push('bogus_value');
        }
        if (spec.type === 'list' && spec.enum) {
          accepted.push(spec.enum.join(','));
          refused.push('bogus_field');
        }
        if (spec.minLength !== undefined && spec.maxLength !== undefined && spec.type === 'string' && spec.name === 'q') {
          accepted.push('a'.repeat(spec.minLength), 'a'.repeat(spec.maxLength));
          refused.push('a'.repeat(spec.minLength - 1 || 0), 'a'.repeat(spec.maxLength + 1));
        }
        for (const value of accepted) {
          const { badParam, message } = run(op, { ...baseQuery(op), [spec.name]: value });
          // Rules across parameters are not per-value bounds (to=iso2 with from=iso2).
          if (message !== null && CROSS_PARAMETER_RULES.test(message)) continue;
          assert.notEqual(badParam, spec.name, `${op.name}: ${spec.name}=${value} is declared valid but refused: ${message}`);
          probes++;
        }
        for (const value of refused) {
          const outcome = run(op, { ...baseQuery(op), [spec.name]: value });
          // Empty q is absent for list operations (no filter): only refused when declared required.
          if (value === '' && !spec.required) continue;
          assert.equal(outcome.badParam, spec.name, `${op.name}: ${spec.name}=${value.slice(0, 20)} is declared invalid but answered ${outcome.message ?? 'OK'}`);
          probes++;
        }
      }
    }
    assert.ok(probes > 150, `only ${probes} probes`);
  });
});
