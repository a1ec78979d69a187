import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countryRowByIso2, countryRowsOfSubregion, resolveCountryRow } from '../../runtime/engine/countries.js';
import { stateRowByIso3166, stateRowInCountry } from '../../runtime/engine/states.js';
import type { Store } from '../../runtime/store/types.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

function bruteCountry(store: Store, ciso: string): number {
  for (let row = 0; row < store.countries.count; row++) {
    const c = store.countries.record(row);
    if (/^\d+$/.test(ciso) ? c.id === Number(ciso) : c.iso2.toUpperCase() === ciso.toUpperCase() || c.iso3.toUpperCase() === ciso.toUpperCase()) return row;
  }
  return -1;
}

function checkLookups(store: Store): void {
  for (let row = 0; row < store.countries.count; row++) {
    const c = store.countries.record(row);
    for (const ciso of [c.iso2, c.iso2.toLowerCase(), c.iso3, c.iso3.toLowerCase(), String(c.id), String(c.id).padStart(3, '0')]) {
      assert.equal(resolveCountryRow(store, ciso), bruteCountry(store, ciso), ciso);
    }
  }
  for (let row = 0; row < store.states.count; row++) {
    const s = store.states.record(row);
    if (!s.iso2) continue;
    const countryRow = countryRowByIso2(store, s.country_code);
    const found = stateRowInCountry(store, countryRow, s.iso2.toLowerCase());
    assert.equal(store.states.record(found).iso2!.toUpperCase(), s.iso2.toUpperCase());
    assert.equal(store.relations.stateCountryRow[found], countryRow);
  }
}

describe('country and state lookups', () => {
  it('resolve every ciso form and state code like a brute-force scan (fixture)', () => {
    checkLookups(fixtureSnapshot().store);
  });

  it('resolve every ciso form and state code like a brute-force scan (full dataset)', { skip: fullDatasetSkip() }, () => {
    checkLookups(fullSnapshot().store);
  });

  it('treat unknown and malformed codes as absent', () => {
    const { store } = fixtureSnapshot();
    for (const ciso of ['', 'X', 'XX', 'XXX', 'ABCD', '0', '99999', 'U1', '1.5']) assert.equal(resolveCountryRow(store, ciso), -1, ciso);
    assert.equal(stateRowInCountry(store, -1, 'CA'), -1);
  });

  it('matches ISO 3166-2 by iso3166_2, then by legacy iso2 when iso3166_2 is null', () => {
    const { store } = fixtureSnapshot();
    assert.equal(store.states.record(stateRowByIso3166(store, 'US-CA')).id, 1416);
    assert.equal(store.states.record(stateRowByIso3166(store, 'BS-FP')).id, 3626);
    assert.equal(stateRowByIso3166(store, 'US-ZZ'), -1);
  });

  it('prefers the row of the code’s own country when two rows share a code (FR-BL)', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    const row = stateRowByIso3166(store, 'FR-BL');
    assert.equal(store.states.record(row).country_code, 'FR');
  });

  it('lists the countries of a subregion in name order', () => {
    const { store } = fixtureSnapshot();
    const caribbean = store.subregions.rowById(7);
    assert.deepEqual(countryRowsOfSubregion(store, caribbean).map((row) => store.countries.record(row).iso2), ['BS']);
  });
});
