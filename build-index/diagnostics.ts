// Collects what validation finds: warnings (the build goes on) and fatal problems (the build
// stops after the phase that found them, so one run reports all of them). Grouped by kind so a
// summary can print counts and the first few examples instead of 10,000 lines.

/** A problem that stops the build; its message is shown to the user as is (no stack trace). */
export class BuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuildError';
  }
}

export interface DiagnosticGroup {
  kind: string;
  count: number;
  examples: string[];
}

const EXAMPLES_KEPT = 5;

export class Diagnostics {
  private readonly warningGroups = new Map<string, DiagnosticGroup>();
  private readonly fatalGroups = new Map<string, DiagnosticGroup>();

  warn(kind: string, message: string, count = 1): void {
    add(this.warningGroups, kind, message, count);
  }

  fatal(kind: string, message: string): void {
    add(this.fatalGroups, kind, message, 1);
  }

  get warnings(): DiagnosticGroup[] {
    return [...this.warningGroups.values()];
  }

  get fatals(): DiagnosticGroup[] {
    return [...this.fatalGroups.values()];
  }

  get warningCount(): number {
    let n = 0;
    for (const g of this.warningGroups.values()) n += g.count;
    return n;
  }

  /** Throws a BuildError listing every fatal problem found so far. */
  throwIfFatal(phase: string): void {
    if (this.fatalGroups.size === 0) return;
    const lines = [`build failed while ${phase}:`];
    for (const g of this.fatalGroups.values()) {
      lines.push(`  ${g.kind} (${g.count}):`);
      for (const example of g.examples) lines.push(`    ${example}`);
      if (g.count > g.examples.length) lines.push(`    … and ${g.count - g.examples.length} more`);
    }
    throw new BuildError(lines.join('\n'));
  }
}

function add(groups: Map<string, DiagnosticGroup>, kind: string, message: string, count: number): void {
  let group = groups.get(kind);
  if (!group) groups.set(kind, (group = { kind, count: 0, examples: [] }));
  group.count += count;
  if (group.examples.length < EXAMPLES_KEPT) group.examples.push(message);
}
