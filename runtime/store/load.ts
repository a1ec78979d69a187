// Reads a snapshot directory into memory: manifest.json, then each section's payload straight
// into its own SharedArrayBuffer (one read, no intermediate Buffer), checked against its header
// and the manifest (magic, format version, name, size, CRC-32). Errors name the file and state
// expected vs found. The result is postMessage-able: worker threads share the bytes.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FILE, MANIFEST_FORMAT, type Manifest } from '../format/manifest.js';
import { missingSections } from '../format/required-sections.js';
import { SECTION_HEADER_BYTES, SNAPSHOT_FORMAT_VERSION, SnapshotFormatError, checkPayload, decodeSectionHeader } from '../format/section.js';

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

function loadSection(dir: string, name: string, entry: Manifest['sections'][string]): SharedArrayBuffer {
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
    const header = new Uint8Array(SECTION_HEADER_BYTES);
    readFully(fd, header, 0);
    const decoded = decodeSectionHeader(header, file);
    if (decoded.name !== name) throw new SnapshotFormatError(`${file}: expected section "${name}", found "${decoded.name}"`);
    if (decoded.payloadBytes !== size - SECTION_HEADER_BYTES) {
      throw new SnapshotFormatError(`${file}: truncated section "${name}": expected ${decoded.payloadBytes} payload bytes, found ${size - SECTION_HEADER_BYTES}`);
    }
    const buffer = new SharedArrayBuffer(decoded.payloadBytes);
    const payload = new Uint8Array(buffer);
    const read = readFully(fd, payload, SECTION_HEADER_BYTES);
    checkPayload(decoded, payload.subarray(0, read), file);
    return buffer;
  } finally {
    closeSync(fd);
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
