// A city's label parents (runtime/render/search.ts): one JSON text per state row, the same text as
// joining the state's and the country's names, for every city, including one filed under another
// country's state (joined on the spot, not kept per state).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cityLabelParentsTextOfRow, countryNameOfRow, stateNameOfCityRow } from '../../runtime/render/search.js';
import type { Store } from '../../runtime/store/types.js';
import { fixtureSnapshot } from '../support/snapshots.js';

function expectedParents(store: Store, row: number): string {
  return [stateNameOfCityRow(store, row), countryNameOfRow(store, 'cities', row)].filter(Boolean).join(', ');
}

describe('city label parents', () => {
  it('joins the state and country names of every city, the same text object for cities of one state', () => {
    const { store } = fixtureSnapshot();
    const byState = new Map<number, unknown>();
    for (let row = 0; row < store.cities.count; row++) {
      const text = cityLabelParentsTextOfRow(store, row);
      const expected = expectedParents(store, row);
      assert.equal(text?.text ?? '', expected, `city row ${row}`);
      const stateRow = store.relations.cityStateRow[row]!;
      if (stateRow < 0) continue;
      if (byState.has(stateRow)) assert.equal(text, byState.get(stateRow), `city row ${row} reuses its state's text`);
      else byState.set(stateRow, text);
    }
    assert.ok(byState.size > 1);
  });

  it('joins on the spot for a city whose country is not its state’s', () => {
    const { store } = fixtureSnapshot();
    const row = 0;
    const stateRow = store.relations.cityStateRow[row]!;
    assert.ok(stateRow >= 0, 'the fixture’s first city has a state');
    const otherCountry = (store.relations.stateCountryRow[stateRow]! + 1) % store.countries.count;
    // A copy of the relations with the city moved to another country, its state unchanged.
    const cityCountryRow = Int32Array.from(store.relations.cityCountryRow);
    cityCountryRow[row] = otherCountry;
    const moved = { ...store, relations: { ...store.relations, cityCountryRow }, states: store.states, countries: store.countries } as Store;
    const text = cityLabelParentsTextOfRow(moved, row);
    assert.equal(text?.text, [store.states.nameAt(stateRow), store.countries.nameAt(otherCountry)].filter(Boolean).join(', '));
    // The state's kept text still names its own country.
    assert.equal(cityLabelParentsTextOfRow(store, row)?.text, expectedParents(store, row));
  });
});
