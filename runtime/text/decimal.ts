// The one decimal-number reader for coordinates, shared by validation (build-index/validate.ts)
// and the geo sections (build-index/sections/geo.ts), so a coordinate that validates is a
// coordinate that is indexed. The dataset writes a few values in exponent notation (`0E-8`,
// Python Decimal's text for 0 at 8 decimal places); they are served as plain decimal text.

const DECIMAL_RE = /^\s*([-+]?)(\d+)?(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*$/;

/** A decimal string (plain or exponent notation) as a number; NaN when absent or not decimal. */
export function parseDecimal(text: string | null): number {
  if (text === null) return NaN;
  const m = DECIMAL_RE.exec(text);
  if (!m || (m[2] === undefined && !m[3])) return NaN;
  return Number(text);
}

/**
 * Plain decimal text of a decimal string: exponent notation is expanded keeping its scale
 * (`0E-8` → `0.00000000`, `1.5E+2` → `150`, `-2.5E-3` → `-0.0025`); plain text is returned
 * unchanged (trimmed). Null when `text` is not a decimal.
 */
export function plainDecimalText(text: string): string | null {
  const m = DECIMAL_RE.exec(text);
  if (!m || (m[2] === undefined && !m[3])) return null;
  if (m[4] === undefined) return text.trim();
  const sign = m[1] === '-' ? '-' : '';
  const whole = m[2] ?? '0';
  const fraction = m[3] ?? '';
  const exponent = Number(m[4]);
  const digits = whole + fraction;
  const point = whole.length + exponent; // position of the decimal point within `digits`
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  out = out.replace(/^0+(?=\d)/, '');
  return sign + out;
}
