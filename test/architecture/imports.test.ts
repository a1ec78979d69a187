// The folders of runtime/ import one way only (ARCHITECTURE.md, "What each folder may import").
// Every `import … from`, `export … from`, dynamic `import('…')` and module URL
// (`new URL('….js', import.meta.url)`) of runtime/**/*.ts is read with a regex and checked against
// the table below; a test fails naming the file, the import and the rule it breaks.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../support/paths.js';

/**
 * Folder → the folders it may import (besides itself). Targets outside runtime/ are named by
 * their top folder (build-index). A folder not in this table is itself a failure: a new folder
 * says where it sits.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  contract: [],
  text: [],
  format: ['text'],
  indexes: ['format', 'text'],
  store: ['format', 'indexes', 'text'],
  engine: ['store', 'indexes', 'format', 'text', 'contract'],
  render: ['engine', 'store', 'contract', 'format', 'text'],
  access: ['contract', 'text'],
  routes: ['engine', 'render', 'store', 'format', 'text', 'contract', 'access'],
  http: ['routes', 'engine', 'access', 'store', 'contract', 'render'],
  cli: ['contract', 'text', 'format', 'indexes', 'store', 'engine', 'render', 'access', 'routes', 'http', 'build-index'],
};

/**
 * Imports that break the table today, as "from-file → to-file" (paths under runtime/). Other
 * branches of issue 11 remove them; the integrator empties this list once they have landed (an
 * entry that no longer matches an import fails too, so the list cannot go stale).
 */
const KNOWN_VIOLATIONS: readonly string[] = [];

/**
 * Groups of modules importing each other (strongly connected components), sorted, joined by ↔.
 * Same rule as KNOWN_VIOLATIONS: the integrator empties it once the cycle is cut.
 */
const KNOWN_CYCLES: readonly string[] = [];

/** Pairs of folders the issue names as forbidden: the table must never allow them. */
const NAMED_FORBIDDEN: ReadonlyArray<[string, string]> = [
  ['engine', 'routes'],
  ['engine', 'http'],
  ['indexes', 'store'],
  ['indexes', 'engine'],
  ['access', 'routes'],
];

const RUNTIME = join(repoRoot, 'runtime');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

const SPECIFIERS = [
  /\b(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g, // import … from '…', export … from '…' (also multi-line)
  /\bimport\s*['"]([^'"]+)['"]/g, // import '…' (side effects only)
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // import('…')
  /\bnew\s+URL\(\s*['"](\.{1,2}\/[^'"]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/g, // module URLs
];

interface Edge {
  /** Paths relative to runtime/, with / separators, .ts extension. */
  from: string;
  to: string;
  fromFolder: string;
  toFolder: string;
}

/** Every relative import of runtime/**\/*.ts; package imports (node:, kdbush, …) are not ours. */
function runtimeEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(RUNTIME)) {
    // Comments may quote imports (usage examples); only code counts.
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
    const from = relative(RUNTIME, file).split(sep).join('/');
    const seen = new Set<string>();
    for (const pattern of SPECIFIERS) {
      for (const match of text.matchAll(pattern)) {
        const specifier = match[1]!;
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        const fromRuntime = relative(RUNTIME, target).split(sep).join('/');
        const to = fromRuntime.startsWith('../') ? relative(repoRoot, target).split(sep).join('/') : fromRuntime;
        if (seen.has(to)) continue;
        seen.add(to);
        edges.push({ from, to, fromFolder: from.split('/')[0]!, toFolder: fromRuntime.startsWith('../') ? to.split('/')[0]! : to.split('/')[0]! });
      }
    }
  }
  return edges;
}

/** Tarjan's strongly connected components of more than one module: the import cycles. */
function moduleCycles(edges: readonly Edge[]): string[] {
  const graph = new Map<string, string[]>();
  for (const edge of edges) graph.set(edge.from, [...(graph.get(edge.from) ?? []), edge.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort().join(' ↔ '));
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return cycles.sort();
}

const label = (edge: Edge): string => `${edge.from} → ${edge.to}`;

function cycleIn(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

describe('runtime imports follow the folder table', () => {
  const edges = runtimeEdges();

  it('finds the imports it checks (the parser reads this tree)', () => {
    assert.ok(edges.length > 100, `expected the runtime/ tree to have more than 100 relative imports, found ${edges.length}`);
    assert.ok(edges.some((e) => e.from === 'cli/commands.ts' && e.to === 'cli/serve.ts'), 'expected the dynamic import of cli/serve.ts in cli/commands.ts to be found');
  });

  it('places every runtime folder in the table', () => {
    const folders = readdirSync(RUNTIME, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    const missing = folders.filter((folder) => !(folder in ALLOWED));
    assert.deepEqual(missing, [], `runtime folders missing from the table of test/architecture/imports.test.ts (and ARCHITECTURE.md): ${missing.join(', ')}`);
  });

  it('never allows the imports the architecture forbids', () => {
    for (const [from, to] of NAMED_FORBIDDEN) assert.ok(!ALLOWED[from]!.includes(to), `the table must not let ${from} import ${to}`);
  });

  it('keeps the table itself one-way (no cycle among folders)', () => {
    const cycle = cycleIn(new Map(Object.entries(ALLOWED)));
    assert.equal(cycle, null, `the folder table has a cycle: ${cycle?.join(' → ')}`);
  });

  it('has no import against the table beyond the known violations', () => {
    const known = new Set(KNOWN_VIOLATIONS);
    const violations = edges
      .filter((e) => e.fromFolder !== e.toFolder && !(ALLOWED[e.fromFolder] ?? []).includes(e.toFolder))
      .map(label)
      .filter((l) => !known.has(l));
    assert.deepEqual(violations, [], `imports against the folder table (ARCHITECTURE.md):\n  ${violations.join('\n  ')}`);
  });

  it('lists only known violations that still exist (empty the list as they are fixed)', () => {
    const present = new Set(edges.map(label));
    const stale = KNOWN_VIOLATIONS.filter((l) => !present.has(l));
    assert.deepEqual(stale, [], 'KNOWN_VIOLATIONS entries that no longer match an import: remove them');
  });

  it('has no import cycle among modules beyond the known ones', () => {
    const cycles = moduleCycles(edges);
    assert.deepEqual(cycles.filter((c) => !KNOWN_CYCLES.includes(c)), [], 'modules importing each other');
    assert.deepEqual(KNOWN_CYCLES.filter((c) => !cycles.includes(c)), [], 'KNOWN_CYCLES entries that no longer exist: remove them');
  });
});
