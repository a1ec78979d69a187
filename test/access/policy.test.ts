import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULT_POLICY_FILE, loadPolicy, parsePolicy, PLAN_NAMES, requirementOf } from '../../runtime/access/policy.js';

const policy = loadPolicy();
const source = JSON.parse(readFileSync(DEFAULT_POLICY_FILE, 'utf8')) as Record<string, any>;
const edited = (edit: (p: Record<string, any>) => void): string => {
  const copy = structuredClone(source);
  edit(copy);
  return JSON.stringify(copy);
};

describe('data/policy.json', () => {
  it('ranks plans for gates and gives each its field tiers', () => {
    const table = Object.fromEntries(PLAN_NAMES.map((plan) => [plan, [policy.plans[plan]!.rank, policy.plans[plan]!.tier, policy.plans[plan]!.countryTier]]));
    assert.deepEqual(table, {
      community: [0, 'basic', 'basic'],
      starter: [1, 'basic', 'basic'],
      supporter: [2, 'coordinates', 'full'],
      professional: [3, 'full', 'full'],
      business: [4, 'full', 'full'],
      legacy: [1, 'basic', 'basic'],
      playground: [0, 'basic', 'basic'],
    });
  });

  it('holds the daily and monthly quotas, playground as one shared bucket', () => {
    const quotas = Object.fromEntries(PLAN_NAMES.map((plan) => [plan, policy.plans[plan]!.quota]));
    assert.deepEqual(quotas.community, { daily: 100, monthly: 3000, sharedBucket: false });
    assert.deepEqual(quotas.starter, { daily: 300, monthly: 9000, sharedBucket: false });
    assert.deepEqual(quotas.supporter, { daily: 1000, monthly: 30000, sharedBucket: false });
    assert.deepEqual(quotas.professional, { daily: 3300, monthly: 100000, sharedBucket: false });
    assert.deepEqual(quotas.business, { daily: 25000, monthly: 750000, sharedBucket: false });
    assert.deepEqual(quotas.legacy, { daily: 50000, monthly: 1500000, sharedBucket: false });
    assert.equal(quotas.playground?.sharedBucket, true);
  });

  it('gates every operation as decided (feature and minimum plan)', () => {
    const gates = Object.fromEntries([...policy.operations].map(([name, op]) => [name, op.gate ? `${op.gate.feature}/${op.gate.minPlan}` : 'all']));
    assert.deepEqual(gates, {
      countriesList: 'all', countryDetail: 'all', countryStates: 'all', stateDetail: 'all', stateCities: 'all',
      timezoneCountry: 'all', timezoneState: 'all', timezoneCity: 'all', dataVersion: 'all', postcodeLookup: 'all',
      statesAll: 'bulkStates/supporter', countryCities: 'bulkCities/supporter',
      regionsList: 'regionsApi/starter', regionDetail: 'regionsApi/starter', regionSubregions: 'regionsApi/starter',
      subregionDetail: 'regionsApi/starter', subregionCountries: 'regionsApi/starter',
      currencyByCountry: 'currencyApi/starter', currencyList: 'currencyApi/starter',
      phoneList: 'phoneDialCode/supporter', phoneParse: 'phoneDialCode/supporter', phoneByCountry: 'phoneDialCode/starter',
      isoCountry: 'isoLookup/starter', isoState: 'isoLookup/starter', isoConvert: 'isoLookup/starter',
      postcodeSearch: 'searchEndpoint/supporter',
      autocomplete: 'autocomplete/supporter', fuzzySearch: 'fuzzySearch/professional', nearbySearch: 'nearbySearch/professional', reverseLookup: 'reverseLookup/professional',
      changesList: 'changeFeed/business', usage: 'all',
    });
  });

  it('resolves parameter features with per-operation overrides', () => {
    const min = (op: string, feature: string): string => requirementOf(policy, op, feature).minPlan;
    assert.equal(min('countriesList', 'fieldsFiltering'), 'starter');
    assert.equal(min('stateCities', 'fieldsFiltering'), 'supporter');
    assert.equal(min('postcodeSearch', 'fieldsFiltering'), 'supporter');
    assert.equal(min('countriesList', 'sortParameter'), 'starter');
    assert.equal(min('stateCities', 'sortParameter'), 'supporter');
    assert.equal(min('countriesList', 'searchEndpoint'), 'starter');
    assert.equal(min('stateCities', 'searchEndpoint'), 'supporter');
    assert.equal(min('countriesList', 'localization'), 'supporter');
    for (const op of ['autocomplete', 'nearbySearch', 'fuzzySearch']) assert.equal(min(op, 'localization'), 'professional');
    assert.throws(() => requirementOf(policy, 'countriesList', 'teleport'), /no feature "teleport"/);
  });

  it('has the upgrade URL, the 403 message and no alias key header by default', () => {
    assert.equal(policy.upgradeUrl, 'https://geoapi.local/pricing');
    assert.equal(policy.forbiddenMessage, 'This feature is not available on your current plan.');
    assert.deepEqual(policy.aliasKeyHeaders, []);
  });
});

describe('policy checks', () => {
  const cases: [string, (p: Record<string, any>) => void, RegExp][] = [
    ['a missing plan', (p) => delete p.plans.legacy, /plans\.legacy: expected an entry for every plan, found nothing/],
    ['an unknown plan', (p) => (p.plans.gold = p.plans.business), /plans \(key "gold"\): expected a plan name/],
    ['a bad tier', (p) => (p.plans.starter.tier = 'silver'), /plans\.starter\.tier: expected one of basic, coordinates, full, found "silver"/],
    ['a negative rank', (p) => (p.plans.starter.rank = -1), /plans\.starter\.rank: expected an integer from 0/],
    ['a bad quota', (p) => (p.plans.starter.quota.daily = 1.5), /plans\.starter\.quota\.daily: expected an integer/],
    ['an undeclared gate feature', (p) => (p.operations.countriesList.feature = 'teleport'), /operations\.countriesList\.feature: expected null or a feature declared/],
    ['an override of an undeclared feature', (p) => (p.operations.stateCities.featureOverrides.teleport = 'starter'), /operations\.stateCities\.featureOverrides: expected features declared/],
    ['an unknown minimum plan', (p) => (p.features.isoLookup = 'gold'), /features\.isoLookup: expected a plan name/],
    ['a bad upgrade URL', (p) => (p.upgradeUrl = 'pricing'), /upgradeUrl: expected an http\(s\) URL, found "pricing"/],
    ['a bad alias header', (p) => (p.auth.aliasHeaders = ['X Bad']), /auth\.aliasHeaders\[0\]: expected an HTTP header name/],
    ['another format version', (p) => (p.formatVersion = 2), /formatVersion: expected 1, found 2/],
    ['an unknown compat mode', (p) => (p.compat = 'hosted'), /compat: expected one of "none", "csc", found "hosted"/],
  ];
  for (const [what, edit, message] of cases) {
    it(`refuses ${what}`, () => {
      assert.throws(() => parsePolicy(edited(edit), 'test'), { name: 'PolicyError', message });
    });
  }

  it('refuses text that is not JSON, naming the file', () => {
    assert.throws(() => parsePolicy('{', 'my-policy.json'), /policy: my-policy\.json is not valid JSON/);
  });

  it('takes alias key headers from the file and the environment, lower-cased', () => {
    const parsed = parsePolicy(edited((p) => (p.auth.aliasHeaders = ['X-CSCAPI-KEY'])), 'test', ['X-Other-Key']);
    assert.deepEqual(parsed.aliasKeyHeaders, ['x-cscapi-key', 'x-other-key']);
  });

  it('compat "csc" (file, or the configuration over it) adds X-CSCAPI-KEY to the alias headers once', () => {
    assert.equal(parsePolicy(edited(() => undefined), 'test').compat, 'none');
    const fromFile = parsePolicy(edited((p) => (p.compat = 'csc')), 'test');
    assert.equal(fromFile.compat, 'csc');
    assert.deepEqual(fromFile.aliasKeyHeaders, ['x-cscapi-key']);
    const both = parsePolicy(edited((p) => (p.auth.aliasHeaders = ['X-CSCAPI-KEY'])), 'test', [], 'csc');
    assert.deepEqual(both.aliasKeyHeaders, ['x-cscapi-key']);
    const overridden = parsePolicy(edited((p) => (p.compat = 'csc')), 'test', [], 'none');
    assert.equal(overridden.compat, 'none');
    assert.deepEqual(overridden.aliasKeyHeaders, []);
  });
});
