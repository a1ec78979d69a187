// Writes a snapshot directory: one file per section (64-byte header + payload) and
// manifest.json, into a temporary sibling directory that is renamed into place only when
// complete. A failed build removes its temporary directory and never touches the old snapshot;
// a killed build leaves its temporary directory behind, removed by the next build.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fchmodSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { MANIFEST_FILE, type Manifest, type SectionEntry } from '../runtime/format/manifest.js';
import { encodeSectionHeader } from '../runtime/format/section.js';
import { sectionFileName } from '../runtime/format/sections.js';
import { BuildError } from './diagnostics.js';

/** Snapshot directories and files are readable by every user regardless of umask (they hold public data). */
export const SNAPSHOT_DIR_MODE = 0o755;
export const SNAPSHOT_FILE_MODE = 0o644;

export type ManifestWithoutSections = Omit<Manifest, 'sections'>;

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.byteLength) written += writeSync(fd, bytes, written, bytes.byteLength - written);
}

function writeSection(dir: string, name: string, payload: Uint8Array): SectionEntry {
  if (!/^[A-Za-z0-9][\w.-]{0,31}$/.test(name)) throw new BuildError(`section name "${name}": expected 1–32 characters of A–Z a–z 0–9 _ . - (it becomes a file name)`);
  const file = sectionFileName(name);
  const header = encodeSectionHeader(name, payload);
  const fd = openSync(join(dir, file), 'w', SNAPSHOT_FILE_MODE);
  try {
    fchmodSync(fd, SNAPSHOT_FILE_MODE);
    writeAll(fd, header);
    writeAll(fd, payload);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const sha256 = createHash('sha256').update(header).update(payload).digest('hex');
  return { file, bytes: header.byteLength + payload.byteLength, sha256 };
}

function checkReplaceable(out: string): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new BuildError(`--out ${out}: expected a snapshot directory, found a file`);
  if (readdirSync(out).length > 0 && !existsSync(join(out, MANIFEST_FILE))) {
    throw new BuildError(`--out ${out}: refusing to replace a non-empty directory that is not a geoapi snapshot (no ${MANIFEST_FILE})`);
  }
}

/** Serialises a manifest with a fixed key order (byte-identical output for identical input). */
export function manifestJson(manifest: Manifest): string {
  return JSON.stringify(manifest, null, 2) + '\n';
}

export function writeSnapshot(outDir: string, sections: Record<string, Uint8Array>, base: ManifestWithoutSections): Manifest {
  const out = resolve(outDir);
  checkReplaceable(out);
  const parent = dirname(out);
  mkdirSync(parent, { recursive: true });
  removeStaleTempDirs(out);
  const temp = mkdtempSync(join(parent, `.${basename(out)}.building-${process.pid}-`));
  try {
    // mkdtemp creates 0700; a snapshot is public data another user (the service account) reads.
    chmodSync(temp, SNAPSHOT_DIR_MODE);
    const entries: Record<string, SectionEntry> = {};
    for (const name of Object.keys(sections).sort()) entries[name] = writeSection(temp, name, sections[name]!);
    const manifest: Manifest = { ...base, sections: entries };
    writeFileSync(join(temp, MANIFEST_FILE), manifestJson(manifest), { mode: SNAPSHOT_FILE_MODE });
    chmodSync(join(temp, MANIFEST_FILE), SNAPSHOT_FILE_MODE);
    swapIntoPlace(temp, out);
    return manifest;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Cleans up after builds that were killed (Ctrl-C during the synchronous build ends the process
 * at once): their temporary directories are removed; a snapshot moved aside just before the kill
 * is moved back when `out` is missing. Directories of builds still running are left alone.
 */
function removeStaleTempDirs(out: string): void {
  const parent = dirname(out);
  const prefix = `.${basename(out)}.`;
  for (const entry of readdirSync(parent).sort()) {
    if (!entry.startsWith(prefix)) continue;
    const match = /^(building|replaced)-(\d+)-/.exec(entry.slice(prefix.length));
    if (!match || processAlive(Number(match[2]))) continue;
    const path = join(parent, entry);
    if (match[1] === 'replaced' && !existsSync(out)) renameSync(path, out);
    else rmSync(path, { recursive: true, force: true });
  }
}

/** Moves `temp` to `out`; an existing `out` is moved aside first and removed after. */
function swapIntoPlace(temp: string, out: string): void {
  if (!existsSync(out)) {
    renameSync(temp, out);
    return;
  }
  const old = join(dirname(out), `.${basename(out)}.replaced-${process.pid}-${Date.now()}`);
  renameSync(out, old);
  try {
    renameSync(temp, out);
  } catch (err) {
    renameSync(old, out);
    throw err;
  }
  rmSync(old, { recursive: true, force: true });
}
