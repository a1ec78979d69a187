// geoapi's slow-request log lines (runtime/http/observe.ts), read back by bench:report to name the
// single answers that took the server longest.

/**
 * geoapi logs answers that took it at least this long (`--slow-ms`): the single answers' slowest,
 * named with their exact time. Its clock starts in the request's handler, so queueing under load
 * never counts: what the load runs log is requests that met a collection or lost their core, 96
 * lines in 6 s of the report's mix sent faster than geoapi answers it (full dataset, 2 threads).
 */
export const GEOAPI_SLOW_LOG_MS = 2;

/** The slow-request lines of geoapi's log (`output`) whose X-Request-ID `pathsById` knows, slowest first (at most 3). */
export function loggedSlowAnswers(output: string, pathsById: ReadonlyMap<string, string>): { ms: number; path: string }[] {
  const found: { ms: number; path: string }[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes('"slow request"')) continue;
    let event: { requestId?: unknown; durationMs?: unknown };
    try {
      event = JSON.parse(line.slice(line.indexOf('{'))) as typeof event;
    } catch {
      continue;
    }
    const path = typeof event.requestId === 'string' ? pathsById.get(event.requestId) : undefined;
    if (path !== undefined && typeof event.durationMs === 'number') found.push({ ms: event.durationMs, path });
  }
  return found.sort((a, b) => b.ms - a.ms).slice(0, 3);
}
