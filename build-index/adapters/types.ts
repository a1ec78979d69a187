// A source adapter reads one dataset layout and hands its parsed rows, file by file, to a sink
// that normalises them. Adding a layout = one module implementing SourceAdapter + one line in
// adapters/index.ts.
import type { EntityName } from '../../runtime/format/model.js';
import type { Diagnostics } from '../diagnostics.js';

export type RowSink = (entity: EntityName, file: string, rows: unknown[]) => void;

export interface SourceReadContext {
  sink: RowSink;
  diagnostics: Diagnostics;
  /** Called with a short description of the step in progress (for a TTY progress line). */
  progress(step: string, done: number, total: number): void;
}

export interface SourceReadResult {
  /** e.g. `@countrystatecity/countries@1.0.9` or `csc-contributions`. */
  sourceRelease: string;
  /** Newest mtime among the files read (ms): the reproducible default for `builtAt`. */
  newestMtimeMs: number;
  filesRead: number;
}

export interface SourceAdapter {
  /** Short layout name for messages, e.g. `contributions`. */
  readonly name: string;
  /** The layout's root directory if `dir` (or a known subdirectory of it) holds this layout, else null. */
  detect(dir: string): string | null;
  read(root: string, context: SourceReadContext): SourceReadResult;
}
