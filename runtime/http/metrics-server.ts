// The metrics listener (--metrics-port): Prometheus text exposition at GET /metrics on its own
// port, bound to 127.0.0.1 unless --metrics-host says otherwise, served by the main thread with
// node:http (never on the API port: no key, and nothing an API client should reach).
//
// Per-request counters live in each worker (observe.ts, typed arrays); a scrape asks every worker
// for them (postMessage), adds the main thread's own registry (process memory and CPU from
// prom-client's default metrics, the snapshot's data version and load time) and sums them with
// prom-client's AggregatorRegistry.aggregate — the same merge prom-client uses for cluster workers.
import { createServer, type Server } from 'node:http';
import { AggregatorRegistry, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { MetricJson } from './observe.js';

export interface MetricsSource {
  /** Every worker's counters (prom-client JSON); a worker that does not answer in time is left out. */
  collectWorkers(): Promise<MetricJson[][]>;
  dataVersion: string;
  /** Seconds the snapshot took to load and open. */
  snapshotLoadSeconds: number;
  /** When the snapshot finished loading (ms since epoch). */
  snapshotLoadedAtMs: number;
}

export interface MetricsListener {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** The main thread's registry: default process metrics and the snapshot gauges. */
function mainRegistry(source: MetricsSource): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'geoapi_' });
  new Gauge({ name: 'geoapi_snapshot_info', help: 'The snapshot being served (value 1; data_version label).', labelNames: ['data_version'], registers: [registry], aggregator: 'first' })
    .set({ data_version: source.dataVersion }, 1);
  new Gauge({ name: 'geoapi_snapshot_load_seconds', help: 'Time taken to load and check the snapshot at start.', registers: [registry], aggregator: 'first' }).set(source.snapshotLoadSeconds);
  new Gauge({ name: 'geoapi_snapshot_loaded_timestamp_seconds', help: 'When the snapshot finished loading (Unix time).', registers: [registry], aggregator: 'first' })
    .set(Math.round(source.snapshotLoadedAtMs / 1000));
  return registry;
}

/** The exposition text: this thread's registry plus every worker's counters, summed. */
export async function exposition(registry: Registry, source: MetricsSource): Promise<string> {
  const own = await registry.getMetricsAsJSON();
  const workers = await source.collectWorkers();
  const merged = AggregatorRegistry.aggregate([own, ...workers]);
  return merged.metrics();
}

export function startMetricsListener(host: string, port: number, source: MetricsSource, log: (message: string) => void): Promise<MetricsListener> {
  const registry = mainRegistry(source);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(path === '/metrics' ? 'GET only\n' : 'metrics are at /metrics\n');
      return;
    }
    exposition(registry, source).then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: Error) => {
        log(`metrics: collecting failed: ${error.message}`);
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('collecting metrics failed\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'EADDRINUSE' ? `metrics: port ${port} is already in use on ${host}` : `metrics: cannot listen on ${host}:${port}: ${error.message}`)));
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        port: bound,
        url: `http://${urlHost}:${bound}/metrics`,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}
