// Compares two recordings line by line: same request (path as sent, request headers), same
// status, same kept headers, same decoded body bytes. Compressed bytes on the wire are counted
// apart (a compressor setting may change them without changing an answer).
import { readFileSync } from 'node:fs';
import type { Answer, RecordingHeader, Skipped } from './record.js';

export interface CompareOptions {
  /** Compare with the data version and cursor signatures factored out (a changed snapshot layout). */
  ignoreDataVersion: boolean;
  /** Header names (lower case) not compared. */
  ignoreHeaders: string[];
  /** How many differing requests to print in full. */
  show: number;
}

export interface Comparison {
  requests: number;
  differing: number;
  wireDiffering: number;
  report: string[];
}

function readRecording(file: string): { header: RecordingHeader; lines: Array<Answer | Skipped> } {
  const [first, ...rest] = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
  const header = JSON.parse(first ?? '{}') as RecordingHeader;
  if (header.recording !== 'geoapi-answers') throw new Error(`${file}: expected a geoapi-answers recording, found ${JSON.stringify(first?.slice(0, 80))}`);
  return { header, lines: rest.map((line) => JSON.parse(line) as Answer | Skipped) };
}

const isSkipped = (line: Answer | Skipped): line is Skipped => 'skipped' in line;

function view(line: Answer | Skipped, options: CompareOptions): Record<string, unknown> {
  if (isSkipped(line)) return { skipped: line.skipped };
  const headers = { ...(options.ignoreDataVersion ? line.normalised.headers : line.headers) };
  for (const name of options.ignoreHeaders) delete headers[name];
  return {
    request: options.ignoreDataVersion ? line.normalised.path : line.path,
    requestHeaders: line.requestHeaders,
    status: line.status,
    headers,
    body: options.ignoreDataVersion ? line.normalised.bodySha256 : line.bodySha256,
  };
}

function differences(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = JSON.stringify(a[key]);
    const y = JSON.stringify(b[key]);
    if (x === y) continue;
    if (key === 'headers') {
      const ha = (a[key] ?? {}) as Record<string, string>;
      const hb = (b[key] ?? {}) as Record<string, string>;
      for (const name of new Set([...Object.keys(ha), ...Object.keys(hb)])) {
        if (ha[name] !== hb[name]) out.push(`header ${name}: ${JSON.stringify(ha[name])} → ${JSON.stringify(hb[name])}`);
      }
    } else out.push(`${key}: ${x} → ${y}`);
  }
  return out;
}

export function compare(fileA: string, fileB: string, options: CompareOptions): Comparison {
  const a = readRecording(fileA);
  const b = readRecording(fileB);
  const report: string[] = [
    `A: ${fileA} (commit ${a.header.commit.slice(0, 10)}, dataVersion ${a.header.dataVersion}, seed ${a.header.seed}, ${a.lines.length} lines)`,
    `B: ${fileB} (commit ${b.header.commit.slice(0, 10)}, dataVersion ${b.header.dataVersion}, seed ${b.header.seed}, ${b.lines.length} lines)`,
  ];
  if (a.header.seed !== b.header.seed || a.header.count !== b.header.count) report.push(`warning: different request lists (seed ${a.header.seed}/${b.header.seed}, count ${a.header.count}/${b.header.count})`);
  if (a.header.dataVersion !== b.header.dataVersion && !options.ignoreDataVersion) report.push('note: the data versions differ; --ignore-data-version compares with it factored out');
  const total = Math.max(a.lines.length, b.lines.length);
  let requests = 0;
  let differing = 0;
  let wireDiffering = 0;
  const byKind = new Map<string, number>();
  for (let i = 0; i < total; i++) {
    const la = a.lines[i];
    const lb = b.lines[i];
    if (la && !isSkipped(la)) requests++;
    const kind = (la ?? lb)!.kind;
    const diff = la && lb ? differences(view(la, options), view(lb, options)) : [la ? 'missing in B' : 'missing in A'];
    if (diff.length > 0) {
      differing++;
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      if (differing <= options.show) {
        const shown = la && !isSkipped(la) ? la : lb;
        report.push(`#${i} ${kind} ${shown && !isSkipped(shown) ? `${shown.caller} GET ${shown.path}` : ''}`);
        for (const line of diff) report.push(`    ${line}`);
        if (la && lb && !isSkipped(la) && !isSkipped(lb) && la.bodySha256 !== lb.bodySha256) {
          report.push(`    A body: ${la.bodyHead.slice(0, 200)}`);
          report.push(`    B body: ${lb.bodyHead.slice(0, 200)}`);
        }
      }
    } else if (la && lb && !isSkipped(la) && !isSkipped(lb) && la.wireSha256 !== lb.wireSha256) wireDiffering++;
  }
  if (byKind.size > 0) report.push(`differing by kind: ${[...byKind].sort((x, y) => y[1] - x[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  report.push(`${requests} requests compared, ${differing} differed${wireDiffering > 0 ? ` (${wireDiffering} more with the same decoded answer differed only in compressed bytes)` : ''}`);
  return { requests, differing, wireDiffering, report };
}
