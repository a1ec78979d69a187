// Nearest places to a coordinate: a kdbush KD-tree over (lng, lat) searched with geokdbush, which
// measures great-circle distance and so handles the antimeridian and the poles.
//
// Payload (`geo.<entity>`): the kdbush buffer itself at offset 0 (KDBush.from insists on owning
// the buffer from its start; kdbush ignores bytes after its own), then an ArrayPack with
//   0 rowOfPoint     Int32Array(points)  kdbush item id → row (rows without coordinates are skipped)
//   1 positionOfRow  Int32Array(rows)    row → position in kdbush's kd-sorted coords, -1 when the
//                                        row has no coordinates
// lng(row)/lat(row) read kdbush's own Float64 coords (zero-copy), the values the tree measures.
import KDBush from 'kdbush';
import { around as geoAround } from 'geokdbush';
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';

const KDBUSH_HEADER_BYTES = 8;
// Small leaves suit k-nearest with small k (geokdbush scores every point of a visited leaf).
const NODE_SIZE = 16;

/** Earth radius in km: the IUGG mean radius rounded to the kilometre, as geokdbush uses. */
export const EARTH_RADIUS_KM = 6371;
const RAD = Math.PI / 180;

function haverSin(theta: number): number {
  const s = Math.sin(theta / 2);
  return s * s;
}

/**
 * Great-circle (haversine) distance in km from (lng1, lat1) to (lng2, lat2), in degrees: the one
 * distance of the API (nearby ranking, radius filter, `distance_km`). The expression is
 * geokdbush's, operation for operation, so it gives the same double as the tree's walk order and
 * radius bound: the tree's "nearest first" is our order. Arguments in kdbush order (lng first).
 */
export function distanceKm(lng1: number, lat1: number, lng2: number, lat2: number): number {
  const h = Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * haverSin((lng1 - lng2) * RAD) + haverSin((lat1 - lat2) * RAD);
  // Rounding can push h a hair above 1 for antipodal points, where asin would give NaN.
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(h < 1 ? h : 1));
}

/** Rows found by `aroundWithDistances`, nearest first, with the distance of each. */
export interface GeoHits {
  rows: number[];
  distancesKm: Float64Array;
}

function isCoordinate(lng: number, lat: number): boolean {
  return Number.isFinite(lng) && Number.isFinite(lat) && lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90;
}

/**
 * Builds the payload from per-row coordinates (NaN where unknown). Rows whose coordinates are
 * not finite or out of range (lng ∉ [-180, 180], lat ∉ [-90, 90]) are left out of the tree.
 */
export function buildGeoIndex(lngs: Float64Array, lats: Float64Array): Uint8Array {
  if (lngs.length !== lats.length) throw new Error(`geo index: expected as many latitudes as longitudes (${lngs.length}), found ${lats.length}`);
  const rowCount = lngs.length;
  const rows: number[] = [];
  for (let row = 0; row < rowCount; row++) if (isCoordinate(lngs[row]!, lats[row]!)) rows.push(row);
  const tree = new KDBush(rows.length, NODE_SIZE, Float64Array);
  for (const row of rows) tree.add(lngs[row]!, lats[row]!);
  tree.finish();
  const rowOfPoint = Int32Array.from(rows);
  const positionOfRow = new Int32Array(rowCount).fill(-1);
  for (let position = 0; position < tree.ids.length; position++) positionOfRow[rowOfPoint[tree.ids[position]!]!] = position;
  const treeBytes = new Uint8Array(tree.data as ArrayBuffer);
  const trailer = new ArrayPackBuilder().add(rowOfPoint).add(positionOfRow).finish();
  // kdbush's buffer length is a multiple of 8 (8-byte header, ids padded to 8, Float64 coords),
  // so the trailer pack starts 8-byte aligned.
  const out = new Uint8Array(treeBytes.byteLength + trailer.byteLength);
  out.set(treeBytes, 0);
  out.set(trailer, treeBytes.byteLength);
  return out;
}

function treeByteLength(points: number): number {
  const idBytes = points * (points < 65536 ? 2 : 4);
  return KDBUSH_HEADER_BYTES + idBytes + ((8 - (idBytes % 8)) % 8) + points * 16;
}

export class GeoIndex {
  private constructor(
    private readonly tree: KDBush,
    private readonly coords: Float64Array,
    private readonly rowOfPoint: Int32Array,
    private readonly positionOfRow: Int32Array,
  ) {}

  /** `buffer` holds exactly one payload starting at offset 0 (its own ArrayBuffer/SharedArrayBuffer). */
  static from(buffer: ArrayBufferLike, what = 'geo index'): GeoIndex {
    if (ArrayBuffer.isView(buffer)) throw new SnapshotFormatError(`${what}: expected an ArrayBuffer or SharedArrayBuffer, found a ${(buffer as object).constructor.name}`);
    let tree: KDBush;
    try {
      tree = KDBush.from(buffer);
    } catch (error) {
      throw new SnapshotFormatError(`${what}: expected a kdbush buffer at offset 0: ${(error as Error).message}`);
    }
    if (tree.ArrayType !== Float64Array) throw new SnapshotFormatError(`${what}: expected Float64 coordinates, found ${tree.ArrayType.name}`);
    const treeBytes = treeByteLength(tree.numItems);
    if (buffer.byteLength < treeBytes) throw new SnapshotFormatError(`${what}: truncated kdbush data: expected ${treeBytes} bytes, found ${buffer.byteLength}`);
    const pack = ArrayPack.from(buffer, treeBytes, what);
    const rowOfPoint = pack.get(0, Int32Array, what);
    const positionOfRow = pack.get(1, Int32Array, what);
    if (rowOfPoint.length !== tree.numItems) {
      throw new SnapshotFormatError(`${what}: expected ${tree.numItems} point rows, found ${rowOfPoint.length}`);
    }
    return new GeoIndex(tree, tree.coords as Float64Array, rowOfPoint, positionOfRow);
  }

  /** Rows in the tree (rows with coordinates). */
  get pointCount(): number {
    return this.tree.numItems;
  }

  /** Rows of the entity (with or without coordinates). */
  get rowCount(): number {
    return this.positionOfRow.length;
  }

  hasPoint(row: number): boolean {
    return (this.positionOfRow[row] ?? -1) >= 0;
  }

  /** Longitude of a row, NaN when it has none. */
  lng(row: number): number {
    const position = this.positionOfRow[row] ?? -1;
    return position < 0 ? NaN : this.coords[2 * position]!;
  }

  /** Latitude of a row, NaN when it has none. */
  lat(row: number): number {
    const position = this.positionOfRow[row] ?? -1;
    return position < 0 ? NaN : this.coords[2 * position + 1]!;
  }

  /** Distance in km from (lng, lat) to a row's point, NaN when the row has none. */
  distanceKmTo(row: number, lng: number, lat: number): number {
    const position = this.positionOfRow[row] ?? -1;
    return position < 0 ? NaN : distanceKm(lng, lat, this.coords[2 * position]!, this.coords[2 * position + 1]!);
  }

  /**
   * Up to `maxResults` rows within `radiusKm` of (lng, lat) that pass `filter`, nearest first;
   * rows at equal distance come in ascending row order.
   */
  around(lng: number, lat: number, maxResults: number, radiusKm: number, filter?: (row: number) => boolean): number[] {
    return this.aroundWithDistances(lng, lat, maxResults, radiusKm, filter).rows;
  }

  /** As `around`, with each row's distanceKm from (lng, lat), computed once. */
  aroundWithDistances(lng: number, lat: number, maxResults: number, radiusKm: number, filter?: (row: number) => boolean): GeoHits {
    if (!(maxResults > 0) || !(radiusKm >= 0) || this.tree.numItems === 0) return { rows: [], distancesKm: new Float64Array(0) };
    const rowOfPoint = this.rowOfPoint;
    const predicate = filter ? (point: number) => filter(rowOfPoint[point]!) : undefined;
    const points = geoAround(this.tree, lng, lat, maxResults, radiusKm, predicate);
    const rows = new Array<number>(points.length);
    const distances = new Float64Array(points.length);
    for (let i = 0; i < points.length; i++) {
      const row = rowOfPoint[points[i]!]!;
      rows[i] = row;
      distances[i] = this.distanceKmTo(row, lng, lat);
    }
    // geokdbush pops equal distances in heap order; order those runs by row (deterministic).
    for (let i = 1; i < rows.length; i++) {
      const row = rows[i]!;
      const d = distances[i]!;
      let j = i - 1;
      while (j >= 0 && distances[j] === d && rows[j]! > row) {
        rows[j + 1] = rows[j]!;
        distances[j + 1] = distances[j]!;
        j--;
      }
      rows[j + 1] = row;
      distances[j + 1] = d;
    }
    return { rows, distancesKm: distances };
  }
}
