// The `order.<entity>` sections (nameOrderSection; countries, states, cities): ArrayPack of
//   0 nameRank  Int32Array(rows)  the row's place in name order, rows in snapshot row order
// Name order is the `sort=name` order (runtime/engine/sort.ts): matchKey(name), then the raw name
// (UTF-16 code units); rows whose two are equal share a rank, so a list sorted by rank with ties
// in input order is the list sorted by name. Ranks are dense: 0 .. (distinct names − 1).
// Written by build-index/sections/name-order.ts, read by runtime/engine/name-order.ts.
import { matchKey } from '../text/normalise.js';
import { ArrayPack, ArrayPackBuilder } from './array-pack.js';
import { SnapshotFormatError } from './section.js';

/** Each name's rank in name order (equal names, equal ranks), by position in `names`. */
export function nameRanksOf(names: readonly string[]): Int32Array {
  const keys = names.map((name) => matchKey(name));
  const order = Array.from(names, (_, i) => i);
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  order.sort((a, b) => compare(keys[a]!, keys[b]!) || compare(names[a]!, names[b]!));
  const ranks = new Int32Array(names.length);
  let rank = -1;
  for (let i = 0; i < order.length; i++) {
    const row = order[i]!;
    const previous = i > 0 ? order[i - 1]! : -1;
    if (previous < 0 || keys[row] !== keys[previous] || names[row] !== names[previous]) rank++;
    ranks[row] = rank;
  }
  return ranks;
}

export function encodeNameOrder(nameRanks: Int32Array): Uint8Array {
  return new ArrayPackBuilder().add(nameRanks).finish();
}

/** The ranks of an `order.<entity>` section, checked against the table's row count. */
export function openNameOrder(buffer: ArrayBufferLike, rows: number, what: string): Int32Array {
  const nameRank = ArrayPack.from(buffer, 0, what).get(0, Int32Array, `${what} nameRank`);
  if (nameRank.length !== rows) throw new SnapshotFormatError(`${what} nameRank: expected ${rows} entries (one per row), found ${nameRank.length}`);
  for (let row = 0; row < rows; row++) {
    const rank = nameRank[row]!;
    if (rank < 0 || rank >= rows) throw new SnapshotFormatError(`${what} nameRank: expected ranks in 0..${rows - 1}, found ${rank} at row ${row}`);
  }
  return nameRank;
}
