// The OpenAPI 3.1 document of the operations, generated from what the server itself runs on: each
// Operation's path, error shape and declared parameters (ParamSpec, the same constants its parsing
// uses), the response JSON Schemas of schemas/http/ (the ones the contract tests validate with),
// and the policy (which plan opens each operation and parameter, which tier gets which fields).
// Pure: the HTTP layer builds the document once per policy and serves the bytes.
//
//   loadResponseSchemas() → ResponseSchemas    (schemas/http/*.json)
//   openApiDocument({operations, policy, schemas, version}) → OpenApiDocument (a JSON value)
//   operationPath(op.path) → '/v1/countries/{ciso}'
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Policy } from '../access/policy.js';
import type { ErrorShape, Tier } from '../contract/index.js';
import type { Operation, ParamSpec, ResponseDoc } from './types.js';

export type JsonSchema = Record<string, unknown>;
/** Schema name (file name without .json, e.g. 'country.basic') → JSON Schema as written. */
export type ResponseSchemas = ReadonlyMap<string, JsonSchema>;
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

export const KEY_HEADER_NAME = 'X-GEOAPI-KEY';
const SCHEMAS_DIR = fileURLToPath(new URL('../../../schemas/', import.meta.url));
const TIERS: readonly Tier[] = ['basic', 'coordinates', 'full'];

/** Every response schema of schemas/http/. */
export function loadResponseSchemas(dir: string = SCHEMAS_DIR): ResponseSchemas {
  const files = readdirSync(join(dir, 'http')).filter((name) => name.endsWith('.json')).map((name) => join(dir, 'http', name));
  const schemas = new Map<string, JsonSchema>();
  for (const file of files.sort()) {
    try {
      schemas.set(basename(file, '.json'), JSON.parse(readFileSync(file, 'utf8')) as JsonSchema);
    } catch (error) {
      throw new Error(`OpenAPI: cannot read the response schema ${file}: ${(error as Error).message}`);
    }
  }
  return schemas;
}

/** '/v1/countries/:ciso' → '/v1/countries/{ciso}'. */
export function operationPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export const componentRef = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });

/**
 * The schemas as OpenAPI components: `$schema`/`$id` dropped, each file's `definitions` lifted to
 * components named `<file>.<definition>`, and references rewritten to point at components.
 */
function components(schemas: ResponseSchemas): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, schema] of schemas) {
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (typeof value !== 'object' || value === null) return value;
      const copy: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string') {
          if (inner.startsWith('#/definitions/')) copy[key] = componentRef(`${name}.${inner.slice('#/definitions/'.length)}`).$ref;
          else if (inner.endsWith('.json')) copy[key] = componentRef(basename(inner, '.json')).$ref;
          else throw new Error(`OpenAPI: schema ${name}: cannot rewrite the reference ${JSON.stringify(inner)}`);
        } else copy[key] = rewrite(inner);
      }
      return copy;
    };
    const { $schema: _schema, $id: _id, definitions, ...rest } = schema;
    out[name] = rewrite(rest) as JsonSchema;
    for (const [defName, definition] of Object.entries((definitions ?? {}) as Record<string, unknown>)) {
      out[`${name}.${defName}`] = rewrite(definition) as JsonSchema;
    }
  }
  return out;
}

/** Plans by rank, named as the policy does; "x and above" text of a minimum plan. */
function plansFrom(policy: Policy, minRank: number): string {
  const names = Object.values(policy.plans).filter((plan) => plan.rank >= minRank).sort((a, b) => a.rank - b.rank).map((plan) => plan.name);
  return names.join(', ');
}

function plansOfTier(policy: Policy, tierOf: 'tier' | 'countryTier', tier: Tier): string[] {
  return Object.values(policy.plans).filter((plan) => plan[tierOf] === tier).sort((a, b) => a.rank - b.rank).map((plan) => plan.name);
}

/** The JSON Schema of a parameter's value. */
function paramSchema(spec: ParamSpec): JsonSchema {
  const schema: JsonSchema = {};
  if (spec.type === 'list') {
    schema.type = 'array';
    schema.items = spec.enum ? { type: 'string', enum: [...spec.enum] } : { type: 'string' };
    return schema;
  }
  schema.type = spec.type;
  if (spec.enum) schema.enum = [...spec.enum];
  if (spec.minimum !== undefined) schema.minimum = spec.minimum;
  if (spec.maximum !== undefined) schema.maximum = spec.maximum;
  if (spec.minLength !== undefined) schema.minLength = spec.minLength;
  if (spec.maxLength !== undefined) schema.maxLength = spec.maxLength;
  if (spec.pattern !== undefined) schema.pattern = spec.pattern;
  if (spec.default !== undefined) schema.default = spec.default;
  return schema;
}

function parameterObject(spec: ParamSpec, op: Operation, policy: Policy): Record<string, unknown> {
  let description = spec.description;
  if (spec.feature !== undefined) {
    const requirement = policy.operations.get(op.name)?.features.get(spec.feature);
    if (requirement !== undefined) {
      description += spec.ignoredBelow
        ? ` Honoured for plans ${plansFrom(policy, requirement.minRank)} (feature ${spec.feature}); ignored below.`
        : ` Plans ${plansFrom(policy, requirement.minRank)} (feature ${spec.feature}); 403 below.`;
    }
  }
  const parameter: Record<string, unknown> = { name: spec.name, in: spec.in, description, required: spec.in === 'path' || spec.required === true, schema: paramSchema(spec) };
  if (spec.type === 'list') {
    parameter.style = 'form';
    parameter.explode = false;
  }
  // Optional parameters carry no example: Swagger UI would send it, and most are behind a plan feature.
  if (spec.example !== undefined && parameter.required === true) parameter.example = spec.type === 'list' ? spec.example.split(',') : spec.example;
  return parameter;
}

const jsonContent = (schema: JsonSchema): Record<string, unknown> => ({ content: { 'application/json': { schema } } });
const errorSchema = (shape: ErrorShape): string => (shape === 'A' ? 'error-a' : 'error-b');

/** The 200 body schema, and per field tier the schema a caller of that tier gets (x-geoapi-tiers). */
function okResponse(response: ResponseDoc, policy: Policy): Record<string, unknown> {
  const wrap = (name: string): JsonSchema => (response.list ? { type: 'array', items: componentRef(name) } : componentRef(name));
  if ('schema' in response) return { description: 'OK', ...jsonContent(wrap(response.schema)) };
  const byTier: Record<string, JsonSchema> = {};
  const lines: string[] = [];
  const distinct: string[] = [];
  for (const tier of TIERS) {
    const name = response.schemas[tier];
    if (name === undefined) continue;
    byTier[tier] = wrap(name);
    if (!distinct.includes(name)) distinct.push(name);
    const plans = plansOfTier(policy, response.tierOf, tier);
    if (plans.length > 0) lines.push(`${tier} tier (${plans.join(', ')}): ${name}`);
  }
  const schema = distinct.length === 1 ? wrap(distinct[0]!) : { anyOf: distinct.map(wrap) };
  return {
    description: `OK. The fields depend on the key's plan: ${lines.join('; ')}.`,
    ...jsonContent(schema),
    'x-geoapi-tiers': { tierOf: response.tierOf, schemas: byTier },
  };
}

function operationObject(op: Operation, policy: Policy): Record<string, unknown> {
  const doc = op.doc;
  const opPolicy = policy.operations.get(op.name);
  const gate = opPolicy?.gate ?? null;
  const params = op.params ?? [];
  const plans = gate === null ? 'Every plan.' : `Plans ${plansFrom(policy, gate.minRank)} (feature ${gate.feature}); 403 below.`;
  const description = [doc?.description, plans, `Errors in shape ${op.errorShape}.`].filter((part) => part !== undefined).join(' ');
  const responses: Record<string, unknown> = {};
  responses['200'] = doc ? okResponse(doc.response, policy) : { description: 'OK', ...jsonContent({}) };
  const statuses = new Set(doc?.statuses ?? [400, 404]);
  if (statuses.has(304)) responses['304'] = { description: 'Not modified: the If-None-Match ETag is current.' };
  // Any operation: the HTTP layer refuses malformed query strings (a name twice, bad percent-encoding).
  responses['400'] = { description: statuses.has(400) ? 'A parameter is invalid, or the query string is malformed.' : 'The query string is malformed (a name twice, bad percent-encoding).', ...jsonContent(componentRef(errorSchema(op.errorShape))) };
  responses['401'] = { description: `No ${KEY_HEADER_NAME} header, or an unknown, revoked or expired key.`, ...jsonContent(componentRef('error-a')) };
  const featureParams = params.some((spec) => spec.feature !== undefined && !spec.ignoredBelow);
  if (gate !== null || featureParams) {
    responses['403'] = { description: "The key's plan does not include this operation or parameter.", ...jsonContent(componentRef(op.errorShape === 'A' ? 'forbidden-a' : 'forbidden-b')) };
  }
  if (statuses.has(404)) responses['404'] = { description: 'Not found.', ...jsonContent(componentRef(errorSchema(op.errorShape))) };
  responses['429'] = { description: "The plan's daily or monthly quota is used up (Retry-After says for how long).", ...jsonContent(componentRef('rate-limited')) };
  responses['500'] = { description: 'A bug: logged with the request id.', ...jsonContent(componentRef('server-error')) };
  return {
    operationId: op.name,
    summary: doc?.summary ?? op.name,
    description,
    tags: [doc?.tag ?? 'Other'],
    parameters: params.map((spec) => parameterObject(spec, op, policy)),
    responses,
    ...(gate === null ? {} : { 'x-geoapi-feature': gate.feature, 'x-geoapi-minimum-plan': gate.minPlan }),
  };
}

export interface OpenApiInput {
  operations: readonly Operation[];
  policy: Policy;
  schemas: ResponseSchemas;
  /** The package version (info.version). */
  version: string;
}

export function openApiDocument(input: OpenApiInput): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  for (const op of input.operations) {
    const operation = operationObject(op, input.policy);
    const tag = (operation.tags as string[])[0]!;
    if (!tags.includes(tag)) tags.push(tag);
    paths[operationPath(op.path)] = { get: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'geoapi',
      version: input.version,
      summary: 'Geographic reference data: countries, states, cities, regions, postcodes, timezones, currencies, dial codes, ISO codes and search.',
      description:
        `Every operation is a GET answered from an in-memory snapshot and needs a key in the ${KEY_HEADER_NAME} header. ` +
        "The key's plan decides which operations and parameters are open (403 otherwise) and which fields are returned (its tier). " +
        'Every response carries X-Request-ID and X-GEOAPI-Data-Version; keyed responses carry the plan and its usage (X-GEOAPI-Plan, X-GEOAPI-Daily-Used, RateLimit, …).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: tags.map((name) => ({ name })),
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: KEY_HEADER_NAME, description: 'An API key (geoapi keys add --plan <plan>).' } },
      schemas: components(input.schemas),
    },
  };
}

/** The package's version (package.json beside dist/), for info.version. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Everything the document is built from, read from disk once (schemas, version). */
export function openApiDocumentFor(operations: readonly Operation[], policy: Policy): OpenApiDocument {
  return openApiDocument({ operations, policy, schemas: loadResponseSchemas(), version: packageVersion() });
}
