// Nearest places to a coordinate: a kdbush KD-tree over (lng, lat) searched by geokdbush's
// algorithm, which measures great-circle distance and so handles the antimeridian and the poles.
// The walk is geokdbush's `around`, step for step and bound for bound, over typed arrays: the
// package allocates an object per visited point and per tree node (about 110 KB per nearby
// request on the full dataset, a scavenge every few dozen requests); here the queue and the
// nodes are scratch arrays reused by every walk (one walk at a time per index).
//
// Payload (`geo.<entity>`): the kdbush buffer itself at offset 0 (KDBush.from insists on owning
// the buffer from its start; kdbush ignores bytes after its own), then an ArrayPack with
//   0 rowOfPoint     Int32Array(points)  kdbush item id → row (rows without coordinates are skipped)
//   1 positionOfRow  Int32Array(rows)    row → position in kdbush's kd-sorted coords, -1 when the
//                                        row has no coordinates
// lng(row)/lat(row) read kdbush's own Float64 coords (zero-copy), the values the tree measures.
import KDBush from 'kdbush';
import { ArrayPack, ArrayPackBuilder } from '../format/array-pack.js';
import { SnapshotFormatError } from '../format/section.js';

const KDBUSH_HEADER_BYTES = 8;
/** rangeOutOfReach's key of a row range: rowStart · this + rowEnd (row counts stay below it). */
const RANGE_KEY_SCALE = 2 ** 24;
/** The grid of rangeOutOfReach's boxes: cells of this many degrees of longitude and latitude. */
const RANGE_CELL_DEGREES = 8;
const RANGE_GRID_COLUMNS = Math.ceil(360 / RANGE_CELL_DEGREES);
const RANGE_GRID_ROWS = Math.ceil(180 / RANGE_CELL_DEGREES);
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

/**
 * What a walk may skip: a node none of whose points can pass the caller's filter, judged from
 * summaries per node of the tree (rows, nodeMaxima, nodeMasks). Without it a selective filter
 * (a country far from the point, a population no city nearby reaches) made the walk score and
 * reject every point within the radius: ~5–20 ms for 500 km in Europe or India. The filter
 * still decides for every point the walk meets; pruning only leaves out points it would reject.
 */
export interface GeoPrune {
  /** Rows outside [rowStart, rowEnd) never pass. */
  rowStart: number;
  rowEnd: number;
  /** nodeMaxima() of a per-row value, and the least value that passes; null: no such bound. */
  maxima: Float64Array | null;
  minValue: number;
  /** nodeMasks() of a per-row code (0–7), and the codes that pass as bits (1 << code); null: no such bound. */
  masks: Uint8Array | null;
  mask: number;
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
  // The walk's scratch. The queue holds points and tree nodes by their distance bound; an entry
  // refers to a node slot (≥ 0) or to a point's position in kdbush's order (−1 − position).
  private queueDist = new Float64Array(256);
  private queueRef = new Int32Array(256);
  private queueLength = 0;
  // Nodes met by the current walk: index range in kdbush's arrays, split axis, bounding box.
  private nodeLeft = new Int32Array(128);
  private nodeRight = new Int32Array(128);
  private nodeAxis = new Uint8Array(128);
  private nodeBox = new Float64Array(128 * 4);
  /** Each node's number in the tree's heap numbering (the root 1, node h's children 2h and 2h + 1): where its summaries are. */
  private nodeHeap = new Int32Array(128);
  private nodeCount = 0;
  /** Per heap-numbered node, the least and greatest row of its points: built by prepare(), or by the first pruned walk. */
  private rowMin: Int32Array | null = null;
  private rowMax: Int32Array | null = null;
  /** rangeOutOfReach's boxes of a row range (boxesOfRows), by rowStart · RANGE_KEY_SCALE + rowEnd. */
  private readonly rangeBoxes = new Map<number, Float64Array>();
  /** Positions found by the last walk, nearest first. */
  private foundPositions = new Int32Array(64);

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
  around(lng: number, lat: number, maxResults: number, radiusKm: number, filter?: (row: number) => boolean, prune?: GeoPrune): number[] {
    return this.aroundWithDistances(lng, lat, maxResults, radiusKm, filter, prune).rows;
  }

  /**
   * As `around`, with each row's distanceKm from (lng, lat), computed once. `prune`, when given,
   * must only rule out rows that `filter` rejects: the answer is then the same, found sooner.
   */
  aroundWithDistances(lng: number, lat: number, maxResults: number, radiusKm: number, filter?: (row: number) => boolean, prune?: GeoPrune): GeoHits {
    if (!(maxResults > 0) || !(radiusKm >= 0) || this.tree.numItems === 0) return { rows: [], distancesKm: new Float64Array(0) };
    const found = this.walk(lng, lat, maxResults, radiusKm, filter, prune);
    const positions = this.foundPositions;
    const coords = this.coords;
    const rows = new Array<number>(found);
    const distances = new Float64Array(found);
    for (let i = 0; i < found; i++) {
      const position = positions[i]!;
      rows[i] = this.rowOfPoint[this.tree.ids[position]!]!;
      distances[i] = distanceKm(lng, lat, coords[2 * position]!, coords[2 * position + 1]!);
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

  /**
   * geokdbush's `around` (2.1.0): the positions of up to maxResults points within radiusKm that
   * pass `filter`, nearest first, into foundPositions; returns how many. Same expressions, same
   * bounds, same order of pushes and pops as the package, so the same points in the same order.
   */
  private walk(lng: number, lat: number, maxResults: number, radiusKm: number, filter: ((row: number) => boolean) | undefined, prune: GeoPrune | undefined): number {
    if (prune !== undefined) this.prepare();
    if (this.skips(1, prune)) return 0;
    const maxHaverSinDist = haverSin(radiusKm / EARTH_RADIUS_KM);
    const cosLat = Math.cos(lat * RAD);
    if (prune !== undefined && this.rangeOutOfReach(prune.rowStart, prune.rowEnd, lng, lat, cosLat, maxHaverSinDist)) return 0;
    const ids = this.tree.ids;
    const coords = this.coords;
    const rowOfPoint = this.rowOfPoint;
    const nodeSize = this.tree.nodeSize;
    this.queueLength = 0;
    this.nodeCount = 0;
    let found = 0;
    let node = this.addNode(0, ids.length - 1, 0, -180, -90, 180, 90, 1);
    while (node >= 0) {
      const left = this.nodeLeft[node]!;
      const right = this.nodeRight[node]!;
      if (right - left <= nodeSize) {
        for (let i = left; i <= right; i++) {
          if (filter === undefined || filter(rowOfPoint[ids[i]!]!)) this.push(haverSinDist(lng, lat, coords[2 * i]!, coords[2 * i + 1]!, cosLat), -1 - i);
        }
      } else {
        const m = (left + right) >> 1;
        const midLng = coords[2 * m]!;
        const midLat = coords[2 * m + 1]!;
        if (filter === undefined || filter(rowOfPoint[ids[m]!]!)) this.push(haverSinDist(lng, lat, midLng, midLat, cosLat), -1 - m);
        const axis = this.nodeAxis[node]!;
        const box = this.nodeBox;
        const minLng = box[4 * node]!;
        const minLat = box[4 * node + 1]!;
        const maxLng = box[4 * node + 2]!;
        const maxLat = box[4 * node + 3]!;
        const nextAxis = (axis + 1) % 2;
        const leftHeap = 2 * this.nodeHeap[node]!;
        // (The package computes both bounds before pushing either: the same values. A skipped
        // child changes only the order in which equal distances pop, which the caller sorts.)
        if (!this.skips(leftHeap, prune)) {
          const leftNode = this.addNode(left, m - 1, nextAxis, minLng, minLat, axis === 0 ? midLng : maxLng, axis === 1 ? midLat : maxLat, leftHeap);
          this.push(this.boxDistOf(leftNode, lng, lat, cosLat), leftNode);
        }
        if (!this.skips(leftHeap + 1, prune)) {
          const rightNode = this.addNode(m + 1, right, nextAxis, axis === 0 ? midLng : minLng, axis === 1 ? midLat : minLat, maxLng, maxLat, leftHeap + 1);
          this.push(this.boxDistOf(rightNode, lng, lat, cosLat), rightNode);
        }
      }
      // Points now at the front are nearer than anything left in the queue (a node's distance
      // bounds its points'): take them, up to the first node.
      node = -1;
      while (this.queueLength > 0) {
        const dist = this.queueDist[0]!;
        const ref = this.pop();
        if (ref >= 0) {
          node = ref;
          break;
        }
        if (dist > maxHaverSinDist) return found;
        if (found === this.foundPositions.length) this.foundPositions = grow(this.foundPositions);
        this.foundPositions[found++] = -1 - ref;
        if (found === maxResults) return found;
      }
    }
    return found;
  }

  private addNode(left: number, right: number, axis: number, minLng: number, minLat: number, maxLng: number, maxLat: number, heap: number): number {
    const slot = this.nodeCount++;
    if (slot === this.nodeLeft.length) {
      this.nodeLeft = grow(this.nodeLeft);
      this.nodeRight = grow(this.nodeRight);
      this.nodeHeap = grow(this.nodeHeap);
      const axes = new Uint8Array(this.nodeAxis.length * 2);
      axes.set(this.nodeAxis);
      this.nodeAxis = axes;
      const box = new Float64Array(this.nodeBox.length * 2);
      box.set(this.nodeBox);
      this.nodeBox = box;
    }
    this.nodeLeft[slot] = left;
    this.nodeRight[slot] = right;
    this.nodeAxis[slot] = axis;
    this.nodeHeap[slot] = heap;
    const box = this.nodeBox;
    box[4 * slot] = minLng;
    box[4 * slot + 1] = minLat;
    box[4 * slot + 2] = maxLng;
    box[4 * slot + 3] = maxLat;
    return slot;
  }

  /** Whether no point of the heap-numbered node can pass (see GeoPrune). */
  private skips(heap: number, prune: GeoPrune | undefined): boolean {
    if (prune === undefined) return false;
    if (this.rowMax![heap]! < prune.rowStart || this.rowMin![heap]! >= prune.rowEnd) return true;
    if (prune.maxima !== null && !(prune.maxima[heap]! >= prune.minValue)) return true;
    return prune.masks !== null && (prune.masks[heap]! & prune.mask) === 0;
  }

  /** Builds the per-node row bounds pruning reads (O(points)), ahead of the first walk that needs them. */
  prepare(): void {
    if (this.rowMin !== null || this.tree.numItems === 0) return;
    const ids = this.tree.ids;
    const rowOfPoint = this.rowOfPoint;
    const size = this.heapSize();
    this.rowMin = this.summarise(new Int32Array(size), (position) => rowOfPoint[ids[position]!]!, Math.min);
    this.rowMax = this.summarise(new Int32Array(size), (position) => rowOfPoint[ids[position]!]!, Math.max);
  }

  /** Per heap-numbered node, the greatest `valueOfRow` of its points (NaN counts as below every value): GeoPrune.maxima. */
  nodeMaxima(valueOfRow: ArrayLike<number>): Float64Array {
    const ids = this.tree.ids;
    const rowOfPoint = this.rowOfPoint;
    return this.summarise(new Float64Array(this.heapSize()), (position) => valueOfRow[rowOfPoint[ids[position]!]!]!, (a, b) => (a >= b || b !== b ? a : b));
  }

  /** Per heap-numbered node, the union of 1 << `codeOfRow` (0–7) of its points: GeoPrune.masks. */
  nodeMasks(codeOfRow: ArrayLike<number>): Uint8Array {
    const ids = this.tree.ids;
    const rowOfPoint = this.rowOfPoint;
    const bitOf = (position: number): number => {
      const code = codeOfRow[rowOfPoint[ids[position]!]!]!;
      // A code past 7 would fall out of the byte and its rows would be skipped as if absent.
      if (!(code >= 0 && code <= 7)) throw new RangeError(`geo index: expected codes from 0 to 7, found ${code}`);
      return 1 << code;
    };
    return this.summarise(new Uint8Array(this.heapSize()), bitOf, (a, b) => a | b);
  }

  /** How many values nodeMaxima() and nodeMasks() return: one per heap number, 0 unused. */
  get summaryLength(): number {
    return this.heapSize();
  }

  /** One more than the largest heap number of the tree's nodes (kdbush's recursion: leaves of at most nodeSize + 1 points). */
  private heapSize(): number {
    const nodeSize = this.tree.nodeSize;
    const largest = (left: number, right: number, heap: number): number => {
      if (right - left <= nodeSize) return heap;
      const m = (left + right) >> 1;
      return Math.max(largest(left, m - 1, 2 * heap), largest(m + 1, right, 2 * heap + 1));
    };
    return this.tree.numItems === 0 ? 1 : largest(0, this.tree.numItems - 1, 1) + 1;
  }

  /** Per heap-numbered node, `combine` over the values of its points (children first: O(points)). */
  private summarise<T extends Int32Array | Float64Array | Uint8Array>(out: T, valueAt: (position: number) => number, combine: (a: number, b: number) => number): T {
    const nodeSize = this.tree.nodeSize;
    const visit = (left: number, right: number, heap: number): number => {
      let value: number;
      if (right - left <= nodeSize) {
        value = valueAt(left);
        for (let position = left + 1; position <= right; position++) value = combine(value, valueAt(position));
      } else {
        const m = (left + right) >> 1;
        value = combine(valueAt(m), combine(visit(left, m - 1, 2 * heap), visit(m + 1, right, 2 * heap + 1)));
      }
      out[heap] = value;
      return value;
    };
    if (this.tree.numItems > 0) visit(0, this.tree.numItems - 1, 1);
    return out;
  }

  /** geokdbush's boxDist: a lower bound of the haversine term from (lng, lat) to points in the node's box. */
  private boxDistOf(node: number, lng: number, lat: number, cosLat: number): number {
    const box = this.nodeBox;
    return boxDist(box[4 * node]!, box[4 * node + 1]!, box[4 * node + 2]!, box[4 * node + 3]!, lng, lat, cosLat);
  }

  /**
   * Whether no point of the rows [rowStart, rowEnd) lies within the walk's bound of (lng, lat):
   * the boxes around those points, one per grid cell (boxesOfRows: made on first use per range and
   * kept, the ranges being countries and states), are all farther than it. A country or state far from the
   * point is then answered at once; the node bounds alone walked every node within the radius
   * first (~1–2 ms for 500 km in Europe, whatever the filter's size).
   */
  private rangeOutOfReach(rowStart: number, rowEnd: number, lng: number, lat: number, cosLat: number, maxHaverSinDist: number): boolean {
    if (rowStart <= 0 && rowEnd >= this.positionOfRow.length) return false;
    const key = rowStart * RANGE_KEY_SCALE + rowEnd;
    let boxes = this.rangeBoxes.get(key);
    if (boxes === undefined) this.rangeBoxes.set(key, (boxes = this.boxesOfRows(rowStart, rowEnd)));
    for (let b = 0; b < boxes.length; b += 4) {
      if (boxDist(boxes[b]!, boxes[b + 1]!, boxes[b + 2]!, boxes[b + 3]!, lng, lat, cosLat) <= maxHaverSinDist) return false;
    }
    return true;
  }

  /**
   * Boxes [minLng, minLat, maxLng, maxLat] holding every point of the rows [rowStart, rowEnd): for
   * each cell of a RANGE_CELL_DEGREES grid holding some, the box around those points. A country's
   * places overseas, or either side of ±180°, so get boxes of their own instead of one box around
   * the world.
   */
  private boxesOfRows(rowStart: number, rowEnd: number): Float64Array {
    const cells = new Float64Array(4 * RANGE_GRID_COLUMNS * RANGE_GRID_ROWS).fill(NaN);
    const coords = this.coords;
    let occupied = 0;
    for (let row = rowStart; row < rowEnd; row++) {
      const position = this.positionOfRow[row] ?? -1;
      if (position < 0) continue;
      const pointLng = coords[2 * position]!;
      const pointLat = coords[2 * position + 1]!;
      const column = Math.min(RANGE_GRID_COLUMNS - 1, Math.max(0, Math.floor((pointLng + 180) / RANGE_CELL_DEGREES)));
      const gridRow = Math.min(RANGE_GRID_ROWS - 1, Math.max(0, Math.floor((pointLat + 90) / RANGE_CELL_DEGREES)));
      const at = 4 * (gridRow * RANGE_GRID_COLUMNS + column);
      if (Number.isNaN(cells[at]!)) {
        occupied++;
        cells.set([pointLng, pointLat, pointLng, pointLat], at);
        continue;
      }
      if (pointLng < cells[at]!) cells[at] = pointLng;
      if (pointLat < cells[at + 1]!) cells[at + 1] = pointLat;
      if (pointLng > cells[at + 2]!) cells[at + 2] = pointLng;
      if (pointLat > cells[at + 3]!) cells[at + 3] = pointLat;
    }
    const boxes = new Float64Array(4 * occupied);
    for (let at = 0, b = 0; at < cells.length; at += 4) {
      if (Number.isNaN(cells[at]!)) continue;
      boxes.set(cells.subarray(at, at + 4), b);
      b += 4;
    }
    return boxes;
  }

  // tinyqueue's binary heap (same sift steps, so ties pop in the package's order), on typed arrays.
  private push(dist: number, ref: number): void {
    if (this.queueLength === this.queueDist.length) {
      const dists = new Float64Array(this.queueDist.length * 2);
      dists.set(this.queueDist);
      this.queueDist = dists;
      this.queueRef = grow(this.queueRef);
    }
    const dists = this.queueDist;
    const refs = this.queueRef;
    let pos = this.queueLength++;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      if (dist - dists[parent]! >= 0) break;
      dists[pos] = dists[parent]!;
      refs[pos] = refs[parent]!;
      pos = parent;
    }
    dists[pos] = dist;
    refs[pos] = ref;
  }

  /** Removes the front entry (the queue is not empty); returns its ref. */
  private pop(): number {
    const dists = this.queueDist;
    const refs = this.queueRef;
    const top = refs[0]!;
    const length = --this.queueLength;
    if (length > 0) {
      const dist = dists[length]!;
      const ref = refs[length]!;
      const half = length >> 1;
      let pos = 0;
      while (pos < half) {
        let best = (pos << 1) + 1;
        const right = best + 1;
        if (right < length && dists[right]! - dists[best]! < 0) best = right;
        if (dists[best]! - dist >= 0) break;
        dists[pos] = dists[best]!;
        refs[pos] = refs[best]!;
        pos = best;
      }
      dists[pos] = dist;
      refs[pos] = ref;
    }
    return top;
  }
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}

/** geokdbush's boxDist: a lower bound of the haversine term from (lng, lat) to any point of the box. */
function boxDist(minLng: number, minLat: number, maxLng: number, maxLat: number, lng: number, lat: number, cosLat: number): number {
  if (lng >= minLng && lng <= maxLng) {
    if (lat < minLat) return haverSin((lat - minLat) * RAD);
    if (lat > maxLat) return haverSin((lat - maxLat) * RAD);
    return 0;
  }
  const haverSinDLng = Math.min(haverSin((lng - minLng) * RAD), haverSin((lng - maxLng) * RAD));
  const extremumLat = vertexLat(lat, haverSinDLng);
  if (extremumLat > minLat && extremumLat < maxLat) return haverSinDistPartial(haverSinDLng, cosLat, lat, extremumLat);
  return Math.min(haverSinDistPartial(haverSinDLng, cosLat, lat, minLat), haverSinDistPartial(haverSinDLng, cosLat, lat, maxLat));
}

function haverSinDistPartial(haverSinDLng: number, cosLat1: number, lat1: number, lat2: number): number {
  return cosLat1 * Math.cos(lat2 * RAD) * haverSinDLng + haverSin((lat1 - lat2) * RAD);
}

function haverSinDist(lng1: number, lat1: number, lng2: number, lat2: number, cosLat1: number): number {
  return haverSinDistPartial(haverSin((lng1 - lng2) * RAD), cosLat1, lat1, lat2);
}

function vertexLat(lat: number, haverSinDLng: number): number {
  const cosDLng = 1 - 2 * haverSinDLng;
  if (cosDLng <= 0) return lat > 0 ? 90 : -90;
  return Math.atan(Math.tan(lat * RAD) / cosDLng) / RAD;
}
