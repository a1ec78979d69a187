// Checks that the baselines answer like geoapi: a sample of each operation's requests is sent to
// every system and the bodies compared with geoapi's, field by field (Full tier). Only opaque
// postcode cursors may differ (each server signs its own); their presence must agree.

export interface Comparison {
  /** Same JSON, value for value. */
  same: boolean;
  /** Same keys in the same order at every level, and the same array lengths. */
  sameShape: boolean;
  /** The first difference, as a JSON path and the two values. */
  difference: string | null;
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

function firstDifference(a: unknown, b: unknown, path: string, shapeOnly: boolean): string | null {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return `${path}: ${show(a)} vs ${show(b)}`;
    if (a.length !== b.length) return `${path}: ${a.length} items vs ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const diff = firstDifference(a[i], b[i], `${path}[${i}]`, shapeOnly);
      if (diff) return diff;
    }
    return null;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join(',') !== kb.join(',')) return `${path}: keys ${ka.join(',')} vs ${kb.join(',')}`;
    for (const key of ka) {
      const va = (a as Record<string, unknown>)[key];
      const vb = (b as Record<string, unknown>)[key];
      if (key === 'next_cursor') {
        if ((va === null) !== (vb === null)) return `${path}.${key}: ${show(va)} vs ${show(vb)}`;
        continue;
      }
      const diff = firstDifference(va, vb, `${path}.${key}`, shapeOnly);
      if (diff) return diff;
    }
    return null;
  }
  if (shapeOnly) return null;
  return Object.is(a, b) ? null : `${path}: ${show(a)} vs ${show(b)}`;
}

export function compareBodies(expected: unknown, found: unknown): Comparison {
  const difference = firstDifference(expected, found, '$', false);
  return { same: difference === null, sameShape: firstDifference(expected, found, '$', true) === null, difference };
}
