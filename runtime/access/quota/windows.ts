// Calendar quota windows in UTC: a day runs from 00:00 UTC, a month from the 1st at 00:00 UTC.
// Windows are identified by small integers so they fit an Int32Array slot:
//   dayId   = whole days since 1970-01-01 (UTC days have exactly 86,400 s: Date ignores leap seconds)
//   monthId = (year - 1970) * 12 + month index (0 = January)
const DAY_MS = 86_400_000;

export function dayIdOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function monthIdOf(ms: number): number {
  const date = new Date(ms);
  return (date.getUTCFullYear() - 1970) * 12 + date.getUTCMonth();
}

export function dayStartMs(dayId: number): number {
  return dayId * DAY_MS;
}

export function monthStartMs(monthId: number): number {
  // Date.UTC normalises month overflow (month 12 → January of the next year).
  return Date.UTC(1970 + Math.floor(monthId / 12), ((monthId % 12) + 12) % 12, 1);
}

/** Length of the calendar month in seconds (28, 29, 30 or 31 days). */
export function monthLengthSeconds(monthId: number): number {
  return (monthStartMs(monthId + 1) - monthStartMs(monthId)) / 1000;
}

/** `2026-11-22`: the day part of Redis keys and of the state file. */
export function dayLabel(dayId: number): string {
  return new Date(dayStartMs(dayId)).toISOString().slice(0, 10);
}

/** `2026-11`. */
export function monthLabel(monthId: number): string {
  return new Date(monthStartMs(monthId)).toISOString().slice(0, 7);
}

/** Inverse of dayLabel; NaN when the text is not a YYYY-MM-DD date. */
export function dayIdFromLabel(label: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(label)) return Number.NaN;
  const ms = Date.parse(`${label}T00:00:00Z`);
  return Number.isNaN(ms) || dayLabel(dayIdOf(ms)) !== label ? Number.NaN : dayIdOf(ms);
}

/** Inverse of monthLabel; NaN when the text is not a YYYY-MM month. */
export function monthIdFromLabel(label: string): number {
  if (!/^\d{4}-\d{2}$/.test(label)) return Number.NaN;
  const ms = Date.parse(`${label}-01T00:00:00Z`);
  return Number.isNaN(ms) ? Number.NaN : monthIdOf(ms);
}

/** The two windows a request at `ms` falls into, with their ends. */
export interface QuotaWindows {
  dayId: number;
  monthId: number;
  /** Start of the next day / month in ms since the epoch. */
  dayResetMs: number;
  monthResetMs: number;
}

// Requests of one day share one windows object: computing it (a Date per call) costs more than
// the counting itself. Callers treat it as read-only.
let cached: QuotaWindows & { dayStartMs: number } = { dayId: 0, monthId: 0, dayResetMs: 0, monthResetMs: 0, dayStartMs: 1 };

export function windowsAt(ms: number): QuotaWindows {
  if (ms >= cached.dayStartMs && ms < cached.dayResetMs) return cached;
  const dayId = dayIdOf(ms);
  const monthId = monthIdOf(ms);
  cached = { dayId, monthId, dayResetMs: dayStartMs(dayId + 1), monthResetMs: monthStartMs(monthId + 1), dayStartMs: dayStartMs(dayId) };
  return cached;
}

/** Whole seconds from `ms` until `resetMs`, rounded up and at least 1 (Retry-After, RateLimit t). */
export function secondsUntil(ms: number, resetMs: number): number {
  return Math.max(1, Math.ceil((resetMs - ms) / 1000));
}
