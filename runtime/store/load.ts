// Reads a snapshot directory into memory: manifest.json, then each section's payload into its own
// SharedArrayBuffer (in chunks, through a few reused buffers: ReadBuffers), checked against its
// header and the manifest (magic, format version, name, size, CRC-32). Errors name the file and
// state expected vs found. The result is postMessage-able: worker threads share the bytes. A
// server's start reads every section at once on libuv's threadpool (loadSnapshotBytesAsync); the
// rest one section after another (loadSnapshotBytes).
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
 * Payloads are read in chunks of this size (tests pass smaller ones), through a few reused
 * buffers: see ReadBuffers. Smaller chunks let the CRC start sooner; spawn → first answer on the
 * full dataset, 6 runs each: 2.05–2.44 s (median 2.10) at 2 MiB, 2.14–2.63 s (2.18) at 8 MiB,
 * 2.14–2.34 s at 512 KiB (all chunks in flight at once then).
 */
const READ_CHUNK_BYTES = 2 * 1024 * 1024;
/** Chunk reads in flight at once on libuv's threadpool (4 threads), one reused buffer each. */
const READS_IN_FLIGHT = 3;

/**
 * Each payload chunk is read twice: into one of a few reused buffers, whose CRC-32 is computed,
 * and into the payload, which this thread does not touch. A page's first touch is what a load
 * costs on a virtual machine: the report's 2-core VM pays ~6 µs each time a process first touches
 * a page from kernel mode, and again from user mode (perf: page faults under pread's copy, then
 * under the CRC). Read once, into the payload, and checked there, every page of the payload was
 * touched both ways, on this thread for the CRC. Read twice, the payload's pages are touched by
 * the kernel only, on the threadpool's threads, and from user mode later, each when a request
 * thread first reads it (the warm-up touches most); the second read of a chunk comes from the
 * page cache again, already touched. The full dataset's 175 MiB, one chunk after another, CPU of
 * the whole read (this thread's share is the user time): read into the payload and checked
 * there 890–1,093 ms (user 282–398); read twice 800–824 ms (user 65–76). The file is checked, and
 * the payload is a second read of the same bytes: snapshot files are never written in place
 * (`geoapi build` writes a new directory and renames it), and a file cut between the two reads
 * fails the size check.
 * Bounding the reads in flight also leaves threads of the pool free for the worker threads
 * loading their code meanwhile (an ES module's source is read on the pool): with every chunk
 * queued at once, their code was in only once the whole snapshot was.
 */
class ReadBuffers {
  private readonly free: Uint8Array[];
  private readonly waiting: ((buffer: Uint8Array) => void)[] = [];

  constructor(count: number, bytes: number) {
    this.free = Array.from({ length: count }, () => new Uint8Array(bytes));
  }

  acquire(): Promise<Uint8Array> {
    const buffer = this.free.pop();
    return buffer ? Promise.resolve(buffer) : new Promise((resolve) => this.waiting.push(resolve));
  }

  release(buffer: Uint8Array): void {
    const next = this.waiting.shift();
    if (next) next(buffer);
    else this.free.push(buffer);
  }
}

function readAt(fd: number, target: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, target, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}

/** Reads length bytes at position into target[offset…]; resolves with how many there were (fewer in a file cut while read). */
async function readInto(fd: number, target: Uint8Array, offset: number, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const n = await readAt(fd, target, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** Where a chunk's read stopped, and the CRC-32 of the payload up to there. */
interface ChunkRead {
  reached: number;
  crc: number;
}

/**
 * Reads payload[start, end) into target and, through one of `buffers`, chains its CRC-32 onto the
 * previous chunk's (`before`): see ReadBuffers. Chunks take buffers in the order they were asked
 * for, so the chunk `before` waits on already holds one (or is done): no chunk waits for a buffer
 * held by a later one.
 */
async function readChunk(fd: number, target: Uint8Array, start: number, end: number, buffers: ReadBuffers, before: Promise<ChunkRead>): Promise<ChunkRead> {
  const buffer = await buffers.acquire();
  try {
    const position = SECTION_HEADER_BYTES + start;
    const checked = await readInto(fd, buffer, 0, end - start, position);
    const copied = await readInto(fd, target, start, checked, position);
    const previous = await before;
    // A chunk after a short one is past the end of what was read: the check fails on the size.
    if (previous.reached < start) return previous;
    return { reached: start + copied, crc: crc32(buffer.subarray(0, copied), previous.crc) };
  } finally {
    buffers.release(buffer);
  }
}

/**
 * A section's payload read in chunks on libuv's threadpool (READS_IN_FLIGHT at a time, shared by
 * every section), its CRC-32 computed over each chunk in order, then checked. The kernel's copies
 * run on the pool's threads, on every core, while this thread computes the CRC of what has
 * arrived. Measured on the full dataset (176 MiB, 2-core VM), a server's spawn → first answer:
 * 2.66–2.87 s one section after another, 2.27–2.35 s so (2.34–2.50 s with the reads at once but
 * every CRC after them), before the reads went through ReadBuffers.
 */
async function readAndCheck(section: OpenSection, buffers: ReadBuffers, chunkBytes: number): Promise<SharedArrayBuffer> {
  const target = new Uint8Array(section.buffer);
  const chunks: Promise<ChunkRead>[] = [];
  let last: Promise<ChunkRead> = Promise.resolve({ reached: 0, crc: 0 });
  for (let start = 0; start < target.byteLength; start += chunkBytes) {
    last = readChunk(section.fd, target, start, Math.min(start + chunkBytes, target.byteLength), buffers, last);
    chunks.push(last);
  }
  try {
    const { reached, crc } = await last;
    checkPayload(section.header, target.subarray(0, reached), section.file, crc);
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

/** One section read and checked, its CRC-32 computed through `buffer` (see ReadBuffers). */
function loadSection(dir: string, name: string, entry: Manifest['sections'][string], buffer: Uint8Array): SharedArrayBuffer {
  const section = openSection(dir, name, entry);
  try {
    const payload = new Uint8Array(section.buffer);
    let done = 0;
    let crc = 0;
    while (done < payload.byteLength) {
      const length = Math.min(buffer.byteLength, payload.byteLength - done);
      const position = SECTION_HEADER_BYTES + done;
      const checked = readFully(section.fd, buffer.subarray(0, length), position);
      const copied = readFully(section.fd, payload.subarray(done, done + checked), position);
      crc = crc32(buffer.subarray(0, copied), crc);
      done += copied;
      if (copied < length) break;
    }
    checkPayload(section.header, payload.subarray(0, done), section.file, crc);
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
  const buffer = new Uint8Array(READ_CHUNK_BYTES);
  for (const [name, entry] of Object.entries(manifest.sections)) if (!only || only(name)) sections[name] = loadSection(dir, name, entry, buffer);
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
    const buffers = new ReadBuffers(READS_IN_FLIGHT, chunkBytes);
    const settled = await Promise.allSettled(opened.map(([, section]) => readAndCheck(section, buffers, chunkBytes)));
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
