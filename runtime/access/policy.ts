// The access policy (data/policy.json): plans with their gate rank, field tiers and quotas,
// features with their minimum plan, and per-operation gates and overrides. Checked once when read;
// every error names the JSON path and says what was expected and what was found.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlanName, Tier } from '../contract/index.js';

export const POLICY_FORMAT = 'geoapi-policy';
export const POLICY_FORMAT_VERSION = 1;
const TIERS: readonly Tier[] = ['basic', 'coordinates', 'full'];
const COUNTRY_TIERS = ['basic', 'full'] as const;

/** Default policy file: data/policy.json at the package root (this file is dist/runtime/access/policy.js). */
export const DEFAULT_POLICY_FILE = fileURLToPath(new URL('../../../data/policy.json', import.meta.url));


export interface PlanQuota {
  daily: number;
  monthly: number;
  /** All keys of the plan count in one bucket (playground). */
  sharedBucket: boolean;
}

export interface PlanPolicy {
  name: PlanName;
  rank: number;
  tier: Tier;
  countryTier: 'basic' | 'full';
  quota: PlanQuota | null;
}

export interface FeatureRequirement {
  feature: string;
  /** Lowercase plan name shown as requiredTier. */
  minPlan: PlanName;
  minRank: number;
}

export interface OperationPolicy {
  /** The operation's own gate, or null when every valid key may call it. */
  gate: FeatureRequirement | null;
  /** Minimum plan of every feature for this operation (defaults merged with overrides). */
  features: ReadonlyMap<string, FeatureRequirement>;
}

/**
 * Which clients the answers are shaped for: 'none' (the spec's names only) or 'csc' (also the
 * hosted public service's: X-CSCAPI-KEY, X-CSC-* headers, flat 429 fields; decisions.md).
 */
export type CompatMode = 'none' | 'csc';
export const COMPAT_MODES: readonly CompatMode[] = ['none', 'csc'];
/** The key header the public service's clients send; accepted in compat "csc". */
export const CSC_KEY_HEADER = 'x-cscapi-key';

export interface Policy {
  /** `compat` of the policy file, unless the configuration (--compat / GEOAPI_COMPAT) set it. */
  compat: CompatMode;
  upgradeUrl: string;
  forbiddenMessage: string;
  /** Lower-cased extra key header names (X-GEOAPI-KEY is always accepted). */
  aliasKeyHeaders: readonly string[];
  privateMaxAgeSeconds: number;
  corsOrigins: readonly string[];
  plans: Readonly<Record<PlanName, PlanPolicy>>;
  /** Default minimum plan by feature name. */
  features: ReadonlyMap<string, FeatureRequirement>;
  operations: ReadonlyMap<string, OperationPolicy>;
  /** The parsed JSON, for modules reading their own sections (quotas). */
  source: Record<string, unknown>;
}

/** A JSON.parse error, put plainly for files of NUL bytes (a disk or copy accident), which JSON.parse shows as blanks. */
export function describeJsonError(text: string, error: unknown): string {
  if (text.length > 0 && /^\0+$/.test(text)) return `the file holds only NUL bytes (${text.length} of them; was it truncated or zero-filled by a crash or a bad copy?)`;
  if (text.trim() === '') return 'the file is empty';
  return (error as Error).message.replace(/\0/g, '\\0');
}

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

type Json = Record<string, unknown>;

const show = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

function fail(where: string, expected: string, found: unknown): never {
  throw new PolicyError(`policy: ${where}: expected ${expected}, found ${show(found)}`);
}

function objectAt(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'an object', value);
  return value as Json;
}

/** Entries of an object, skipping "$comment"-style keys. */
function entries(value: Json): [string, unknown][] {
  return Object.entries(value).filter(([key]) => !key.startsWith('$'));
}

function planNameAt(value: unknown, where: string): PlanName {
  if (typeof value !== 'string' || !(PLAN_NAMES as readonly string[]).includes(value)) fail(where, `a plan name (${PLAN_NAMES.join(', ')})`, value);
  return value as PlanName;
}

function integerAt(value: unknown, where: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(where, `an integer from ${min} to ${max}`, value);
  return value;
}

function stringListAt(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.length === 0)) fail(where, 'an array of non-empty strings', value);
  return value as string[];
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Parses and checks policy JSON text. `extraAliasHeaders` come from the environment;
 * `compatOverride` from --compat / GEOAPI_COMPAT (null: the file's `compat` decides). Errors name `source` (the file).
 */
export function parsePolicy(text: string, source = 'policy', extraAliasHeaders: readonly string[] = [], compatOverride: CompatMode | null = null): Policy {
  try {
    return parseCheckedPolicy(text, source, extraAliasHeaders, compatOverride);
  } catch (error) {
    // Field errors are raised deep in the checks without the file name; add it here, once.
    if (error instanceof PolicyError && source !== 'policy' && !error.message.includes(source)) {
      throw new PolicyError(error.message.replace(/^policy: /, `policy ${source}: `));
    }
    throw error;
  }
}

function parseCheckedPolicy(text: string, source: string, extraAliasHeaders: readonly string[], compatOverride: CompatMode | null): Policy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PolicyError(`policy: ${source} is not valid JSON: ${describeJsonError(text, error)}`);
  }
  const root = objectAt(parsed, '(root)');
  if (root['format'] !== POLICY_FORMAT) fail('format', JSON.stringify(POLICY_FORMAT), root['format']);
  if (root['formatVersion'] !== POLICY_FORMAT_VERSION) fail('formatVersion', String(POLICY_FORMAT_VERSION), root['formatVersion']);

  const upgradeUrl = root['upgradeUrl'];
  if (typeof upgradeUrl !== 'string' || !/^https?:\/\/\S+$/.test(upgradeUrl)) fail('upgradeUrl', 'an http(s) URL', upgradeUrl);
  const forbiddenMessage = root['forbiddenMessage'];
  if (typeof forbiddenMessage !== 'string' || forbiddenMessage.trim() === '') fail('forbiddenMessage', 'a non-empty string', forbiddenMessage);

  const fileCompat = root['compat'] ?? 'none';
  if (!(COMPAT_MODES as readonly unknown[]).includes(fileCompat)) fail('compat', `one of ${COMPAT_MODES.map((mode) => JSON.stringify(mode)).join(', ')}`, root['compat']);
  const compat = compatOverride ?? (fileCompat as CompatMode);

  const auth = root['auth'] === undefined ? {} : objectAt(root['auth'], 'auth');
  const aliasKeyHeaders = [...stringListAt(auth['aliasHeaders'], 'auth.aliasHeaders'), ...extraAliasHeaders].map((name, i) => {
    if (!HEADER_NAME.test(name)) fail(`auth.aliasHeaders[${i}]`, 'an HTTP header name', name);
    return name.toLowerCase();
  });
  // Compat "csc" is the alias mechanism with the public service's header name added.
  if (compat === 'csc' && !aliasKeyHeaders.includes(CSC_KEY_HEADER)) aliasKeyHeaders.push(CSC_KEY_HEADER);

  const http = root['http'] === undefined ? {} : objectAt(root['http'], 'http');
  const privateMaxAgeSeconds = http['privateMaxAgeSeconds'] === undefined ? 300 : integerAt(http['privateMaxAgeSeconds'], 'http.privateMaxAgeSeconds', 0, 31_536_000);
  const corsOrigins = stringListAt(http['corsOrigins'], 'http.corsOrigins');

  const plansJson = objectAt(root['plans'], 'plans');
  const plans = {} as Record<PlanName, PlanPolicy>;
  for (const [name, value] of entries(plansJson)) {
    const plan = planNameAt(name, `plans (key ${JSON.stringify(name)})`);
    const where = `plans.${name}`;
    const planJson = objectAt(value, where);
    const tier = planJson['tier'];
    if (!(TIERS as readonly unknown[]).includes(tier)) fail(`${where}.tier`, `one of ${TIERS.join(', ')}`, tier);
    const countryTier = planJson['countryTier'];
    if (!(COUNTRY_TIERS as readonly unknown[]).includes(countryTier)) fail(`${where}.countryTier`, `one of ${COUNTRY_TIERS.join(', ')}`, countryTier);
    plans[plan] = {
      name: plan,
      rank: integerAt(planJson['rank'], `${where}.rank`, 0, 1000),
      tier: tier as Tier,
      countryTier: countryTier as 'basic' | 'full',
      quota: planJson['quota'] === undefined || planJson['quota'] === null ? null : quotaAt(planJson['quota'], `${where}.quota`),
    };
  }
  for (const name of PLAN_NAMES) if (!plans[name]) fail(`plans.${name}`, 'an entry for every plan', undefined);

  const requirement = (feature: string, planValue: unknown, where: string): FeatureRequirement => {
    const minPlan = planNameAt(planValue, where);
    return { feature, minPlan, minRank: plans[minPlan]!.rank };
  };

  const features = new Map<string, FeatureRequirement>();
  for (const [feature, value] of entries(objectAt(root['features'], 'features'))) {
    features.set(feature, requirement(feature, value, `features.${feature}`));
  }

  const operations = new Map<string, OperationPolicy>();
  for (const [name, value] of entries(objectAt(root['operations'], 'operations'))) {
    const where = `operations.${name}`;
    const opJson = objectAt(value, where);
    const merged = new Map(features);
    if (opJson['featureOverrides'] !== undefined) {
      for (const [feature, planValue] of entries(objectAt(opJson['featureOverrides'], `${where}.featureOverrides`))) {
        if (!features.has(feature)) fail(`${where}.featureOverrides`, `features declared in "features" (${[...features.keys()].join(', ')})`, feature);
        merged.set(feature, requirement(feature, planValue, `${where}.featureOverrides.${feature}`));
      }
    }
    const gateFeature = opJson['feature'];
    let gate: FeatureRequirement | null = null;
    if (gateFeature !== null) {
      if (typeof gateFeature !== 'string' || !merged.has(gateFeature)) fail(`${where}.feature`, 'null or a feature declared in "features"', gateFeature);
      gate = merged.get(gateFeature)!;
    }
    operations.set(name, { gate, features: merged });
  }

  return {
    compat,
    upgradeUrl,
    forbiddenMessage,
    aliasKeyHeaders,
    privateMaxAgeSeconds,
    corsOrigins,
    plans,
    features,
    operations,
    source: root,
  };
}

function quotaAt(value: unknown, where: string): PlanQuota {
  const quota = objectAt(value, where);
  const shared = quota['sharedBucket'] ?? false;
  if (typeof shared !== 'boolean') fail(`${where}.sharedBucket`, 'a boolean', shared);
  return planQuota(integerAt(quota['daily'], `${where}.daily`, 0, 0x7fffffff), integerAt(quota['monthly'], `${where}.monthly`, 0, 0x7fffffff), shared);
}

/**
 * A plan's quota. Every PlanQuota is made here (the policy's, and the warm-up's unlimited copies:
 * quota/plans.ts), so all share one hidden class: what V8 compiles for the warm-up's requests
 * then holds for real ones.
 */
export function planQuota(daily: number, monthly: number, sharedBucket: boolean): PlanQuota {
  return { daily, monthly, sharedBucket };
}

/** Alias headers from GEOAPI_KEY_HEADER_ALIASES (comma-separated), e.g. "X-CSCAPI-KEY". */
export function aliasHeadersFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return (env['GEOAPI_KEY_HEADER_ALIASES'] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
}

export function readPolicyText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyError(`policy: cannot read ${file}: ${(error as Error).message}`);
  }
}

export function loadPolicy(file: string = DEFAULT_POLICY_FILE, aliasHeaders: readonly string[] = []): Policy {
  return parsePolicy(readPolicyText(file), file, aliasHeaders);
}

/** Minimum plan of `feature` for operation `operation`; throws for features the policy does not declare. */
export function requirementOf(policy: Policy, operation: string, feature: string): FeatureRequirement {
  const found = policy.operations.get(operation)?.features.get(feature) ?? policy.features.get(feature);
  if (!found) throw new Error(`policy has no feature ${JSON.stringify(feature)} (asked by operation ${operation})`);
  return found;
}

/**
 * The plans the server knows: the keys of `plans` in data/policy.json, in file order. Code names
 * no plan; a policy file (the default or an operator's) must give an entry for each of these, and
 * key files may only name them. Adding a plan = adding it to data/policy.json. (Defined last: it is read with the helpers above.)
 */
export const PLAN_NAMES: readonly PlanName[] = declaredPlans(readPolicyText(DEFAULT_POLICY_FILE), DEFAULT_POLICY_FILE);

function declaredPlans(text: string, source: string): PlanName[] {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new PolicyError(`policy: ${source} is not valid JSON: ${(error as Error).message}`);
  }
  const plans = objectAt(objectAt(root, '(root)')['plans'], 'plans');
  const names = entries(plans).map(([name]) => name);
  if (names.length === 0) fail('plans', 'at least one plan', plans);
  return names;
}
