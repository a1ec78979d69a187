import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOCALE_RE, localizeName, parseTranslations } from '../../runtime/engine/localize.js';

const translations = JSON.stringify({ de: 'Vereinigte Staaten', 'de-AT': 'Vereinigte Staaten (AT)', 'pt-BR': 'Estados Unidos', 'zh-CN': '美国' });

describe('localizeName', () => {
  it('uses the exact locale key first', () => {
    assert.deepEqual(localizeName('de-AT', 'United States', 'United States', translations), { localized_name: 'Vereinigte Staaten (AT)', matched_locale: 'de-AT' });
  });

  it('falls back to the base language and reports its key', () => {
    assert.deepEqual(localizeName('de-CH', 'United States', null, translations), { localized_name: 'Vereinigte Staaten', matched_locale: 'de' });
  });

  it('matches keys case-insensitively and reports the stored key', () => {
    assert.equal(localizeName('pt-br', 'United States', null, translations).matched_locale, 'pt-BR');
  });

  it('takes a regional variant when the base language has no key of its own', () => {
    assert.deepEqual(localizeName('zh', 'United States', null, translations), { localized_name: '美国', matched_locale: 'zh-CN' });
  });

  it('falls back to native, then to the English name', () => {
    assert.deepEqual(localizeName('fi', 'Germany', 'Deutschland', translations), { localized_name: 'Deutschland', matched_locale: 'native' });
    assert.deepEqual(localizeName('fi', 'Germany', null, null), { localized_name: 'Germany', matched_locale: 'en' });
    assert.deepEqual(localizeName('fi', 'Germany', '  ', '{}'), { localized_name: 'Germany', matched_locale: 'en' });
  });

  it('answers English locales with the English name, not native', () => {
    assert.deepEqual(localizeName('en-GB', 'Germany', 'Deutschland', translations), { localized_name: 'Germany', matched_locale: 'en' });
  });

  it('survives malformed translations text', () => {
    assert.equal(parseTranslations('{not json'), null);
    assert.equal(localizeName('de', 'X', null, '[1,2]').matched_locale, 'en');
  });

  it('accepts the spec locale syntax only', () => {
    for (const ok of ['de', 'DE', 'pt-BR', 'zh-Hant', 'en-us']) assert.ok(LOCALE_RE.test(ok), ok);
    for (const bad of ['d', 'deu', 'de-', 'de-A', 'de-ABCDE', 'de_AT', 'de-AT-x', '12', '']) assert.ok(!LOCALE_RE.test(bad), bad);
  });
});
