// FlatBuffers row → plain record of the model (runtime/format/model.ts), one codec per entity,
// and the ByteBuffer the record tables are read through (fast decoding of short strings).
import * as flatbuffers from 'flatbuffers';
import * as fb from '../format/generated/geoapi/fb.js';
import type { CityRecord, CountryRecord, PostcodeRecord, RegionRecord, StateRecord, SubregionRecord } from '../format/model.js';
import type { TableCodec } from './entity-table.js';

export const regionCodec: TableCodec<RegionRecord, fb.Region> = {
  newCursor: () => new fb.Region(),
  name: (r) => r.name() ?? '',
  decode: (r) => ({ id: r.id(), name: r.name() ?? '', translations: r.translations(), wikiDataId: r.wikiDataId() }),
};

export const subregionCodec: TableCodec<SubregionRecord, fb.Subregion> = {
  newCursor: () => new fb.Subregion(),
  name: (r) => r.name() ?? '',
  decode: (r) => ({ id: r.id(), name: r.name() ?? '', translations: r.translations(), wikiDataId: r.wikiDataId(), region_id: r.regionId() }),
};

export const countryCodec: TableCodec<CountryRecord, fb.Country> = {
  newCursor: () => new fb.Country(),
  name: (r) => r.name() ?? '',
  decode: (r) => ({
    id: r.id(),
    name: r.name() ?? '',
    iso2: r.iso2() ?? '',
    iso3: r.iso3() ?? '',
    numeric_code: r.numericCode(),
    phonecode: r.phonecode(),
    capital: r.capital(),
    currency: r.currency(),
    currency_name: r.currencyName(),
    currency_symbol: r.currencySymbol(),
    tld: r.tld(),
    native: r.native(),
    population: r.population(),
    gdp: r.gdp(),
    region: r.region(),
    region_id: r.regionId(),
    subregion: r.subregion(),
    subregion_id: r.subregionId(),
    nationality: r.nationality(),
    area_sq_km: r.areaSqKm(),
    postal_code_format: r.postalCodeFormat(),
    postal_code_regex: r.postalCodeRegex(),
    timezones: r.timezones(),
    translations: r.translations(),
    latitude: r.latitude(),
    longitude: r.longitude(),
    emoji: r.emoji(),
    emojiU: r.emojiU(),
    wikiDataId: r.wikiDataId(),
  }),
};

export const stateCodec: TableCodec<StateRecord, fb.State> = {
  newCursor: () => new fb.State(),
  name: (r) => r.name() ?? '',
  decode: (r) => ({
    id: r.id(),
    name: r.name() ?? '',
    country_id: r.countryId(),
    country_code: r.countryCode() ?? '',
    fips_code: r.fipsCode(),
    iso2: r.iso2(),
    iso3166_2: r.iso31662(),
    type: r.type(),
    level: r.level(),
    parent_id: r.parentId(),
    native: r.native(),
    latitude: r.latitude(),
    longitude: r.longitude(),
    timezone: r.timezone(),
    translations: r.translations(),
    wikiDataId: r.wikiDataId(),
    population: r.population(),
  }),
};

export const cityCodec: TableCodec<CityRecord, fb.City> = {
  newCursor: () => new fb.City(),
  name: (r) => r.name() ?? '',
  decode: (r) => ({
    id: r.id(),
    name: r.name() ?? '',
    state_id: r.stateId(),
    state_code: r.stateCode() ?? '',
    country_id: r.countryId(),
    country_code: r.countryCode() ?? '',
    type: r.type(),
    level: r.level(),
    parent_id: r.parentId(),
    latitude: r.latitude(),
    longitude: r.longitude(),
    native: r.native(),
    population: r.population(),
    timezone: r.timezone(),
    translations: r.translations(),
    wikiDataId: r.wikiDataId(),
  }),
};

export const postcodeCodec: TableCodec<PostcodeRecord, fb.Postcode> = {
  newCursor: () => new fb.Postcode(),
  name: (r) => r.code() ?? '',
  decode: (r) => ({
    id: r.id(),
    code: r.code() ?? '',
    country_id: r.countryId(),
    country_code: r.countryCode() ?? '',
    state_id: r.stateId(),
    state_code: r.stateCode(),
    city_id: r.cityId(),
    locality_name: r.localityName(),
    type: r.type(),
    latitude: r.latitude(),
    longitude: r.longitude(),
    source: r.source(),
    wikiDataId: r.wikiDataId(),
  }),
};

// ---- strings ------------------------------------------------------------------------------------

/** Longer strings go to TextDecoder, whose per-call overhead (~50–90 ns) only pays off on long input. */
const SHORT_STRING_BYTES = 64;
const utf8Decoder = new TextDecoder();

/**
 * The UTF-8 bytes [start, start + length) as a string, exactly as `new TextDecoder().decode()`
 * (what flatbuffers uses) returns them: short well-formed strings are decoded here, character by
 * character; anything else — long strings, malformed bytes (replaced by U+FFFD), a leading
 * byte-order mark (dropped) — is left to TextDecoder.
 */
export function decodeUtf8(bytes: Uint8Array, start: number, length: number): string {
  const end = start + length;
  if (length > SHORT_STRING_BYTES || (length >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf)) {
    return utf8Decoder.decode(bytes.subarray(start, end));
  }
  let text = '';
  let i = start;
  while (i < end) {
    const b0 = bytes[i]!;
    if (b0 < 0x80) {
      text += String.fromCharCode(b0);
      i++;
      continue;
    }
    // Well-formed sequences only (WHATWG's ranges: no overlongs, surrogates or code points > U+10FFFF).
    if (b0 >= 0xc2 && b0 <= 0xdf && i + 1 < end) {
      const b1 = bytes[i + 1]!;
      if ((b1 & 0xc0) === 0x80) {
        text += String.fromCharCode(((b0 & 0x1f) << 6) | (b1 & 0x3f));
        i += 2;
        continue;
      }
    } else if (b0 >= 0xe0 && b0 <= 0xef && i + 2 < end) {
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      if (b1 >= (b0 === 0xe0 ? 0xa0 : 0x80) && b1 <= (b0 === 0xed ? 0x9f : 0xbf) && (b2 & 0xc0) === 0x80) {
        text += String.fromCharCode(((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f));
        i += 3;
        continue;
      }
    } else if (b0 >= 0xf0 && b0 <= 0xf4 && i + 3 < end) {
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      const b3 = bytes[i + 3]!;
      if (b1 >= (b0 === 0xf0 ? 0x90 : 0x80) && b1 <= (b0 === 0xf4 ? 0x8f : 0xbf) && (b2 & 0xc0) === 0x80 && (b3 & 0xc0) === 0x80) {
        const codePoint = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
        text += String.fromCharCode(0xd800 + ((codePoint - 0x10000) >> 10), 0xdc00 + ((codePoint - 0x10000) & 0x3ff));
        i += 4;
        continue;
      }
    }
    return utf8Decoder.decode(bytes.subarray(start, end));
  }
  return text;
}

/**
 * The ByteBuffer record tables are read through: the generated accessors call `__string` for
 * every string field, and flatbuffers' own goes through TextDecoder each time, which costs more
 * than decoding the short strings that make up most fields (names, codes, coordinates).
 */
export class RecordByteBuffer extends flatbuffers.ByteBuffer {
  override __string(offset: number, encoding?: flatbuffers.Encoding): string | Uint8Array {
    offset += this.readInt32(offset);
    const length = this.readInt32(offset);
    const start = offset + 4;
    if (encoding === flatbuffers.Encoding.UTF8_BYTES) return this.bytes().subarray(start, start + length);
    return decodeUtf8(this.bytes(), start, length);
  }
}
