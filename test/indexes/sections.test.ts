import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildGeoSections, parseCoordinate } from '../../build-index/sections/geo.js';
import { buildNameOrderSections } from '../../build-index/sections/name-order.js';
import { buildPrefixSections, translationValues } from '../../build-index/sections/prefix.js';
import { SECTION_BUILDERS } from '../../build-index/sections/registry.js';
import { buildTrigramSections } from '../../build-index/sections/trigram.js';
import type { CityRecord, CountryRecord, NormalisedDataset, StateRecord } from '../../runtime/format/model.js';
import { ArrayPack } from '../../runtime/format/array-pack.js';
import { GeoIndex } from '../../runtime/indexes/geo-index.js';
import { PrefixIndex } from '../../runtime/indexes/prefix-index.js';
import { TrigramIndex } from '../../runtime/indexes/trigram-index.js';
import { matchKey } from '../../runtime/text/normalise.js';
import { similarity, trigramsOf } from '../../runtime/text/trigram.js';
import { unaccent } from '../../runtime/text/unaccent.js';
import { ownBuffer } from './helpers.js';

type Place = { name: string; native?: string | null; latitude?: string | null; longitude?: string | null; translations?: Record<string, string> | null };

function place<R>(id: number, p: Place): R {
  return {
    id,
    name: p.name,
    native: p.native ?? null,
    latitude: p.latitude ?? null,
    longitude: p.longitude ?? null,
    translations: p.translations ? JSON.stringify(p.translations) : null,
  } as unknown as R;
}

function dataset(): NormalisedDataset {
  return {
    regions: [],
    subregions: [],
    countries: [
      place<CountryRecord>(1, { name: 'Côte d’Ivoire', native: "Côte d'Ivoire", latitude: '8.00000000', longitude: '-5.00000000', translations: { de: 'Elfenbeinküste', fr: "Côte d'Ivoire", ja: 'コートジボワール' } }),
      place<CountryRecord>(2, { name: 'Switzerland', native: 'Schweiz', latitude: '47.00000000', longitude: '8.00000000', translations: { de: 'Schweiz', it: 'Svizzera' } }),
    ],
    states: [place<StateRecord>(10, { name: 'Zürich', native: 'Zürich', latitude: null, longitude: null })],
    cities: [
      place<CityRecord>(100, { name: 'Zurich', native: 'Zürich', latitude: '47.36667000', longitude: '8.55000000', translations: { ru: 'Цюрих', de: 'Zürich' } }),
      place<CityRecord>(101, { name: 'Abidjan', native: 'ABIDJAN', latitude: 'n/a', longitude: '-4.0' }),
      place<CityRecord>(102, { name: 'Fiji Town', latitude: '-17.0', longitude: '179.9' }),
    ],
    postcodes: [],
    sourceRelease: 'test',
  };
}

describe('index section builders', () => {
  it('are registered with the build', () => {
    const names = SECTION_BUILDERS.map((b) => b.build);
    for (const build of [buildGeoSections, buildPrefixSections, buildTrigramSections, buildNameOrderSections]) assert.ok(names.includes(build));
  });

  it('name every section as the architecture lists, within 32 ASCII characters', () => {
    const ds = dataset();
    const names = [...Object.keys(buildGeoSections(ds)), ...Object.keys(buildPrefixSections(ds)), ...Object.keys(buildTrigramSections(ds)), ...Object.keys(buildNameOrderSections(ds))].sort();
    assert.deepEqual(names, [
      'geo.cities', 'geo.countries', 'geo.postcodes', 'geo.states',
      'order.cities', 'order.countries', 'order.states',
      'prefix-tr.cities', 'prefix-tr.countries', 'prefix-tr.states', 'prefix.cities', 'prefix.countries', 'prefix.states',
      'trigram-pq-info.cities', 'trigram-pq-info.countries', 'trigram-pq-info.states', 'trigram-pq.cities', 'trigram-pq.countries', 'trigram-pq.states',
      'trigram-ua.cities', 'trigram-ua.countries', 'trigram-ua.states', 'trigram.cities', 'trigram.countries', 'trigram.states',
    ]);
    for (const name of names) assert.match(name, /^[\x20-\x7e]{1,32}$/);
  });

  it('geo: parses decimal coordinate strings and leaves null or invalid ones out', () => {
    assert.equal(parseCoordinate('-17.50000000'), -17.5);
    assert.ok(Number.isNaN(parseCoordinate(null)));
    assert.ok(Number.isNaN(parseCoordinate('n/a')));
    assert.ok(Number.isNaN(parseCoordinate('')));
    const geo = buildGeoSections(dataset());
    const cities = GeoIndex.from(ownBuffer(geo['geo.cities']!));
    assert.equal(cities.rowCount, 3);
    assert.equal(cities.hasPoint(1), false);
    assert.equal(cities.lat(0), 47.36667);
    assert.deepEqual(cities.around(-179.9, -17, 5, 100), [2]);
    assert.equal(GeoIndex.from(ownBuffer(geo['geo.states']!)).pointCount, 0);
    assert.equal(GeoIndex.from(ownBuffer(geo['geo.postcodes']!)).rowCount, 0);
  });

  it('prefix: indexes matchKey of name and native, natives equal to the name only once', () => {
    const prefix = buildPrefixSections(dataset());
    const cities = PrefixIndex.from(ownBuffer(prefix['prefix.cities']!));
    const [start, end] = cities.range('zu');
    assert.deepEqual([end - start, cities.row(start), cities.field(start)], [1, 0, 0]);
    const [a, b] = cities.exactRange('abidjan');
    assert.equal(b - a, 1);
    const countries = PrefixIndex.from(ownBuffer(prefix['prefix.countries']!));
    const [s, e] = countries.range('cote d');
    assert.deepEqual(Array.from({ length: e - s }, (_, i) => [countries.key(s + i), countries.field(s + i)]), [
      ["cote d'ivoire", 1],
      ['cote d’ivoire', 0],
    ]);
  });

  it('prefix-tr: indexes translations apart, without those equal to the name or native', () => {
    const prefix = buildPrefixSections(dataset());
    const countries = PrefixIndex.from(ownBuffer(prefix['prefix-tr.countries']!));
    const keys = Array.from({ length: countries.count }, (_, i) => `${countries.key(i)}@${countries.row(i)}/${countries.field(i)}`);
    assert.deepEqual(keys, ['elfenbeinkuste@0/2', 'svizzera@1/2', `${matchKey('コートジボワール')}@0/2`]);
    const cities = PrefixIndex.from(ownBuffer(prefix['prefix-tr.cities']!));
    assert.equal(cities.count, 1);
    assert.equal(cities.key(0), 'цюрих');
    assert.deepEqual(translationValues('{"de":"Schweiz","x":1}'), ['Schweiz']);
    assert.deepEqual(translationValues(null), []);
    assert.throws(() => translationValues('{oops'), /expected JSON text/);
  });

  it('trigram: indexes name and native, skipping a native with the same trigrams as the name', () => {
    const trigram = buildTrigramSections(dataset());
    const cities = TrigramIndex.from(ownBuffer(trigram['trigram.cities']!));
    // Zurich + Zürich (different trigrams), Abidjan (ABIDJAN skipped), Fiji Town.
    assert.equal(cities.docCount, 4);
    const { docs, scores } = cities.search('Zuerich', 0.1);
    const byField = new Map(Array.from(docs, (doc, i) => [cities.docField(doc), scores[i]]));
    assert.equal(byField.get(0), similarity('Zuerich', 'Zurich'));
    assert.equal(byField.get(1), similarity('Zuerich', 'Zürich'));
    const states = TrigramIndex.from(ownBuffer(trigram['trigram.states']!));
    assert.equal(states.docCount, 1);
  });

  it('trigram-ua: holds unaccent(text) only for the docs whose trigrams unaccent changes', () => {
    const trigram = buildTrigramSections(dataset());
    // Cities: only the native Zürich → Zurich changes (Zurich, Abidjan, Fiji Town do not).
    const cities = TrigramIndex.from(ownBuffer(trigram['trigram-ua.cities']!));
    assert.deepEqual([cities.docCount, cities.docRow(0), cities.docField(0)], [1, 0, 1]);
    assert.equal(cities.search('Zurich', 1).docs.length, 1);
    // States: Zürich / Zürich — the native was left out of trigram.states (same trigrams as the
    // name) and its unaccent form equals the name's, so only the name gets a doc.
    const states = TrigramIndex.from(ownBuffer(trigram['trigram-ua.states']!));
    assert.deepEqual([states.docCount, states.docField(0)], [1, 0]);
    // Countries: Côte d’Ivoire / Côte d'Ivoire have the same words (apostrophes split them): the
    // name changes (ô → o), the native follows it.
    assert.equal(TrigramIndex.from(ownBuffer(trigram['trigram-ua.countries']!)).docCount, 1);
  });

  it('trigram-pq: a changed text by its unaccented trigrams, and by its own too where those could score higher for a plain query', () => {
    const names = ['Kraków', 'Čapljina', 'Straße', 'Köln', 'Paris'];
    const cities = names.map((name, i) => place<CityRecord>(i + 1, { name }));
    const trigram = buildTrigramSections({ countries: [], states: [], cities });
    const index = TrigramIndex.from(ownBuffer(trigram['trigram-pq.cities']!));
    const info = ArrayPack.from(ownBuffer(trigram['trigram-pq-info.cities']!));
    const lost = (name: string) => [...trigramsOf(name)].filter((code) => !trigramsOf(unaccent(name)).includes(code));
    // Kraków, Köln: unaccented alone, their lost codes guard codes (none in the ASCII range).
    // Čapljina: "  č" hashes to the code of "tbu", which an ASCII query can hold; Straße: "strasse"
    // has more trigrams. Both keep their own trigrams too, flagged as own docs. Paris: unchanged.
    // Per doc (numbered by trigram count, so in no row order) its row and own-doc flag; the doc
    // exactly matching the text itself is the own one, the one matching unaccent's is not.
    const ownFlags = info.get(1, Uint8Array);
    assert.equal(ownFlags.length, index.docCount);
    const docs = Array.from({ length: index.docCount }, (_, doc) => [index.docRow(doc), ownFlags[doc]!]);
    assert.deepEqual(docs.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!), [[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [4, 0]]);
    for (const [text, own] of [['Čapljina', 1], ['Capljina', 0], ['Straße', 1], ['Strasse', 0]] as const) {
      const exact = index.search(text, 1).docs;
      assert.deepEqual([exact.length, ownFlags[exact[0]!]], [1, own], text);
    }
    assert.ok(lost('Čapljina').some((code) => (code & 0x808080) === 0));
    assert.deepEqual([...info.get(0, Int32Array)], [...lost('Kraków'), ...lost('Köln')].sort((a, b) => a - b));
    // Each doc holds the trigrams it stands for: a search scores it exactly so.
    for (const [name, row] of [['Krakow', 0], ['Strasse', 2], ['Straße', 2]] as const) {
      const { docs, scores } = index.search(name, 1);
      assert.deepEqual([docs.length, index.docRow(docs[0]!), scores[0]], [1, row, 1], name);
    }
    assert.equal(index.search('Kraków', 1).docs.length, 0, 'Kraków: its own trigrams left out');
  });
});
