// Structured logs: one JSON line per event (pino), `{"level":"warn","time":"…","msg":"…", …}`.
// The main thread owns the sink (stderr, or ServerOptions.log); workers format their lines with
// their own pino instance and post the finished line to the main thread, which writes it as is.
// Events come from two places: the server's own messages (start, reloads, quota, failures) and
// request events (observe.ts: 5xx, slow, and every answer with the access log on).
import pino from 'pino';

export type Level = 'info' | 'warn' | 'error';

/** A pino logger writing each finished line (no trailing newline) to `sink`. */
export function createLogger(sink: (line: string) => void, base: Record<string, unknown> = {}): pino.Logger {
  return pino(
    {
      base,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (line: string) => sink(line.endsWith('\n') ? line.slice(0, -1) : line) },
  );
}

/**
 * The level of one of the server's plain messages. Messages name what happened in words; those
 * that report a failure or a fallback are warnings or errors so that an operator can filter on level.
 */
export function levelOf(message: string): Level {
  if (/^500 |failed|exited unexpectedly|writing the response failed|could not /i.test(message)) return 'error';
  if (/keeping the previous|unavailable|is not set|refused|dropped header|stale lock|already in use/i.test(message)) return 'warn';
  return 'info';
}

/** A `log(message)` function (the form every module is handed) that writes structured events. */
export function messageLogger(logger: pino.Logger): (message: string) => void {
  return (message) => logger[levelOf(message)](message);
}
