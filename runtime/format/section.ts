// Binary section files: a fixed 64-byte header, then the payload.
//   0  magic "GEOAPISN" (8 bytes)
//   8  format version (u32)     12 header size (u32, = 64)
//  16  payload bytes (u64)      24 payload CRC-32 (u32)     28 reserved (u32, must be 0)
//  32  section name (32 bytes ASCII, NUL padded; the padding must be 0)
// The CRC covers only the payload, so the reader insists the reserved bytes and the padding are
// zero: every header byte is then checked (a future use of them must bump the format version).
// The payload is read into its own (Shared)ArrayBuffer at offset 0, so libraries that insist on
// owning a whole buffer (kdbush) can use it as is. CRC-32 is checked at load (fast: ~15 ms for
// 100 MB); the manifest also records SHA-256 for `geoapi verify` and for publishing.
import { crc32 } from 'node:zlib';

export const SECTION_MAGIC = 'GEOAPISN';
// 2: the relations section no longer holds postcodeStateRow, postcodeCityRow, countryRegionRow.
// 3: trigram postings are grouped by their doc's trigram count (runtime/indexes/trigram-index.ts).
// 4: records store `translations` JSON-escaped (runtime/format/json-text.ts).
// 5: trigram docs are numbered by trigram count, then row (runtime/indexes/trigram-index.ts).
export const SNAPSHOT_FORMAT_VERSION = 5;
export const SECTION_HEADER_BYTES = 64;
const NAME_BYTES = 32;

export interface SectionHeader {
  formatVersion: number;
  payloadBytes: number;
  crc32: number;
  name: string;
}

export class SnapshotFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotFormatError';
  }
}

export function encodeSectionHeader(name: string, payload: Uint8Array): Uint8Array {
  if (name.length > NAME_BYTES || !/^[\x20-\x7e]+$/.test(name)) throw new Error(`section name must be 1–${NAME_BYTES} ASCII characters, got "${name}"`);
  const header = new Uint8Array(SECTION_HEADER_BYTES);
  const view = new DataView(header.buffer);
  header.set(Buffer.from(SECTION_MAGIC, 'ascii'), 0);
  view.setUint32(8, SNAPSHOT_FORMAT_VERSION, true);
  view.setUint32(12, SECTION_HEADER_BYTES, true);
  view.setBigUint64(16, BigInt(payload.byteLength), true);
  view.setUint32(24, crc32(payload) >>> 0, true);
  header.set(Buffer.from(name, 'ascii'), 32);
  return header;
}

/** Parses and checks a header; `file` names the file in every error. */
export function decodeSectionHeader(header: Uint8Array, file: string): SectionHeader {
  if (header.byteLength < SECTION_HEADER_BYTES) {
    throw new SnapshotFormatError(`${file}: truncated header: expected ${SECTION_HEADER_BYTES} bytes, found ${header.byteLength}`);
  }
  const magic = Buffer.from(header.buffer, header.byteOffset, 8).toString('latin1');
  if (magic !== SECTION_MAGIC) throw new SnapshotFormatError(`${file}: not a geoapi section: expected magic "${SECTION_MAGIC}", found ${JSON.stringify(magic)}`);
  const view = new DataView(header.buffer, header.byteOffset, SECTION_HEADER_BYTES);
  const formatVersion = view.getUint32(8, true);
  if (formatVersion !== SNAPSHOT_FORMAT_VERSION) {
    throw new SnapshotFormatError(`${file}: snapshot format version mismatch: expected ${SNAPSHOT_FORMAT_VERSION}, found ${formatVersion} (rebuild with this version's \`geoapi build\`)`);
  }
  const headerBytes = view.getUint32(12, true);
  if (headerBytes !== SECTION_HEADER_BYTES) throw new SnapshotFormatError(`${file}: header size: expected ${SECTION_HEADER_BYTES}, found ${headerBytes}`);
  const payloadBytes = Number(view.getBigUint64(16, true));
  const crc = view.getUint32(24, true);
  const reserved = view.getUint32(28, true);
  if (reserved !== 0) throw new SnapshotFormatError(`${file}: reserved header bytes 28–31: expected zeros, found 0x${hex(reserved)}`);
  const nameBytes = header.subarray(32, 32 + NAME_BYTES);
  const end = nameBytes.indexOf(0);
  if (end >= 0) {
    const stray = nameBytes.findIndex((byte, i) => i > end && byte !== 0);
    if (stray >= 0) throw new SnapshotFormatError(`${file}: header byte ${32 + stray} (section name padding): expected zero, found 0x${nameBytes[stray]!.toString(16).padStart(2, '0')}`);
  }
  const name = Buffer.from(nameBytes.buffer, nameBytes.byteOffset, end < 0 ? NAME_BYTES : end).toString('ascii');
  return { formatVersion, payloadBytes, crc32: crc, name };
}

/** `crc`: the payload's CRC-32 when the caller computed it while reading (crc32's running value). */
export function checkPayload(header: SectionHeader, payload: Uint8Array, file: string, crc: number = crc32(payload)): void {
  if (payload.byteLength !== header.payloadBytes) {
    throw new SnapshotFormatError(`${file}: truncated section "${header.name}": expected ${header.payloadBytes} payload bytes, found ${payload.byteLength}`);
  }
  const found = crc >>> 0;
  if (found !== header.crc32) {
    throw new SnapshotFormatError(`${file}: corrupt section "${header.name}": expected CRC-32 ${hex(header.crc32)}, found ${hex(found)}`);
  }
}

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}
