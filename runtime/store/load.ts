// Reads a snapshot directory into memory: manifest.json, then each section's payload straight
// into its own SharedArrayBuffer (no intermediate Buffer), checked against its header and the
// manifest (magic, format version, name, size, CRC-32). Errors name the file and state expected
// vs found. The result is postMessage-able: worker threads share the bytes. A server's start
// reads every section at once on libuv's threadpool (loadSnapshotBytesAsync); the rest one read
// per section (loadSnapshotBytes).
import { closeSync, fstatSync, openSync, read, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { MANIFEST_FILE, MANIFEST_FORMAT, type Manifest } from '../format/manifest.js';
import { missingSections } from '../format/required-sections.js';
import { SECTION_HEADER_BYTES, SNAPSHOT_FORMAT_VERSION, SnapshotFormatError, checkPayload, decodeSectionHeader, type SectionHeader } from '../format/section.js';

export interface SnapshotBytes {
  /** Directory the snapshot was read from (for messages). */
  dir: string;
  manifest: Manifest;
  /** Section payloads by section name, each at offset 0 of its own buffer. */
  sections: Record<string, SharedArrayBuffer>;
  /**
   * Structures derived from the sections, built once by the main thread for every worker thread
   * (runtime/engine/shared.ts), by name; absent: each thread builds its own on first use.
   */
  derived?: Record<string, SharedArrayBuffer>;
}

/** The manifest file of the snapshot in `dir` (what a watcher of the snapshot watches). */
export function manifestPath(dir: string): string {
  return join(dir, MANIFEST_FILE);
}

export function readManifest(dir: string): Manifest {
  const file = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SnapshotFormatError(`${file}: ${code === 'ENOENT' ? 'no snapshot here (manifest.json not found); build one with `geoapi build`' : `cannot read: ${code ?? String(err)}`}`);
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch (err) {
    throw new SnapshotFormatError(`${file}: malformed JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== MANIFEST_FORMAT) {
    throw new SnapshotFormatError(`${file}: expected format "${MANIFEST_FORMAT}", found ${JSON.stringify((manifest as { format?: unknown } | null)?.format)}`);
  }
  if (manifest.formatVersion !== SNAPSHOT_FORMAT_VERSION) {
    // JSON.stringify so a string "1" does not read as "expected 1, found 1".
    const found = typeof manifest.formatVersion === 'number' ? String(manifest.formatVersion) : `${JSON.stringify(manifest.formatVersion) ?? 'nothing'} (${manifest.formatVersion === undefined ? 'absent' : `a ${manifest.formatVersion === null ? 'null' : typeof manifest.formatVersion}, not a number`})`;
    throw new SnapshotFormatError(`${file}: snapshot format version mismatch: expected ${SNAPSHOT_FORMAT_VERSION}, found ${found} (rebuild with this version's \`geoapi build\`)`);
  }
  if (!manifest.sections || typeof manifest.sections !== 'object' || !manifest.recordCounts) {
    throw new SnapshotFormatError(`${file}: expected "sections" and "recordCounts" objects`);
  }
  return manifest;
}

function readFully(fd: number, target: Uint8Array, position: number): number {
  let done = 0;
  while (done < target.byteLength) {
    const n = readSync(fd, target, done, target.byteLength - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/**
 * Section payloads are read in chunks of this size, all at once (readAndCheck; tests pass smaller
 * ones). Smaller chunks let the CRC start sooner; spawn → first answer on the full dataset, 6 runs
 * each: 2.05–2.44 s (median 2.10) at 2 MiB, 2.14–2.63 s (2.18) at 8 MiB, 2.14–2.34 s at 512 KiB.
 */
const READ_CHUNK_BYTES = 2 * 1024 * 1024;

function readAt(fd: number, target: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, target, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}

/** Reads target[start, end) from the payload; resolves with where it stopped (end, or before it in a file cut while read). */
async function readRange(fd: number, target: Uint8Array, start: number, end: number): Promise<number> {
  let done = start;
  while (done < end) {
    const n = await readAt(fd, target, done, end - done, SECTION_HEADER_BYTES + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/**
 * A section's payload read in chunks of `chunkBytes` at once on libuv's threadpool, the
 * CRC-32 computed over each chunk in order as soon as it and those before it are in, then checked.
 * The kernel's copies then run on every core while this thread computes the CRC of what has
 * arrived. Measured on the full dataset (176 MiB, 2-core VM, where the first touch of a page
 * costs ~7–12 µs), a server's spawn → first answer: 2.66–2.87 s one section after another,
 * 2.27–2.35 s so (2.34–2.50 s with the reads at once but every CRC after them).
 */
async function readAndCheck(section: OpenSection, chunkBytes: number): Promise<SharedArrayBuffer> {
  const target = new Uint8Array(section.buffer);
  const chunks: Promise<number>[] = [];
  for (let start = 0; start < target.byteLength; start += chunkBytes) chunks.push(readRange(section.fd, target, start, Math.min(start + chunkBytes, target.byteLength)));
  try {
    let crc = 0;
    let checked = 0;
    for (let i = 0; i < chunks.length; i++) {
      const reached = await chunks[i]!;
      crc = crc32(target.subarray(checked, reached), crc);
      checked = reached;
      if (reached < Math.min((i + 1) * chunkBytes, target.byteLength)) break;
    }
    checkPayload(section.header, target.subarray(0, checked), section.file, crc);
    return section.buffer;
  } finally {
    // The fd is closed after this returns: no read may still be using it.
    await Promise.allSettled(chunks);
  }
}

/** A section file opened and its header checked, with the buffer its payload goes into; the caller reads the payload, checks it (checkPayload) and closes `fd`. */
interface OpenSection {
  file: string;
  fd: number;
  header: SectionHeader;
  buffer: SharedArrayBuffer;
}

function openSection(dir: string, name: string, entry: Manifest['sections'][string]): OpenSection {
  if (typeof entry?.file !== 'string' || !/^[\w.-]+$/.test(entry.file) || entry.file.startsWith('.') || !Number.isSafeInteger(entry.bytes)) {
    throw new SnapshotFormatError(`${join(dir, MANIFEST_FILE)}: section "${name}": expected a plain file name and a byte count, found ${JSON.stringify(entry)}`);
  }
  const file = join(dir, entry.file);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SnapshotFormatError(`${file}: ${code === 'ENOENT' ? `missing section "${name}" (listed in manifest.json)` : `cannot read section "${name}": ${code ?? String(err)}`}`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new SnapshotFormatError(`${file}: section "${name}": expected a section file, found a directory`);
    const size = stat.size;
    if (size !== entry.bytes) {
      throw new SnapshotFormatError(`${file}: ${size < entry.bytes ? 'truncated' : 'wrong size for'} section "${name}": expected ${entry.bytes} bytes (manifest.json), found ${size}`);
    }
    const headerBytes = new Uint8Array(SECTION_HEADER_BYTES);
    readFully(fd, headerBytes, 0);
    const header = decodeSectionHeader(headerBytes, file);
    if (header.name !== name) throw new SnapshotFormatError(`${file}: expected section "${name}", found "${header.name}"`);
    if (header.payloadBytes !== size - SECTION_HEADER_BYTES) {
      throw new SnapshotFormatError(`${file}: truncated section "${name}": expected ${header.payloadBytes} payload bytes, found ${size - SECTION_HEADER_BYTES}`);
    }
    return { file, fd, header, buffer: new SharedArrayBuffer(header.payloadBytes) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function loadSection(dir: string, name: string, entry: Manifest['sections'][string]): SharedArrayBuffer {
  const section = openSection(dir, name, entry);
  try {
    const payload = new Uint8Array(section.buffer);
    checkPayload(section.header, payload.subarray(0, readFully(section.fd, payload, SECTION_HEADER_BYTES)), section.file);
    return section.buffer;
  } finally {
    closeSync(section.fd);
  }
}

/** Throws when the manifest omits sections the server reads, naming all of them. */
export function checkRequiredSections(dir: string, manifest: Manifest): void {
  const missing = missingSections(Object.keys(manifest.sections));
  if (missing.length === 0) return;
  const names = missing.map((name) => JSON.stringify(name)).join(', ');
  throw new SnapshotFormatError(
    `${join(dir, MANIFEST_FILE)}: missing section${missing.length === 1 ? '' : 's'} ${names}: the server needs ${missing.length === 1 ? 'it' : 'them'} (rebuild the snapshot with \`geoapi build\`)`,
  );
}

/** `only`: read just the sections it accepts (e.g. records for a diff), the others stay on disk. */
export function loadSnapshotBytes(dir: string, only?: (section: string) => boolean): SnapshotBytes {
  const manifest = readManifest(dir);
  // A partial read (the change diff reads records of an older snapshot) needs only what it reads.
  if (only === undefined) checkRequiredSections(dir, manifest);
  const sections: Record<string, SharedArrayBuffer> = {};
  for (const [name, entry] of Object.entries(manifest.sections)) if (!only || only(name)) sections[name] = loadSection(dir, name, entry);
  return { dir, manifest, sections };
}

/**
 * loadSnapshotBytes, every section read at once (readAndCheck), for a server's start, which waits
 * for nothing else. The same checks with the same messages: every file is opened and its header
 * checked first, then the payloads are read and their CRC-32s checked (when several are corrupt,
 * the first in manifest order is named).
 */
export async function loadSnapshotBytesAsync(dir: string, chunkBytes: number = READ_CHUNK_BYTES): Promise<SnapshotBytes> {
  const manifest = readManifest(dir);
  checkRequiredSections(dir, manifest);
  const opened: [string, OpenSection][] = [];
  try {
    for (const [name, entry] of Object.entries(manifest.sections)) opened.push([name, openSection(dir, name, entry)]);
    // Every read settles before the files are closed; the first refusal in manifest order is the one reported.
    const settled = await Promise.allSettled(opened.map(([, section]) => readAndCheck(section, chunkBytes)));
    const sections: Record<string, SharedArrayBuffer> = {};
    opened.forEach(([name], i) => {
      const outcome = settled[i]!;
      if (outcome.status === 'rejected') throw outcome.reason;
      sections[name] = outcome.value;
    });
    return { dir, manifest, sections };
  } finally {
    for (const [, section] of opened) closeSync(section.fd);
  }
}
