// Shared file helpers for adapters: read a JSON file of a given shape, track newest mtime.
import { statSync } from 'node:fs';
import { readJsonFile } from '../json-file.js';
import type { Diagnostics } from '../diagnostics.js';

export class SourceFiles {
  newestMtimeMs = 0;
  filesRead = 0;

  constructor(private readonly diagnostics: Diagnostics) {}

  /** A file holding a JSON array of records; undefined (after a fatal diagnostic) otherwise. */
  readArray(path: string, label: string, noun: string): unknown[] | undefined {
    const value = this.read(path, label);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.diagnostics.fatal('unexpected file shape', `${label}: expected a JSON array of ${noun} records, found ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  /** A file holding one JSON object. */
  readObject(path: string, label: string, noun: string): Record<string, unknown> | undefined {
    const value = this.read(path, label);
    if (value === undefined) return undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.diagnostics.fatal('unexpected file shape', `${label}: expected a JSON object (${noun}), found ${describe(value)}`);
      return undefined;
    }
    return value as Record<string, unknown>;
  }

  private read(path: string, label: string): unknown {
    this.filesRead++;
    try {
      this.newestMtimeMs = Math.max(this.newestMtimeMs, Math.floor(statSync(path).mtimeMs / 1000) * 1000);
    } catch {
      // readJsonFile reports the unreadable file.
    }
    return readJsonFile(path, label, this.diagnostics);
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
