// Response schemas (schemas/http/*.json) compiled once with ajv; `assertSchema` fails with ajv's errors.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { repoRoot } from './context.js';

const BASE = 'https://geoapi.local/schemas/';
const ajv = new Ajv({ allErrors: true, strict: false });
// Only the reference operations' schemas (other areas keep theirs beside them).
const REFERENCE_SCHEMAS = /^(country|state|city|region|subregion)\.[a-z]+\.json$|^(currency|phone-entry|phone-parse|iso-country|iso-state|iso-convert|timezone|data-version|error-a|error-b|forbidden-a|forbidden-b)\.json$/;
for (const file of readdirSync(join(repoRoot, 'schemas/http')).filter((f) => REFERENCE_SCHEMAS.test(f))) {
  ajv.addSchema(JSON.parse(readFileSync(join(repoRoot, 'schemas/http', file), 'utf8')) as object);
}

type Validate = ReturnType<typeof ajv.compile>;
const compiled = new Map<string, Validate>();

function validator(name: string, list: boolean): Validate {
  const key = `${name}${list ? '[]' : ''}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = list ? ajv.compile({ type: 'array', items: { $ref: `${BASE}${name}` } }) : ajv.getSchema(`${BASE}${name}`)!;
    assert.ok(validate, `schema ${name} not found in schemas/http/`);
    compiled.set(key, validate);
  }
  return validate;
}

/** Asserts `body` matches schemas/http/<name> (or an array of it when name ends with `[]`). */
export function assertSchema(body: unknown, name: string, context = ''): void {
  const list = name.endsWith('[]');
  const validate = validator(list ? name.slice(0, -2) : name, list);
  if (!validate(body)) {
    assert.fail(`${context} does not match ${name}: ${ajv.errorsText(validate.errors)}\nbody: ${JSON.stringify(body).slice(0, 500)}`);
  }
}
