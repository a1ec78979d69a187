// The build summary printed at the end of `geoapi build`: counts, warnings (grouped, with the
// first examples), section sizes, total size and time.
import { ENTITY_NAMES } from '../runtime/format/model.js';
import type { BuildResult } from './build.js';
import type { DiagnosticGroup } from './diagnostics.js';

const EXAMPLES_SHOWN = 3;

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function formatWarnings(groups: DiagnosticGroup[], indent = '  '): string[] {
  const lines: string[] = [];
  for (const g of groups) {
    lines.push(`${indent}${g.kind}: ${formatCount(g.count)}`);
    for (const example of g.examples.slice(0, EXAMPLES_SHOWN)) lines.push(`${indent}  ${example}`);
    if (g.count > EXAMPLES_SHOWN && g.examples.length >= EXAMPLES_SHOWN) lines.push(`${indent}  …`);
  }
  return lines;
}

export function formatSummary(result: BuildResult): string {
  const { manifest, diagnostics } = result;
  const lines: string[] = [];
  lines.push(`geoapi build: snapshot written to ${result.outDir}`);
  lines.push(`  source       ${result.sourceRoot} (${result.layout} layout, ${manifest.sourceRelease})`);
  lines.push(`  records      ${ENTITY_NAMES.map((e) => `${e} ${formatCount(manifest.recordCounts[e])}`).join(' · ')}`);
  const warnings = diagnostics.warnings;
  lines.push(`  warnings     ${warnings.length === 0 ? 'none' : formatCount(diagnostics.warningCount)}`);
  lines.push(...formatWarnings(warnings, '    '));
  lines.push('  sections');
  const sections = Object.entries(manifest.sections);
  const width = Math.max(...sections.map(([name]) => name.length));
  let total = 0;
  for (const [name, entry] of sections) {
    total += entry.bytes;
    lines.push(`    ${name.padEnd(width)}  ${formatBytes(entry.bytes).padStart(10)}`);
  }
  lines.push(`  total        ${formatBytes(total)} in ${sections.length + 1} files`);
  lines.push(`  dataVersion  ${manifest.dataVersion} (built at ${manifest.builtAt})`);
  lines.push(`  time         ${(result.totalMs / 1000).toFixed(1)} s`);
  return lines.join('\n');
}
