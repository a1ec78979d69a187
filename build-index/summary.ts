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
  lines.push(...formatEnrichment(result));
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
  const enrichMs = result.timings.enrich;
  lines.push(`  time         ${(result.totalMs / 1000).toFixed(1)} s${enrichMs === undefined ? '' : ` (enrichment ${(enrichMs / 1000).toFixed(1)} s)`}`);
  return lines.join('\n');
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;
}

/** The enrichment line and the match rate per country (`AD 5/7 71%`), several per line. */
export function formatEnrichment(result: Pick<BuildResult, 'enrichment' | 'enrichmentSkipped'>): string[] {
  const e = result.enrichment;
  if (!e) return [`  enrichment   ${result.enrichmentSkipped ?? 'none'}`];
  const lines = [
    `  enrichment   GeoNames populations (${e.source}, ${formatCount(e.places)} places; same country and name within ${e.radiusKm} km)`,
    `    matched ${formatCount(e.matched)} of ${formatCount(e.cities)} cities (${percent(e.matched, e.cities)}); ` +
      `population added for ${formatCount(e.filledPopulations)}; ambiguous ${formatCount(e.ambiguous)}, lost to a nearer namesake ${formatCount(e.contested)}`,
    '    match rate per country:',
  ];
  const cells = e.byCountry.map((c) => `${c.country} ${c.matched}/${c.cities} ${c.cities === 0 ? '–' : `${Math.round((100 * c.matched) / c.cities)}%`}`);
  const width = Math.max(...cells.map((c) => c.length), 0) + 2;
  const perLine = Math.max(1, Math.floor(96 / width));
  for (let i = 0; i < cells.length; i += perLine) lines.push(`      ${cells.slice(i, i + perLine).map((c) => c.padEnd(width)).join('').trimEnd()}`);
  return lines;
}
