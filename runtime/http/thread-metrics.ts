// What a worker thread holds, as gauges added to its counters on each scrape (summed over the
// threads by the main thread, metrics-server.ts): its response cache (bytes held, budget,
// entries, evictions) and its V8 heap. prom-client's default `geoapi_nodejs_heap_*` metrics
// describe the main thread's heap only; every worker has a heap of its own. Per thread (label
// `thread`, not summed): its requests and its busy time, to show how the kernel spread connections
// over the threads (SO_REUSEPORT hashes each new connection to one; README, Health, metrics and logs).
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { MetricJson } from './observe.js';
import type { ResponseCacheStats } from './response-cache.js';

function gauge(name: string, help: string, value: number): MetricJson {
  return { name, help, type: 'gauge', aggregator: 'sum', values: [{ value, labels: {} }] };
}

function perThread(name: string, help: string, thread: number, value: number): MetricJson {
  return { name, help, type: 'counter', aggregator: 'sum', values: [{ value, labels: { thread } }] };
}

/**
 * `thread`: the worker's index, the requests it answered (null when it keeps no request counters)
 * and the connections it closed to even out the threads' shares (rebalance.ts).
 */
export function threadMetrics(cache: ResponseCacheStats, thread: { index: number; answered: number | null; rebalanced: number }): MetricJson[] {
  const heap = getHeapStatistics();
  // The thread's event loop: time spent running callbacks (requests, timers) rather than waiting
  // for the kernel, since the thread started.
  const busySeconds = performance.eventLoopUtilization().active / 1000;
  return [
    ...(thread.answered === null ? [] : [perThread('geoapi_thread_requests_total', 'Requests answered, by request thread.', thread.index, thread.answered)]),
    perThread('geoapi_thread_rebalanced_connections_total', 'Keep-alive connections a request thread closed after an answer because it answered more than its share of the requests (the client reconnects; --rebalance-connections).', thread.index, thread.rebalanced),
    perThread('geoapi_thread_busy_seconds_total', 'Time each request thread spent running (its event loop not waiting for the kernel) since it started.', thread.index, busySeconds),
    gauge('geoapi_response_cache_bytes', 'Bytes held by the response caches (bodies, compressed variants, keys), all threads.', cache.bytes),
    gauge('geoapi_response_cache_budget_bytes', 'Byte budget of the response caches, all threads together (--response-cache-mb).', cache.budgetBytes),
    gauge('geoapi_response_cache_entries', 'Answers held by the response caches, all threads.', cache.entries),
    { name: 'geoapi_response_cache_evictions_total', help: 'Answers dropped from the response caches to stay within the budget (since the snapshot was loaded).', type: 'counter', aggregator: 'sum', values: [{ value: cache.evictions, labels: {} }] },
    gauge('geoapi_worker_heap_used_bytes', 'V8 heap in use, summed over the worker threads (the snapshot is outside it).', heap.used_heap_size),
    gauge('geoapi_worker_heap_total_bytes', 'V8 heap reserved, summed over the worker threads.', heap.total_heap_size),
    gauge('geoapi_worker_external_bytes', 'Memory outside the V8 heaps held by the worker threads\' objects (response cache rings, search scratch, response bodies; not the shared snapshot or derived structures).', heap.external_memory),
  ];
}
