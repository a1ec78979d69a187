// `geoapi verify`: recomputes every section file's SHA-256 and compares it with the manifest
// (the loader checks only CRC-32 of payloads, which catches damage but not a deliberate edit).
// Streams each file, so a snapshot larger than memory can be checked too.
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { join } from 'node:path';
import { readManifest } from './load.js';
import { missingSections } from '../format/required-sections.js';

export interface SectionVerdict {
  name: string;
  file: string;
  ok: boolean;
  /** What is wrong (absent when ok). */
  problem?: string;
}

export interface VerifyReport {
  dir: string;
  sections: SectionVerdict[];
  /** Sections the server needs that the manifest does not list. */
  missing: string[];
  ok: boolean;
}

function sha256Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

async function verifySection(dir: string, name: string, entry: { file?: unknown; bytes?: unknown; sha256?: unknown }): Promise<SectionVerdict> {
  const fileName = typeof entry?.file === 'string' ? entry.file : '';
  const verdict = (problem?: string): SectionVerdict => (problem ? { name, file: fileName, ok: false, problem } : { name, file: fileName, ok: true });
  if (!/^[\w.-]+$/.test(fileName) || fileName.startsWith('.')) return verdict(`manifest entry: expected a plain file name, found ${JSON.stringify(entry?.file)}`);
  if (typeof entry.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.sha256)) return verdict(`manifest entry: expected a SHA-256 (64 hex digits), found ${JSON.stringify(entry.sha256)}`);
  const file = join(dir, fileName);
  let size: number;
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return verdict(`${file} is a directory, expected the section file`);
    size = stat.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return verdict(code === 'ENOENT' ? `${file} is missing` : `cannot read ${file}: ${code ?? String(error)}`);
  }
  if (size !== entry.bytes) return verdict(`size mismatch: expected ${String(entry.bytes)} bytes (manifest), found ${size}`);
  const found = await sha256Of(file);
  return found === entry.sha256 ? verdict() : verdict(`SHA-256 mismatch: expected ${entry.sha256} (manifest), found ${found}`);
}

/** Checks every section listed in the manifest; throws SnapshotFormatError only for an unreadable manifest. */
export async function verifySnapshot(dir: string): Promise<VerifyReport> {
  const manifest = readManifest(dir);
  const sections: SectionVerdict[] = [];
  for (const name of Object.keys(manifest.sections).sort()) sections.push(await verifySection(dir, name, manifest.sections[name]!));
  const missing = missingSections(Object.keys(manifest.sections));
  return { dir, sections, missing, ok: missing.length === 0 && sections.every((s) => s.ok) };
}
