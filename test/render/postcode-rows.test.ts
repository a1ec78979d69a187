// Postcode records written from the rows' bytes (runtime/render/postcodes.ts postcodeRowsBody): the
// same text as serializePostcodes over decoded records — ids as strings, coordinates as numbers,
// fields above the tier absent — for every fixture row, and for the stored values a coordinate
// text can hold (absent, blank, not a number, exponents, trailing zeros).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as flatbuffers from 'flatbuffers';
import * as fb from '../../runtime/format/generated/geoapi/fb.js';
import type { PostcodeRecord } from '../../runtime/format/model.js';
import { postcodeProjection, postcodeRowsBody, serializePostcodes } from '../../runtime/render/postcodes.js';
import { postcodeCodec } from '../../runtime/store/codecs.js';
import type { RowBytes } from '../../runtime/store/types.js';
import { fixtureSnapshot } from '../support/snapshots.js';

const FIELD_LISTS: (readonly string[] | null)[] = [null, ['id', 'code'], ['latitude', 'longitude', 'city_id'], ['state_id', 'wikiDataId', 'source', 'country_id']];

/** A PostcodeTable of the given records, with its rows as the row writer reads them and as the codec decodes them. */
function tableOf(records: PostcodeRecord[]): { rows: RowBytes; decoded: PostcodeRecord[] } {
  const builder = new flatbuffers.Builder(1024);
  const text = (value: string | null) => (value === null ? 0 : builder.createString(value));
  const offsets = records.map((r) => {
    const fields = [r.code, r.country_code, r.state_code, r.locality_name, r.type, r.latitude, r.longitude, r.source, r.wikiDataId].map(text);
    return fb.Postcode.createPostcode(builder, r.id, fields[0]!, r.country_id, fields[1]!, r.state_id, fields[2]!, r.city_id, fields[3]!, fields[4]!, fields[5]!, fields[6]!, fields[7]!, fields[8]!);
  });
  builder.finish(fb.PostcodeTable.createPostcodeTable(builder, fb.PostcodeTable.createRowsVector(builder, offsets)));
  const bytes = builder.asUint8Array();
  const table = fb.PostcodeTable.getRootAsPostcodeTable(new flatbuffers.ByteBuffer(bytes));
  const rows: RowBytes = { bytes, layout: postcodeCodec.layout!, count: table.rowsLength(), tablePosition: (row) => table.rows(row)!.bb_pos };
  const decoded = records.map((_, row) => postcodeCodec.decode(table.rows(row, postcodeCodec.newCursor())!));
  return { rows, decoded };
}

describe('postcode rows written from their bytes', () => {
  it('match serializePostcodes for every fixture postcode, at every tier and with fields lists', () => {
    const { store } = fixtureSnapshot();
    const table = store.postcodes;
    const rowBytes = table.rowBytes;
    assert.ok(rowBytes, 'postcodes have a row layout');
    const all = Array.from({ length: table.count }, (_, row) => row);
    for (const tier of ['basic', 'coordinates', 'full'] as const) {
      for (const fields of FIELD_LISTS) {
        const projection = postcodeProjection(tier, fields);
        const body = postcodeRowsBody(rowBytes, projection, all, '{"data":', ',"meta":{}}').toString('utf8');
        assert.equal(body, `{"data":${serializePostcodes(projection, all.map((row) => table.record(row)))},"meta":{}}`, `${tier} ${fields?.join(',') ?? 'all fields'}`);
      }
    }
    assert.equal(postcodeRowsBody(rowBytes, postcodeProjection('full', null), [], '', '').toString('utf8'), '[]');
  });

  it('write every kind of stored coordinate text as the record serialiser does', () => {
    const base: PostcodeRecord = { id: 7, code: '01000', country_id: 1, country_code: 'XX', state_id: null, state_code: null, city_id: null, locality_name: null, type: null, latitude: null, longitude: null, source: null, wikiDataId: null };
    const texts = [null, '', '   ', 'abc', '1e3', '-0', '-0.000', '40.71280000', ' 12.5 ', '0x10', 'Infinity', '1e400', '.5', '+3', '-122.41941550'];
    const records = texts.map((latitude, i) => ({ ...base, id: i, state_id: i % 2 === 0 ? null : i * 10, city_id: i % 3 === 0 ? null : 0, latitude, longitude: texts[texts.length - 1 - i]! }));
    const { rows, decoded } = tableOf(records);
    const all = records.map((_, row) => row);
    for (const tier of ['basic', 'coordinates', 'full'] as const) {
      const projection = postcodeProjection(tier, null);
      assert.equal(postcodeRowsBody(rows, projection, all, '', '').toString('utf8'), serializePostcodes(projection, decoded), tier);
    }
  });
});
