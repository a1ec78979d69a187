// Turns one raw source row (parsed JSON) into a record of the normalised model
// (runtime/format/model.ts). Both source layouts go through here, so they normalise alike:
// - absent keys and nulls → null;
// - a value of the wrong type → null, with a warning naming file, record and field;
// - JSON-text fields (timezones, translations) → compact JSON.stringify of the source value;
//   an empty object/array carries no data and becomes null (the npm package writes `{}` where
//   the contributions layout writes null for the same rows);
// - city `level` → string (the spec serves it as a string);
// - rows without an integer id, or without their required name/code/parent ids, are skipped.
import type { CityRecord, CountryRecord, PostcodeRecord, RegionRecord, StateRecord, SubregionRecord } from '../runtime/format/model.js';
import type { Diagnostics } from './diagnostics.js';

type Raw = Record<string, unknown>;

/** Field readers for one row; `where()` names the row in messages. */
class RowReader {
  row: Raw = {};
  constructor(
    private readonly diagnostics: Diagnostics,
    private readonly file: string,
    private readonly noun: string,
  ) {}

  where(): string {
    const id = this.row.id;
    const name = this.row.name ?? this.row.code;
    return `${this.file}: ${this.noun} ${typeof id === 'number' ? `id ${id}` : '(no id)'}${typeof name === 'string' ? ` "${name}"` : ''}`;
  }

  private wrongType(key: string, expected: string, found: unknown): null {
    this.diagnostics.warn('wrong field type (stored as null)', `${this.where()}: field "${key}": expected ${expected}, found ${JSON.stringify(found)}`);
    return null;
  }

  int(key: string): number | null {
    const v = this.row[key];
    if (v === undefined || v === null) return null;
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= -2147483648 && v <= 2147483647) return v;
    if (typeof v === 'string' && /^-?\d{1,9}$/.test(v)) return Number(v);
    return this.wrongType(key, 'a 32-bit integer', v);
  }

  num(key: string): number | null {
    const v = this.row[key];
    if (v === undefined || v === null) return null;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
    return this.wrongType(key, 'a number', v);
  }

  str(key: string): string | null {
    const v = this.row[key];
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return this.wrongType(key, 'a string', v);
  }

  /** Integers and strings both become strings (city `level`). */
  text(key: string): string | null {
    return this.str(key);
  }

  json(key: string): string | null {
    const v = this.row[key];
    if (v === undefined || v === null) return null;
    if (typeof v === 'string') return v === '' || v === '{}' || v === '[]' ? null : v;
    if (Array.isArray(v)) return v.length === 0 ? null : JSON.stringify(v);
    if (typeof v === 'object') {
      for (const _ in v) return JSON.stringify(v);
      return null;
    }
    return this.wrongType(key, 'a JSON object or array', v);
  }

  /** A required field: null means the row is skipped (the caller reports it). */
  requiredInt(key: string): number | null {
    return this.int(key);
  }

  requiredStr(key: string): string | null {
    const s = this.str(key);
    return s === null || s.trim() === '' ? null : s;
  }
}

export type EntityNoun = 'region' | 'subregion' | 'country' | 'state' | 'city' | 'postcode';

/** Normalises the rows of one source file of one entity; skipped rows are reported. */
export class RowNormaliser {
  private readonly reader: RowReader;
  /** Names of rows skipped for lack of an id, reported once per file. */
  private readonly missingIds: string[] = [];

  constructor(
    private readonly diagnostics: Diagnostics,
    private readonly file: string,
    private readonly noun: EntityNoun,
  ) {
    this.reader = new RowReader(diagnostics, file, noun);
  }

  /** Call after the file's rows: reports the id-less rows of this file in one warning. */
  finish(): void {
    if (this.missingIds.length === 0) return;
    const names = this.missingIds.map((n) => JSON.stringify(n)).join(', ');
    this.diagnostics.warn(`${this.noun} rows without id (skipped)`, `${this.file}: ${this.missingIds.length} ${this.noun} row(s) without id skipped: ${names}`, this.missingIds.length);
  }

  /** Starts a row: false (and reported) when it is not an object or has no usable id. */
  private begin(raw: unknown): boolean {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      this.diagnostics.warn('rows that are not objects (skipped)', `${this.file}: expected a ${this.noun} object, found ${JSON.stringify(raw)?.slice(0, 60)}`);
      return false;
    }
    this.reader.row = raw as Raw;
    const id = (raw as Raw).id;
    if (id === undefined || id === null) {
      const name = (raw as Raw).name ?? (raw as Raw).code;
      this.missingIds.push(typeof name === 'string' ? name : '(unnamed)');
      return false;
    }
    if (this.reader.int('id') === null) {
      this.diagnostics.warn(`${this.noun} rows with a bad id (skipped)`, `${this.reader.where()}: id must be a 32-bit integer, found ${JSON.stringify(id)}`);
      return false;
    }
    return true;
  }

  private missing(fields: string[]): null {
    this.diagnostics.warn(`${this.noun} rows missing required fields (skipped)`, `${this.reader.where()}: missing ${fields.join(', ')}`);
    return null;
  }

  region(raw: unknown): RegionRecord | null {
    if (!this.begin(raw)) return null;
    const r = this.reader;
    const name = r.requiredStr('name');
    if (name === null) return this.missing(['name']);
    return { id: r.int('id')!, name, translations: r.json('translations'), wikiDataId: r.str('wikiDataId') };
  }

  subregion(raw: unknown): SubregionRecord | null {
    if (!this.begin(raw)) return null;
    const r = this.reader;
    const name = r.requiredStr('name');
    const regionId = r.requiredInt('region_id');
    if (name === null || regionId === null) return this.missing(missingNames({ name, region_id: regionId }));
    return { id: r.int('id')!, name, region_id: regionId, translations: r.json('translations'), wikiDataId: r.str('wikiDataId') };
  }

  country(raw: unknown): CountryRecord | null {
    if (!this.begin(raw)) return null;
    const r = this.reader;
    const name = r.requiredStr('name');
    const iso2 = r.requiredStr('iso2');
    const iso3 = r.requiredStr('iso3');
    if (name === null || iso2 === null || iso3 === null) return this.missing(missingNames({ name, iso2, iso3 }));
    return {
      id: r.int('id')!,
      name,
      iso2,
      iso3,
      numeric_code: r.str('numeric_code'),
      phonecode: r.str('phonecode'),
      capital: r.str('capital'),
      currency: r.str('currency'),
      currency_name: r.str('currency_name'),
      currency_symbol: r.str('currency_symbol'),
      tld: r.str('tld'),
      native: r.str('native'),
      population: r.num('population'),
      gdp: r.num('gdp'),
      region: r.str('region'),
      region_id: r.int('region_id'),
      subregion: r.str('subregion'),
      subregion_id: r.int('subregion_id'),
      nationality: r.str('nationality'),
      area_sq_km: r.num('area_sq_km'),
      postal_code_format: r.str('postal_code_format'),
      postal_code_regex: r.str('postal_code_regex'),
      timezones: r.json('timezones'),
      translations: r.json('translations'),
      latitude: r.str('latitude'),
      longitude: r.str('longitude'),
      emoji: r.str('emoji'),
      emojiU: r.str('emojiU'),
      wikiDataId: r.str('wikiDataId'),
    };
  }

  state(raw: unknown): StateRecord | null {
    if (!this.begin(raw)) return null;
    const r = this.reader;
    const name = r.requiredStr('name');
    const countryId = r.requiredInt('country_id');
    const countryCode = r.requiredStr('country_code');
    if (name === null || countryId === null || countryCode === null) {
      return this.missing(missingNames({ name, country_id: countryId, country_code: countryCode }));
    }
    return {
      id: r.int('id')!,
      name,
      country_id: countryId,
      country_code: countryCode,
      fips_code: r.str('fips_code'),
      iso2: r.str('iso2'),
      iso3166_2: r.str('iso3166_2'),
      type: r.str('type'),
      level: r.int('level'),
      parent_id: r.int('parent_id'),
      native: r.str('native'),
      latitude: r.str('latitude'),
      longitude: r.str('longitude'),
      timezone: r.str('timezone'),
      translations: r.json('translations'),
      wikiDataId: r.str('wikiDataId'),
      population: r.num('population'),
    };
  }

  city(raw: unknown): CityRecord | null {
    if (!this.begin(raw)) return null;
    const r = this.reader;
    const name = r.requiredStr('name');
    const stateId = r.requiredInt('state_id');
    const stateCode = r.str('state_code');
    const countryId = r.requiredInt('country_id');
    const countryCode = r.requiredStr('country_code');
    if (name === null || stateId === null || stateCode === null || countryId === null || countryCode === null) {
      return this.missing(missingNames({ name, state_id: stateId, state_code: stateCode, country_id: countryId, country_code: countryCode }));
    }
    return {
      id: r.int('id')!,
      name,
      state_id: stateId,
      state_code: stateCode,
      country_id: countryId,
      country_code: countryCode,
      type: r.str('type'),
      level: r.text('level'),
      parent_id: r.int('parent_id'),
      latitude: r.str('latitude'),
      longitude: r.str('longitude'),
      native: r.str('native'),
      population: r.num('population'),
      timezone: r.str('timezone'),
      translations: r.json('translations'),
      wikiDataId: r.str('wikiDataId'),
    };
  }

  postcode(raw: unknown): PostcodeRecord | null {
    if (!this.begin(raw)) return null;
    const r = this.reader;
    const code = r.requiredStr('code');
    const countryId = r.requiredInt('country_id');
    const countryCode = r.requiredStr('country_code');
    if (code === null || countryId === null || countryCode === null) {
      return this.missing(missingNames({ code, country_id: countryId, country_code: countryCode }));
    }
    return {
      id: r.int('id')!,
      code,
      country_id: countryId,
      country_code: countryCode,
      state_id: r.int('state_id'),
      state_code: r.str('state_code'),
      city_id: r.int('city_id'),
      locality_name: r.str('locality_name'),
      type: r.str('type'),
      latitude: r.str('latitude'),
      longitude: r.str('longitude'),
      source: r.str('source'),
      wikiDataId: r.str('wikiDataId'),
    };
  }
}

function missingNames(values: Record<string, unknown>): string[] {
  return Object.entries(values).filter(([, v]) => v === null).map(([k]) => k);
}
