// Builds the `postcodes.filters` section (layout: runtime/format/postcode-sections.ts): typed
// filter columns per postcode row and the deduplicated matchKey() forms of each country's
// locality names, so that the runtime search tests filters without decoding records.
import { ArrayPackBuilder } from '../../runtime/format/array-pack.js';
import type { PostcodeRecord } from '../../runtime/format/model.js';
import { LOCALITY_TERMINATOR, POSTCODE_FILTERS_LAYOUT_VERSION, postcodeTypeKey, stateCodeKey } from '../../runtime/format/postcode-sections.js';
import { matchKey } from '../../runtime/text/normalise.js';

const MAX_TYPES = 0xffff;

/**
 * `rows`: the postcode records in snapshot row order, grouped by country row; `countryRowOf`
 * gives a record's country row (-1 when its country_id is dangling: those rows come last).
 */
export function encodePostcodeFilters(rows: readonly PostcodeRecord[], countryRowOf: (record: PostcodeRecord) => number): Uint8Array {
  const count = rows.length;
  const localityByRow = new Int32Array(count).fill(-1);
  const stateCodeByRow = new Int32Array(count).fill(-1);
  const cityIdByRow = new Int32Array(count).fill(-1);
  const typeByRow = new Uint16Array(count);

  const stateCodeNames: string[] = [];
  const stateCodeIndex = new Map<string, number>();
  const typeNames: string[] = [];
  const typeIndex = new Map<string, number>();

  const groupRowStart: number[] = [];
  const groupLocalityStart: number[] = [];
  const groupTextStart: number[] = [];
  const localityCharStart: number[] = [];
  const textChunks: Buffer[] = [];
  let textBytes = 0;

  let groupCountry: number | null = null;
  const seenCountries = new Set<number>();
  let groupLocalities = new Map<string, number>();
  let groupChars = 0;
  let groupText: string[] = [];

  const closeGroup = (): void => {
    if (groupCountry === null) return;
    const chunk = Buffer.from(groupText.join(''), 'utf8');
    textChunks.push(chunk);
    textBytes += chunk.byteLength;
  };

  for (let row = 0; row < count; row++) {
    const record = rows[row]!;
    const countryRow = countryRowOf(record);
    if (countryRow !== groupCountry) {
      if (seenCountries.has(countryRow)) {
        throw new Error(`postcodes.filters: expected postcode rows grouped by country row, found country_id ${record.country_id} again at row ${row} (id ${record.id})`);
      }
      closeGroup();
      groupCountry = countryRow;
      seenCountries.add(groupCountry);
      groupRowStart.push(row);
      groupLocalityStart.push(localityCharStart.length);
      groupTextStart.push(textBytes);
      groupLocalities = new Map();
      groupChars = 0;
      groupText = [];
    }

    if (record.locality_name !== null) {
      const key = matchKey(record.locality_name);
      if (key !== '') {
        let locality = groupLocalities.get(key);
        if (locality === undefined) {
          locality = localityCharStart.length;
          groupLocalities.set(key, locality);
          localityCharStart.push(groupChars);
          groupText.push(key, LOCALITY_TERMINATOR);
          groupChars += key.length + LOCALITY_TERMINATOR.length;
        }
        localityByRow[row] = locality;
      }
    }

    if (record.state_code !== null && record.state_code !== '') {
      const key = stateCodeKey(record.state_code);
      let index = stateCodeIndex.get(key);
      if (index === undefined) {
        index = stateCodeNames.length;
        stateCodeIndex.set(key, index);
        stateCodeNames.push(key);
      }
      stateCodeByRow[row] = index;
    }

    if (record.city_id !== null) cityIdByRow[row] = record.city_id;

    if (record.type !== null && record.type !== '') {
      const key = postcodeTypeKey(record.type);
      let index = typeIndex.get(key);
      if (index === undefined) {
        if (typeNames.length >= MAX_TYPES) throw new Error(`postcodes.filters: expected at most ${MAX_TYPES} distinct postcode types, found more`);
        index = typeNames.length;
        typeIndex.set(key, index);
        typeNames.push(key);
      }
      typeByRow[row] = index + 1;
    }
  }
  closeGroup();
  groupRowStart.push(count);
  groupLocalityStart.push(localityCharStart.length);
  groupTextStart.push(textBytes);

  const localityText = new Uint8Array(textBytes);
  let offset = 0;
  for (const chunk of textChunks) {
    localityText.set(chunk, offset);
    offset += chunk.byteLength;
  }
  const utf8Json = (value: unknown): Uint8Array => new Uint8Array(Buffer.from(JSON.stringify(value), 'utf8'));

  return new ArrayPackBuilder()
    .add(Int32Array.of(POSTCODE_FILTERS_LAYOUT_VERSION))
    .add(localityByRow)
    .add(stateCodeByRow)
    .add(cityIdByRow)
    .add(typeByRow)
    .add(Int32Array.from(groupRowStart))
    .add(Int32Array.from(groupLocalityStart))
    .add(Int32Array.from(groupTextStart))
    .add(Int32Array.from(localityCharStart))
    .add(localityText)
    .add(utf8Json(stateCodeNames))
    .add(utf8Json(typeNames))
    .finish();
}
