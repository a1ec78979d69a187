// Where the time of a distinct search request goes, in process (issue 16). The distinct
// autocomplete and fuzzy requests the http suite's distinct phase sends (test/support/search-queries.ts
// over the snapshot's city names), each layer timed over all of them in the same order, the layers
// alternated round by round (the first rounds warm up and are not kept):
//   engine    the search alone: ranked rows and scores (autocompleteSearch / fuzzySearch with the
//             handler's defaults), what the PostgreSQL query of the search bench returns;
//   handler   the operation: its parameters, the search, the rows' fields written as JSON from
//             their record bytes (projection, labels, scores);
//   pipeline  the worker's request pipeline around the handler (runtime/http/app.ts with a stand-in
//             for uWS, the response cache off as in the distinct phase): key lookup, plan gate,
//             strict query parse, the handler, the ETag, headers, one write call.
// Each layer's share is what it adds to the one before. What uWS and the kernel add (reading the
// request, the socket write) is the http suite's CPU per distinct request of geoapi's busiest
// thread (its request thread, with one worker) less the pipeline's.
// Run back to back, requests find what the one before left in the CPU's caches; in a server the
// kernel, uWS and the other threads run between two requests. So every layer is timed twice: with
// warm caches, and with the caches flushed before each request (a walk writing one word per cache
// line of GEOAPI_BENCH_FLUSH_MIB, 2 MiB: more than a core's L2 on the report's machine, untimed).
// The difference is what memory latency costs a request that starts cold. 2 MiB matches the
// server there: the flushed pipeline plus what perf gives the kernel and uWS per request (~30 µs)
// comes within ~10 % of the http suite's CPU per distinct request (8 MiB overshoots it by 20–35 %).
// Run: `npm run bench -- path` (GEOAPI_BENCH_SNAPSHOT: the snapshot, e.g. the full dataset's;
// GEOAPI_BENCH_DISTINCT: requests per operation, 2000; GEOAPI_BENCH_FLUSH_MIB: the flush, 0 = warm only).
import assert from 'node:assert/strict';
import { parsePolicy, readPolicyText, DEFAULT_POLICY_FILE } from '../runtime/access/policy.js';
import { noQuotaGate } from '../runtime/access/quota-hook.js';
import { autocompleteSearch } from '../runtime/engine/search/autocomplete.js';
import { searchContext } from '../runtime/engine/search/context.js';
import { fuzzySearch } from '../runtime/engine/search/fuzzy.js';
import { RowRanges } from '../runtime/engine/search/row-filter.js';
import { buildApp, workerStateOf } from '../runtime/http/app.js';
import { RequestObserver } from '../runtime/http/observe.js';
import { StandInResponse, warmUpKeys } from '../runtime/http/pipeline-warm-up.js';
import type { UwsHttpRequest, UwsHttpResponse } from '../runtime/http/uws.js';
import { allOperations, preparationStepsFor } from '../runtime/routes/registry.js';
import { AUTOCOMPLETE_LIMIT_DEFAULT } from '../runtime/routes/search/autocomplete.js';
import { FUZZY_LIMIT_DEFAULT } from '../runtime/routes/search/fuzzy.js';
import { thresholdParam } from '../runtime/routes/search/params.js';
import type { Operation } from '../runtime/routes/types.js';
import { loadStore } from '../runtime/store/index.js';
import type { Store } from '../runtime/store/types.js';
import { matchKey } from '../runtime/text/normalise.js';
import { distinctSearchQueries, median, printTable } from './http.bench.js';
import { benchContext } from './request-context.js';
import { standInUws } from '../test/support/stand-in-uws.js';
import { benchSnapshotDir } from './wrk.js';

const WARMUP_ROUNDS = 2;
const TIMED_ROUNDS = 7;

type Layer = 'engine' | 'handler' | 'pipeline';
const LAYERS: readonly Layer[] = ['engine', 'handler', 'pipeline'];
/** Whether the CPU's caches are flushed before each request (the file's header). */
type Caches = 'warm' | 'flushed';
const CACHE_LINE_BYTES = 64;
const DEFAULT_FLUSH_MIB = 2;

/** Evicts what the caches hold by writing one word per line of a buffer larger than them. */
function cacheFlusher(mebibytes: number): () => void {
  const words = new Int32Array((mebibytes * 1024 * 1024) / 4);
  const stride = CACHE_LINE_BYTES / 4;
  return () => {
    for (let i = 0; i < words.length; i += stride) words[i] = (words[i]! + 1) | 0;
  };
}

/** A GET as uWS hands it over: the key header, the path, the raw query (no Accept-Encoding, as in the distinct phase). */
function standInRequest(key: string, path: string, query: string): UwsHttpRequest {
  return {
    getHeader: (name) => (name === 'x-geoapi-key' ? key : ''),
    getParameter: () => '',
    getUrl: () => path,
    getMethod: () => 'get',
    getQuery: () => query,
    forEach: (cb) => cb('x-geoapi-key', key),
  };
}

/** The warm-up's stand-in response (status only), keeping a copy of the body when `keep` is set. */
class KeepingResponse extends StandInResponse {
  keep = false;
  body: Buffer | null = null;
  override end(body?: string | Uint8Array): this {
    if (this.keep) this.body = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
    return this;
  }
}

/** The worker's app over `store` with a stand-in for uWS: the GET handler of each route pattern, and a key of the highest plan. */
function pipelineOf(store: Store, operations: readonly Operation[]): { handlers: Map<string, (res: UwsHttpResponse, req: UwsHttpRequest) => void>; key: string } {
  const { uws, handlers } = standInUws();
  const policy = parsePolicy(readPolicyText(DEFAULT_POLICY_FILE), DEFAULT_POLICY_FILE, [], null);
  // The warm-up's own key (of the highest plan), in a key index of its own.
  const { keys, key } = warmUpKeys(policy);
  const observer = new RequestObserver(operations.map((op) => op.name), { metrics: true, accessLog: false, slowMs: 60_000 }, () => undefined);
  buildApp({ uws, operations, store, state: workerStateOf(policy, keys, noQuotaGate, false, true), fixedNowMs: null, threadIndex: 0, responseCacheBytes: 0, observer, log: () => undefined });
  return { handlers, key };
}

interface Operand {
  name: 'autocomplete' | 'fuzzy';
  path: string;
  queries: string[];
  engine(q: string, key: string): void;
}

export interface RequestPathOptions {
  snapshotDir?: string;
  /** Distinct requests per operation (GEOAPI_BENCH_DISTINCT, 2000). */
  perOperation?: number;
  /** Timed rounds after the warm-up rounds (TIMED_ROUNDS). */
  rounds?: number;
  /** MiB walked before each request of the flushed runs (GEOAPI_BENCH_FLUSH_MIB, 2); 0: warm runs only. */
  flushMebibytes?: number;
  print?: (line: string) => void;
}

/** One row of the table: an operation's layer, its mean µs per request and what it adds. */
export interface LayerTime {
  operation: 'autocomplete' | 'fuzzy';
  caches: Caches;
  layer: Layer;
  micros: number;
  addedMicros: number;
}

export async function runRequestPathBench(options: RequestPathOptions = {}): Promise<LayerTime[]> {
  const snapshotDir = options.snapshotDir ?? (await benchSnapshotDir());
  const perOperation = options.perOperation ?? Number(process.env['GEOAPI_BENCH_DISTINCT'] ?? 2000);
  const timedRounds = options.rounds ?? TIMED_ROUNDS;
  const flushMebibytes = options.flushMebibytes ?? Number(process.env['GEOAPI_BENCH_FLUSH_MIB'] ?? DEFAULT_FLUSH_MIB);
  if (!Number.isInteger(flushMebibytes) || flushMebibytes < 0) throw new RangeError(`GEOAPI_BENCH_FLUSH_MIB: expected a whole number of MiB (0: no flushed runs), found ${flushMebibytes}`);
  const flush = flushMebibytes > 0 ? cacheFlusher(flushMebibytes) : null;
  const modes: Caches[] = flush === null ? ['warm'] : ['warm', 'flushed'];
  const print = options.print ?? ((line: string) => console.log(line));
  const store = loadStore(snapshotDir);
  // What the server prepares before it says ready: no layer pays a first use.
  for (const step of preparationStepsFor(store)) step();
  const operations = allOperations();
  const { handlers, key } = pipelineOf(store, operations);
  const cities = searchContext(store).indexes('cities');
  const everyCity = RowRanges.all(store.cities.count);
  const queries = await distinctSearchQueries(store.cities, perOperation);
  const threshold = thresholdParam(benchContext(store, {}));
  const operands: Operand[] = [
    { name: 'autocomplete', path: '/v1/search/autocomplete', queries: queries.autocomplete, engine: (q, key) => autocompleteSearch(cities, { q, key, rows: everyCity, limit: AUTOCOMPLETE_LIMIT_DEFAULT }) },
    { name: 'fuzzy', path: '/v1/search/fuzzy', queries: queries.fuzzy, engine: (q) => fuzzySearch(cities, { q, threshold, rows: everyCity, limit: FUZZY_LIMIT_DEFAULT }) },
  ];
  print(`snapshot ${snapshotDir}: ${store.cities.count.toLocaleString('en-US')} cities; ${operands.map((o) => `${o.queries.length} distinct ${o.name} requests`).join(', ')}; ${timedRounds} timed rounds after ${WARMUP_ROUNDS}, the layers alternated${flush === null ? '' : `; each once with warm caches and once with ${flushMebibytes} MiB walked before each request`}`);

  const rows: string[][] = [];
  const times: LayerTime[] = [];
  for (const operand of operands) {
    const op = operations.find((candidate) => candidate.path === operand.path)!;
    const handler = handlers.get(operand.path)!;
    const trimmed = operand.queries.map((q) => q.trim());
    const keys = trimmed.map(matchKey);
    const contexts = operand.queries.map((q) => benchContext(store, { q }));
    const rawQueries = operand.queries.map((q) => `q=${encodeURIComponent(q)}`);
    const response = new KeepingResponse();
    // Every request answers 200 through the pipeline, with the handler's bytes.
    response.keep = true;
    for (let i = 0; i < operand.queries.length; i++) {
      const reply = op.handle(contexts[i]!);
      const body = Buffer.from('render' in reply ? reply.render() : reply.body);
      handler(response, standInRequest(key, operand.path, rawQueries[i]!));
      assert.equal(response.status, '200 OK', `${operand.path}?${rawQueries[i]}`);
      assert.ok(response.body?.equals(body), `${operand.path}?${rawQueries[i]}: the handler's body through the pipeline`);
    }
    response.keep = false;
    const answer: Record<Layer, (i: number) => void> = {
      engine: (i) => operand.engine(trimmed[i]!, keys[i]!),
      handler: (i) => {
        const reply = op.handle(contexts[i]!);
        if ('render' in reply) reply.render();
      },
      pipeline: (i) => handler(response, standInRequest(key, operand.path, rawQueries[i]!)),
    };
    /** Mean µs per request of one layer over every request; with `flush`, each request after a flush (not timed). */
    const timeLayer = (layer: Layer, caches: Caches): number => {
      const one = answer[layer];
      let total = 0;
      for (let i = 0; i < operand.queries.length; i++) {
        if (caches === 'flushed') flush!();
        const started = performance.now();
        one(i);
        total += performance.now() - started;
      }
      return (total * 1000) / operand.queries.length;
    };
    for (const caches of modes) {
      const micros: Record<Layer, number[]> = { engine: [], handler: [], pipeline: [] };
      for (let round = 0; round < WARMUP_ROUNDS + timedRounds; round++) {
        // The order rotates so that no layer always runs right after the same one.
        for (let j = 0; j < LAYERS.length; j++) {
          const layer = LAYERS[(round + j) % LAYERS.length]!;
          const us = timeLayer(layer, caches);
          if (round >= WARMUP_ROUNDS) micros[layer].push(us);
        }
      }
      // What a layer adds: the median of its difference with the layer below within each round
      // (the machine's pace drifts between rounds more than within one).
      const added = (layer: Layer, below: Layer): number => median(micros[layer].map((us, round) => us - micros[below][round]!));
      const engine = median(micros.engine);
      const handlerMicros = median(micros.handler);
      const pipeline = median(micros.pipeline);
      const handlerAdds = added('handler', 'engine');
      const pipelineAdds = added('pipeline', 'handler');
      const share = (us: number): string => `${((100 * us) / (engine + handlerAdds + pipelineAdds)).toFixed(0)} %`;
      const spread = (layer: Layer): string => `${Math.min(...micros[layer]).toFixed(1)}–${Math.max(...micros[layer]).toFixed(1)}`;
      times.push(
        { operation: operand.name, caches, layer: 'engine', micros: engine, addedMicros: engine },
        { operation: operand.name, caches, layer: 'handler', micros: handlerMicros, addedMicros: handlerAdds },
        { operation: operand.name, caches, layer: 'pipeline', micros: pipeline, addedMicros: pipelineAdds },
      );
      rows.push(
        [operand.name, caches, 'engine: the search', `${engine.toFixed(1)} (${spread('engine')})`, engine.toFixed(1), share(engine)],
        [operand.name, caches, 'handler: + parameters, fields written as JSON', `${handlerMicros.toFixed(1)} (${spread('handler')})`, handlerAdds.toFixed(1), share(handlerAdds)],
        [operand.name, caches, 'pipeline: + key, gate, query parse, ETag, headers, write', `${pipeline.toFixed(1)} (${spread('pipeline')})`, pipelineAdds.toFixed(1), share(pipelineAdds)],
      );
    }
  }
  print('\nMean µs per distinct request, in process (median of the rounds, their range in brackets); what each layer adds to the one below it (the median of the rounds\' differences), and its share of the three:');
  printTable(['operation', 'caches', 'layer', 'µs per request', 'added µs', 'share'], rows, print);
  if (flush !== null) {
    print('\nWhat a flush before each request adds (flushed − warm, µs per request):');
    printTable(
      ['operation', 'engine', 'handler', 'pipeline'],
      operands.map((operand) => {
        const of = (caches: Caches, layer: Layer): number => times.find((time) => time.operation === operand.name && time.caches === caches && time.layer === layer)!.micros;
        return [operand.name, ...LAYERS.map((layer) => (of('flushed', layer) - of('warm', layer)).toFixed(1))];
      }),
      print,
    );
  }
  print('\nOver HTTP the worker also reads each request and writes its answer (uWS, the kernel): `npm run bench -- http` prints the CPU per distinct request of geoapi\'s busiest thread (its request thread, with one worker); less the pipeline\'s with flushed caches is roughly that part.');
  return times;
}
