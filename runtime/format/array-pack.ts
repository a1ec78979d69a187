// A payload holding several typed arrays, each 8-byte aligned, read back as zero-copy views.
//   u32 magic 0x4B504147 ("GAPK"), u32 version, u32 arrayCount, u32 reserved,
//   then per array: u32 typeCode, u32 reserved, f64 length (elements), f64 byteOffset;
//   then the arrays. Built with `new ArrayPackBuilder().add(a).add(b).finish()`,
//   read with `ArrayPack.from(buffer)`.
import { SnapshotFormatError } from './section.js';

const PACK_MAGIC = 0x4b504147;
const PACK_VERSION = 1;
const HEAD_BYTES = 16;
const ENTRY_BYTES = 24;

export type TypedArray =
  | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;
type TypedArrayCtor = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray; BYTES_PER_ELEMENT: number; name: string };

const TYPES: TypedArrayCtor[] = [Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array];

function align8(n: number): number {
  return (n + 7) & ~7;
}

export class ArrayPackBuilder {
  private readonly arrays: TypedArray[] = [];

  add(array: TypedArray): this {
    this.arrays.push(array);
    return this;
  }

  finish(): Uint8Array {
    return this.writeInto((bytes) => new Uint8Array(bytes));
  }

  /** The same bytes in a SharedArrayBuffer: structures built once and read by every worker thread. */
  finishShared(): SharedArrayBuffer {
    // Written in place: a copy of large structures costs their size again in fresh pages.
    return this.writeInto((bytes) => new Uint8Array(new SharedArrayBuffer(bytes))).buffer as SharedArrayBuffer;
  }

  private writeInto(allocate: (bytes: number) => Uint8Array): Uint8Array {
    let offset = align8(HEAD_BYTES + ENTRY_BYTES * this.arrays.length);
    const offsets: number[] = [];
    for (const array of this.arrays) {
      offsets.push(offset);
      offset = align8(offset + array.byteLength);
    }
    const out = allocate(offset);
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    view.setUint32(0, PACK_MAGIC, true);
    view.setUint32(4, PACK_VERSION, true);
    view.setUint32(8, this.arrays.length, true);
    this.arrays.forEach((array, i) => {
      const typeCode = TYPES.findIndex((T) => array instanceof (T as unknown as Function));
      if (typeCode < 0) throw new Error('unsupported typed array');
      const entry = HEAD_BYTES + ENTRY_BYTES * i;
      view.setUint32(entry, typeCode, true);
      view.setFloat64(entry + 8, array.length, true);
      view.setFloat64(entry + 16, offsets[i]!, true);
      out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offsets[i]!);
    });
    return out;
  }
}

export class ArrayPack {
  private constructor(private readonly arrays: TypedArray[]) {}

  get length(): number {
    return this.arrays.length;
  }

  /** `buffer` must start the pack at `byteOffset` (8-byte aligned). `what` names it in errors. */
  static from(buffer: ArrayBufferLike, byteOffset = 0, what = 'array pack'): ArrayPack {
    if (byteOffset % 8 !== 0) throw new SnapshotFormatError(`${what}: pack offset must be 8-byte aligned, found ${byteOffset}`);
    if (buffer.byteLength - byteOffset < HEAD_BYTES) throw new SnapshotFormatError(`${what}: truncated pack: expected at least ${HEAD_BYTES} bytes, found ${buffer.byteLength - byteOffset}`);
    const view = new DataView(buffer, byteOffset);
    const magic = view.getUint32(0, true);
    if (magic !== PACK_MAGIC) throw new SnapshotFormatError(`${what}: expected pack magic ${PACK_MAGIC.toString(16)}, found ${magic.toString(16)}`);
    const version = view.getUint32(4, true);
    if (version !== PACK_VERSION) throw new SnapshotFormatError(`${what}: expected pack version ${PACK_VERSION}, found ${version}`);
    const count = view.getUint32(8, true);
    const arrays: TypedArray[] = [];
    for (let i = 0; i < count; i++) {
      const entry = HEAD_BYTES + ENTRY_BYTES * i;
      const T = TYPES[view.getUint32(entry, true)];
      const length = view.getFloat64(entry + 8, true);
      const offset = byteOffset + view.getFloat64(entry + 16, true);
      if (!T) throw new SnapshotFormatError(`${what}: array ${i}: unknown type code ${view.getUint32(entry, true)}`);
      if (offset + length * T.BYTES_PER_ELEMENT > buffer.byteLength) {
        throw new SnapshotFormatError(`${what}: array ${i}: expected ${length} ${T.name} elements at ${offset}, found a buffer of ${buffer.byteLength} bytes`);
      }
      arrays.push(new T(buffer, offset, length));
    }
    return new ArrayPack(arrays);
  }

  /** The i-th array, checked against the type the reader expects. */
  get<T extends TypedArray>(i: number, type: { new (...args: never[]): T; name: string }, what = 'array pack'): T {
    const array = this.arrays[i];
    if (!array) throw new SnapshotFormatError(`${what}: expected an array at position ${i}, found ${this.arrays.length} arrays`);
    if (!(array instanceof (type as unknown as Function))) {
      throw new SnapshotFormatError(`${what}: array ${i}: expected ${type.name}, found ${array.constructor.name}`);
    }
    return array as T;
  }
}
