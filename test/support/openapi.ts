// Checks answers against the server's OpenAPI document (GET /openapi.json): the status must be one
// the operation documents, and the body must match that status's schema — for a 200 of a tiered
// operation, the schema of the caller's field tier (x-geoapi-tiers). JSON Schema 2020-12 (the
// dialect of OpenAPI 3.1) with ajv.
//
//   const check = openApiChecker(await (await fetch(`${url}/openapi.json`)).json());   // plans of data/policy.json
//   check.problem({ path: '/v1/countries/US', status: 200, plan: 'starter', body })  → null | 'what is wrong'
//   check.assert({ path, status, tier, body })
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadPolicy } from '../../runtime/access/policy.js';

const DOC_ID = 'https://geoapi.local/openapi.json';

export interface CheckedAnswer {
  /** Request path, with or without a query. */
  path: string;
  status: number;
  /** The caller's plan, or null for answers without a key. */
  plan: string | null;
  /** Parsed JSON body (undefined for a 304). */
  body: unknown;
}

interface Route {
  template: string;
  pattern: RegExp;
  operation: Record<string, any>;
}

const pointer = (...parts: string[]): string => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export interface OpenApiChecker {
  /** The operationId of a request path, or undefined. */
  operationOf(path: string): string | undefined;
  problem(answer: CheckedAnswer): string | null;
  assert(answer: CheckedAnswer, context?: string): void;
}

type Plans = Readonly<Record<string, { tier: string; countryTier: string }>>;

export function openApiChecker(doc: Record<string, any>, plans: Plans = loadPolicy().plans): OpenApiChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const routes: Route[] = Object.entries(doc.paths as Record<string, any>).map(([template, item]) => ({
    template,
    // Static segments win over parameters, as in the server (uWS): try templates with fewer parameters first.
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    operation: item.get,
  }));
  routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const validator = (ref: string): ReturnType<typeof ajv.compile> => {
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOC_ID}#${ref}` });
      compiled.set(ref, validate);
    }
    return validate;
  };
  const routeOf = (path: string): Route | undefined => {
    const bare = path.split('?')[0]!;
    return routes.find((route) => route.pattern.test(bare));
  };

  const problem = (answer: CheckedAnswer): string | null => {
    const route = routeOf(answer.path);
    if (!route) return `no operation of the document matches ${answer.path}`;
    const responses = route.operation.responses as Record<string, any>;
    const status = String(answer.status);
    const response = responses[status];
    if (!response) return `${route.operation.operationId} documents no ${status} (documented: ${Object.keys(responses).join(', ')})`;
    if (!response.content) return answer.body === undefined ? null : `${route.operation.operationId} ${status} documents no body`;
    let ref = `/${pointer('paths', route.template, 'get', 'responses', status, 'content', 'application/json', 'schema')}`;
    const tiers = response['x-geoapi-tiers'] as { tierOf: string; schemas: Record<string, unknown> } | undefined;
    const plan = answer.plan === null ? undefined : plans[answer.plan];
    const tier = plan === undefined ? undefined : tiers?.tierOf === 'countryTier' ? plan.countryTier : plan.tier;
    if (tiers && tier !== undefined) {
      if (tiers.schemas[tier] === undefined) return `${route.operation.operationId} documents no schema for the ${tier} tier`;
      ref = `/${pointer('paths', route.template, 'get', 'responses', status, 'x-geoapi-tiers', 'schemas', tier)}`;
    }
    const validate = validator(ref);
    if (validate(answer.body)) return null;
    return `${route.operation.operationId} ${status}${tier ? ` (${tier} tier)` : ''}: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(answer.body)?.slice(0, 300)}`;
  };

  return {
    operationOf: (path) => routeOf(path)?.operation.operationId as string | undefined,
    problem,
    assert(answer, context = '') {
      const found = problem(answer);
      if (found !== null) assert.fail(`${context}${context ? ': ' : ''}${answer.path} does not match the OpenAPI document: ${found}`);
    },
  };
}
