// The `prominence.cities` section (PROMINENCE_SECTION): per city row, in snapshot row order,
//   0 prominence  Float64Array  the dataset's population where it has one, else the population of
//                               the matched GeoNames place (build-index/enrich), -1 when neither
//   1 geonameId   Int32Array    the matched GeoNames id, 0 when unmatched
// Written by build-index/sections/prominence.ts, read by runtime/engine/search/context.ts.
import { ArrayPack, ArrayPackBuilder } from './array-pack.js';
import { SnapshotFormatError } from './section.js';

export interface ProminenceColumns {
  prominence: Float64Array;
  geonameId: Int32Array;
}

export function encodeProminence(columns: ProminenceColumns): Uint8Array {
  if (columns.prominence.length !== columns.geonameId.length) {
    throw new Error(`prominence: expected columns of one length, found ${columns.prominence.length} and ${columns.geonameId.length}`);
  }
  return new ArrayPackBuilder().add(columns.prominence).add(columns.geonameId).finish();
}

export function openProminence(buffer: ArrayBufferLike, rows: number, what: string): ProminenceColumns {
  const pack = ArrayPack.from(buffer, 0, what);
  const prominence = pack.get(0, Float64Array, `${what} prominence`);
  const geonameId = pack.get(1, Int32Array, `${what} geonameId`);
  for (const [name, array] of [['prominence', prominence], ['geonameId', geonameId]] as const) {
    if (array.length !== rows) throw new SnapshotFormatError(`${what} ${name}: expected ${rows} entries (one per city row), found ${array.length}`);
  }
  return { prominence, geonameId };
}
