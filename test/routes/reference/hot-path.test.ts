// The per-request shortcuts of the small reference routes keep their answers exact: rendered
// detail bodies stay per tier, the phone parse's fixed-shape serialiser writes what the generic one
// writes, and no phone number is kept anywhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COUNTRY_FIELDS, PHONE_PARSE_FIELDS, STATE_FIELDS } from '../../../runtime/render/fields.js';
import { makeProjection, projectionFor, serializeObject } from '../../../runtime/render/projection.js';
import { parsePhoneDigits, phoneEntries } from '../../../runtime/engine/phone.js';
import { referenceOperations } from '../../../runtime/routes/reference/index.js';
import type { PlanName, Tier } from '../../../runtime/contract/index.js';
import type { Store } from '../../../runtime/store/types.js';
import { call, contextFor } from './support/context.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../../support/snapshots.js';

const op = Object.fromEntries(referenceOperations.map((o) => [o.name, o]));
const NOW = new Date('2025-03-01T00:00:00Z');

function bodyText(store: Store, name: string, plan: PlanName, params: Record<string, string>, query: Record<string, string> = {}): string {
  const res = call(store, op[name]!, { plan, params, query, now: NOW });
  assert.equal(res.status, 200, `${name} ${plan} ${JSON.stringify(params)} ${JSON.stringify(query)}: ${JSON.stringify(res.body)}`);
  const body = res.reply!.body;
  return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

/** Every field the tier returns, listed in `fields` (the per-request path, not the memo). */
function allFieldsOf(names: readonly string[]): string {
  return names.join(',');
}

describe('detail bodies', () => {
  it('give a community key and a business key their own country body, however the calls interleave', () => {
    const { store } = fixtureSnapshot();
    const community = bodyText(store, 'countryDetail', 'community', { ciso: 'US' });
    const business = bodyText(store, 'countryDetail', 'business', { ciso: 'US' });
    assert.notEqual(community, business);
    assert.equal(JSON.parse(community).population, undefined);
    assert.equal(typeof JSON.parse(business).population, 'number');
    for (let i = 0; i < 3; i++) {
      assert.equal(bodyText(store, 'countryDetail', 'business', { ciso: 'us' }), business);
      assert.equal(bodyText(store, 'countryDetail', 'community', { ciso: 'USA' }), community);
    }
  });

  it('give each state tier its own body (basic, coordinates, full)', () => {
    const { store } = fixtureSnapshot();
    const bodies = (['community', 'supporter', 'business'] as const).map((plan) => bodyText(store, 'stateDetail', plan, { ciso: 'US', siso: 'CA' }));
    assert.equal(new Set(bodies).size, 3);
    assert.deepEqual(bodies, (['community', 'supporter', 'business'] as const).map((plan) => bodyText(store, 'stateDetail', plan, { ciso: 'US', siso: 'CA' })));
    assert.equal(JSON.parse(bodies[0]!).fips_code, undefined);
    assert.equal(JSON.parse(bodies[1]!).fips_code !== undefined && JSON.parse(bodies[1]!).wikiDataId === undefined, true);
  });

  it('hold what the per-request serialiser writes for the same fields', () => {
    const { store } = fixtureSnapshot();
    for (const [plan, tier] of [['starter', 'basic'], ['business', 'full']] as const) {
      const names = projectionFor(COUNTRY_FIELDS, tier).names;
      for (const ciso of ['US', 'BS', 'GB', 'FJ']) {
        assert.equal(bodyText(store, 'countryDetail', plan, { ciso }), bodyText(store, 'countryDetail', plan, { ciso }, { fields: allFieldsOf(names) }), `${plan} ${ciso}`);
      }
    }
    for (const [plan, tier] of [['supporter', 'coordinates'], ['business', 'full']] as const) {
      const names = projectionFor(STATE_FIELDS, tier as Tier).names;
      for (const [ciso, siso] of [['US', 'NY'], ['GB', 'SCT'], ['BR', 'SP']]) {
        const params = { ciso: ciso!, siso: siso! };
        assert.equal(bodyText(store, 'stateDetail', plan, params), bodyText(store, 'stateDetail', plan, params, { fields: allFieldsOf(names) }), `${plan} ${ciso}-${siso}`);
      }
    }
  });

  it('add translations only to the include_translations body', () => {
    const { store } = fixtureSnapshot();
    const plain = JSON.parse(bodyText(store, 'countryDetail', 'business', { ciso: 'US' }));
    const translated = JSON.parse(bodyText(store, 'countryDetail', 'business', { ciso: 'US' }, { include_translations: 'true' }));
    assert.equal('translations' in plain, false);
    assert.equal('translations' in translated, true);
    assert.equal('translations' in JSON.parse(bodyText(store, 'countryDetail', 'business', { ciso: 'US' })), false);
  });
});

describe('phone parse answer', () => {
  /** Numbers for every entry: calling code (+ area code) + filler digits, of several lengths. */
  function numbersOf(store: Store): string[] {
    const numbers: string[] = [];
    for (const entry of phoneEntries(store)) {
      const lead = entry.dial_code.slice(1) + (entry.area_code ?? '');
      for (const filler of ['5552671', '20794600', '301234', '7700900123']) {
        const digits = (lead + filler).slice(0, 15);
        if (digits.length >= 5) numbers.push(digits);
      }
    }
    return numbers;
  }

  function assertSameAsGeneric(store: Store, numbers: string[]): void {
    const generic = makeProjection(projectionFor(PHONE_PARSE_FIELDS, 'basic').names);
    const allFields = PHONE_PARSE_FIELDS.fields.map((f) => f.name).join(',');
    for (const digits of numbers) {
      const { parsed } = parsePhoneDigits(store, digits, NOW);
      const res = call(store, op.phoneParse!, { query: { number: `+${digits}` }, now: NOW });
      if (!parsed) {
        assert.equal(res.status, 404, digits);
        continue;
      }
      assert.equal(res.status, 200, digits);
      assert.equal(res.reply!.body, serializeObject(generic, parsed), digits);
      assert.equal(res.reply!.body, bodyText(store, 'phoneParse', 'business', {}, { number: `+${digits}`, fields: allFields }), digits);
    }
  }

  it('writes exactly what the generic serialiser writes, for every country (fixture)', () => {
    const { store } = fixtureSnapshot();
    assertSameAsGeneric(store, numbersOf(store));
  });

  it('writes exactly what the generic serialiser writes, for every country (full dataset)', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    assertSameAsGeneric(store, numbersOf(store));
  });

  it('answers each number with its own digits, written now and no-store (never a rendered, cacheable reply)', () => {
    const { store } = fixtureSnapshot();
    for (const digits of ['14155552671', '14155550000', '12425550199', '447700900123']) {
      const res = call(store, op.phoneParse!, { query: { number: `+${digits}` }, now: NOW });
      const body = res.body as { e164: string; national_number: string };
      assert.equal(body.e164, `+${digits}`);
      assert.ok(digits.endsWith(body.national_number));
      assert.equal(typeof res.reply!.body, 'string');
      assert.equal(res.reply!.headers?.['Cache-Control'], 'no-store');
      assert.equal('render' in op.phoneParse!.handle(contextFor(store, op.phoneParse!, { query: { number: `+${digits}` }, now: NOW })), false);
    }
  });
});
