import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localizeName } from '../../runtime/engine/localize.js';
import { localizeStoredTranslations } from '../../runtime/engine/localize-stored.js';
import { storedJsonText } from '../../runtime/format/json-text.js';
import { localizedNameOf, localizedNameOfRow } from '../../runtime/render/search.js';
import type { Store } from '../../runtime/store/types.js';
import { prng } from '../support/random.js';
import { fixtureSnapshot, fullDatasetSkip, fullSnapshot } from '../support/snapshots.js';

const encoder = new TextEncoder();
const LOCALES = ['de', 'DE', 'pt', 'pt-BR', 'pt-br', 'pt-PT', 'zh', 'zh-CN', 'zh-TW', 'en', 'en-GB', 'fr', 'ja', 'ko', 'xx', 'de-AT', 'sr-Latn'];

/** localizeName's answer for a stored translations text as the row path computes it: the scan, or localizeName on the text when the scan declines. */
function scanned(locale: string, name: string, native: string | null, text: string | null): ReturnType<typeof localizeName> & { declined: boolean } {
  if (text === null) return { ...localizeName(locale, name, native, null), declined: false };
  const bytes = encoder.encode(storedJsonText(text)!);
  const chosen = localizeStoredTranslations(locale.toLowerCase(), bytes, 0, bytes.length);
  if (chosen === undefined) return { ...localizeName(locale, name, native, text), declined: true };
  return { ...(chosen ?? localizeName(locale, name, native, null)), declined: false };
}

function rowsAgree(store: Store, entity: 'countries' | 'states' | 'cities', rows: Iterable<number>): number {
  const table = store[entity];
  let compared = 0;
  for (const row of rows) {
    const record = table.record(row);
    for (const locale of LOCALES) {
      assert.deepEqual(localizedNameOfRow(table.rowBytes!, row, locale), localizedNameOf(locale, record), `${entity} row ${row} ${locale}`);
      compared++;
    }
  }
  return compared;
}

describe('localizeStoredTranslations (a locale\'s translation read from the stored bytes)', () => {
  it('chooses what localizeName chooses on the parsed text, for random translations of every shape (oracle)', () => {
    const random = prng(43);
    const pick = <V>(values: readonly V[]): V => values[Math.floor(random() * values.length)]!;
    const keys = ['de', 'DE', 'de-AT', 'de-at', 'de-', 'de_AT', 'pt', 'pt-BR', 'PT-br', 'zh-CN', 'zh', 'zh-TW', 'en', 'fr', 'd', '', '12', '0', '__proto__', 'K\u212Ao', '\u212Ao', 'dé', 'x"y', 'a\\b', 'sr-Latn'];
    const values = ['Deutschland', '', '   ', '\u00a0', 'Österreich', '東京', 'a "quoted" name', 'back\\slash', 'line\nbreak', '\ufeffBOM first', 'mid\ufeffBOM', '\u0000', 'x'.repeat(90), '\ud800', 'tab\there'];
    let fast = 0;
    for (let trial = 0; trial < 4000; trial++) {
      const pairs = Array.from({ length: Math.floor(random() * 7) }, () => [pick(keys), pick(values)] as const);
      const members = pairs.map(([key, value]) => `${JSON.stringify(key)}:${random() < 0.03 ? 7 : JSON.stringify(value)}`);
      let text = `{${members.join(random() < 0.05 ? ', ' : ',')}}`;
      const shape = random();
      if (shape < 0.03) text = text.slice(0, -1); // invalid JSON
      else if (shape < 0.05) text = `[${members.join(',')}]`;
      else if (shape < 0.07) text = ` ${text}`;
      else if (shape < 0.08) text = `${text}x`;
      const name = pick(['Vienna', 'Wien']);
      const native = pick([null, '', ' ', 'Wien', 'Beč']);
      for (const locale of ['de', 'de-AT', 'DE-at', 'pt', 'pt-br', 'zh', 'en', 'k', 'ko', 'fr', 'x']) {
        const got = scanned(locale, name, native, text);
        if (!got.declined) fast++;
        assert.deepEqual({ localized_name: got.localized_name, matched_locale: got.matched_locale }, localizeName(locale, name, native, text), `${locale} ${JSON.stringify(text)}`);
      }
    }
    assert.ok(fast > 5000, `the scan answered ${fast} times`);
  });

  it('answers the dataset\'s translations itself: compact objects of plain strings', () => {
    const text = JSON.stringify({ br: 'Alamagn', 'pt-BR': 'Alemanha', pt: 'Alemanha', de: 'Deutschland', 'zh-CN': '德国', ko: '독일' });
    assert.equal(scanned('de', 'Germany', null, text).declined, false);
    assert.deepEqual(scanned('zh', 'Germany', null, text), { localized_name: '德国', matched_locale: 'zh-CN', declined: false });
    assert.deepEqual(scanned('pt-pt', 'Germany', null, text), { localized_name: 'Alemanha', matched_locale: 'pt', declined: false });
    assert.deepEqual(scanned('xx', 'Germany', 'Deutschland', text), { localized_name: 'Deutschland', matched_locale: 'native', declined: false });
  });

  it('gives each row of the fixture what localizing its decoded record gives, for every locale', () => {
    const { store } = fixtureSnapshot();
    for (const entity of ['countries', 'states', 'cities'] as const) {
      assert.ok(rowsAgree(store, entity, Array.from({ length: store[entity].count }, (_, row) => row)) > 0);
    }
  });

  it('gives the full dataset\'s countries, states and a sample of its cities what localizing their records gives', { skip: fullDatasetSkip() }, () => {
    const { store } = fullSnapshot();
    const random = prng(44);
    rowsAgree(store, 'countries', Array.from({ length: store.countries.count }, (_, row) => row));
    rowsAgree(store, 'states', Array.from({ length: store.states.count }, (_, row) => row));
    rowsAgree(store, 'cities', Array.from({ length: 5000 }, () => Math.floor(random() * store.cities.count)));
  });
});
