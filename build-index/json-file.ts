// Reads a JSON source file; malformed JSON becomes a fatal diagnostic naming file, line and column.
import { readFileSync } from 'node:fs';
import type { Diagnostics } from './diagnostics.js';

/** Parsed value, or undefined after recording a fatal diagnostic. `label` names the file in messages. */
export function readJsonFile(path: string, label: string, diagnostics: Diagnostics): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    diagnostics.fatal('unreadable file', `${label}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    return undefined;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (err) {
    diagnostics.fatal('malformed JSON', `${label}: ${describeJsonError(err, text)}`);
    return undefined;
  }
}

/** "malformed JSON at line L, column C: <reason>" from V8's SyntaxError. */
export function describeJsonError(err: unknown, text: string): string {
  const raw = err instanceof Error ? err.message : String(err);
  const match = /at position (\d+)/.exec(raw);
  const reason = raw
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*in JSON at position \d+/, '')
    .replace(/^JSON\.parse: /, '');
  const position = match ? Number(match[1]) : /Unexpected end of JSON input/.test(raw) ? text.length : -1;
  if (position < 0) return `malformed JSON: ${reason}`;
  const { line, column } = lineColumn(text, position);
  return `malformed JSON at line ${line}, column ${column}: ${reason}`;
}

function lineColumn(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: position - lineStart + 1 };
}
