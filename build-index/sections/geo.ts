// `geo.<entity>` sections: a GeoIndex (kdbush KD-tree, runtime/indexes/geo-index.ts) over each
// entity's coordinates, in snapshot row order. Coordinates are the source's decimal strings,
// read by the same parser as validation (runtime/text/decimal.ts); null or unparsable values
// leave the row out of the tree (it is never a nearby result).
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { geoSection, GEO_ENTITIES } from '../../runtime/format/sections.js';
import { buildGeoIndex } from '../../runtime/indexes/geo-index.js';
import { parseDecimal } from '../../runtime/text/decimal.js';

interface Located {
  latitude: string | null;
  longitude: string | null;
}

/** A decimal coordinate string as a number, NaN when absent or not a decimal. */
export function parseCoordinate(text: string | null): number {
  return parseDecimal(text);
}

function geoIndexOf(records: readonly Located[]): Uint8Array {
  const lngs = new Float64Array(records.length);
  const lats = new Float64Array(records.length);
  records.forEach((record, row) => {
    lngs[row] = parseCoordinate(record.longitude);
    lats[row] = parseCoordinate(record.latitude);
  });
  return buildGeoIndex(lngs, lats);
}

export function buildGeoSections(ds: Pick<NormalisedDataset, 'countries' | 'states' | 'cities' | 'postcodes'>): Record<string, Uint8Array> {
  return Object.fromEntries(GEO_ENTITIES.map((entity) => [geoSection(entity), geoIndexOf(ds[entity])]));
}
