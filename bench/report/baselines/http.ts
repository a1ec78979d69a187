// The plain Node `http` front both baselines share: route the benchmark's ten operations, parse
// their parameters, JSON.stringify the answer. One process per core through node:cluster (geoapi
// uses every core too); keys are not checked (the load generator sends one anyway).
// A baseline module calls serveBaseline() from its entry point; the parent passes the port.
import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Answer {
  status: number;
  body: unknown;
}

export interface PostcodeListQuery {
  q: string | null;
  stateCode: string | null;
  limit: number;
}

export interface AutocompleteQuery {
  q: string;
  limit: number;
}

export interface FuzzyQuery {
  q: string;
  limit: number;
  threshold: number;
}

export interface NearbyQuery {
  lat: number;
  lng: number;
  radiusKm: number;
  limit: number;
}

type Result = Answer | Promise<Answer>;

/** What a baseline implements: the Full-tier answer of each operation of the workload. */
export interface BaselineHandlers {
  countries(): Result;
  country(ciso: string): Result;
  states(ciso: string): Result;
  stateCities(ciso: string, siso: string): Result;
  postcode(countryCode: string, code: string): Result;
  postcodes(countryCode: string, query: PostcodeListQuery): Result;
  autocomplete(query: AutocompleteQuery): Result;
  fuzzy(query: FuzzyQuery): Result;
  nearby(query: NearbyQuery): Result;
  phoneParse(number: string): Result;
}

export const ok = (body: unknown): Answer => ({ status: 200, body });
export const errorA = (status: number, message: string): Answer => ({ status, body: { error: message } });
export const errorB = (status: number, message: string, details?: object): Answer => ({
  status,
  body: details ? { status: 'error', message, details } : { status: 'error', message },
});

const HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };

function numberParam(params: URLSearchParams, name: string, fallback: number): number {
  const text = params.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new BadRequest(`${name}: expected a number, found ${JSON.stringify(text)}`);
  return value;
}

class BadRequest extends Error {}

function route(handlers: BaselineHandlers, url: URL): Result {
  const path = url.pathname;
  const params = url.searchParams;
  let m: RegExpExecArray | null;
  if (path === '/v1/countries') return handlers.countries();
  if ((m = /^\/v1\/countries\/([^/]+)$/.exec(path))) return handlers.country(decodeURIComponent(m[1]!));
  if ((m = /^\/v1\/countries\/([^/]+)\/states$/.exec(path))) return handlers.states(decodeURIComponent(m[1]!));
  if ((m = /^\/v1\/countries\/([^/]+)\/states\/([^/]+)\/cities$/.exec(path))) {
    return handlers.stateCities(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!));
  }
  if ((m = /^\/v1\/countries\/([^/]+)\/postcodes\/([^/]+)$/.exec(path))) return handlers.postcode(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!));
  if ((m = /^\/v1\/countries\/([^/]+)\/postcodes$/.exec(path))) {
    return handlers.postcodes(decodeURIComponent(m[1]!), {
      q: params.get('q'),
      stateCode: params.get('state_code'),
      limit: numberParam(params, 'limit', 50),
    });
  }
  if (path === '/v1/search/autocomplete') return handlers.autocomplete({ q: (params.get('q') ?? '').trim(), limit: numberParam(params, 'limit', 10) });
  if (path === '/v1/search/fuzzy') {
    return handlers.fuzzy({ q: (params.get('q') ?? '').trim(), limit: numberParam(params, 'limit', 10), threshold: numberParam(params, 'threshold', 0.3) });
  }
  if (path === '/v1/search/nearby') {
    return handlers.nearby({
      lat: numberParam(params, 'lat', NaN),
      lng: numberParam(params, 'lng', NaN),
      radiusKm: numberParam(params, 'radius', 25),
      limit: numberParam(params, 'limit', 20),
    });
  }
  if (path === '/v1/phone/parse') return handlers.phoneParse(params.get('number') ?? '');
  return errorA(404, 'Not found.');
}

function send(res: ServerResponse, answer: Answer): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, { ...HEADERS, 'Content-Length': Buffer.byteLength(body) }).end(body);
}

async function handle(handlers: BaselineHandlers, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    send(res, await route(handlers, new URL(req.url ?? '/', 'http://localhost')));
  } catch (error) {
    if (error instanceof BadRequest) send(res, errorA(400, `Invalid query parameters: ${error.message}`));
    else {
      process.stderr.write(`baseline: ${req.url}: ${error instanceof Error ? error.stack : String(error)}\n`);
      send(res, errorA(500, 'Internal error.'));
    }
  }
}

/**
 * Starts `workers` processes (node:cluster; 1 = this process) that each build their handlers and
 * listen on `port`. Prints `listening <port>` once every worker listens. SIGTERM stops them.
 */
export async function serveBaseline(port: number, workers: number, makeHandlers: () => Promise<BaselineHandlers>): Promise<void> {
  if (workers > 1 && cluster.isPrimary) {
    let ready = 0;
    for (let i = 0; i < workers; i++) {
      const worker = cluster.fork();
      worker.on('message', (message: unknown) => {
        if (message === 'ready' && ++ready === workers) process.stdout.write(`listening ${port}\n`);
      });
    }
    cluster.on('exit', (worker, code, signal) => {
      if (!stopping) {
        process.stderr.write(`baseline worker ${worker.process.pid} exited (${code ?? signal}); stopping\n`);
        process.exit(1);
      }
    });
    let stopping = false;
    process.on('SIGTERM', () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
      setTimeout(() => process.exit(0), 200).unref();
    });
    return;
  }
  const handlers = await makeHandlers();
  const server = createServer((req, res) => void handle(handlers, req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  if (cluster.isWorker) process.send!('ready');
  else process.stdout.write(`listening ${port}\n`);
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

/** `node <baseline>.js <dataset dir> <port> <workers> [extra]`: the arguments every baseline takes. */
export function baselineArgs(): { datasetDir: string; port: number; workers: number; extra: string[] } {
  const [datasetDir, port, workers, ...extra] = process.argv.slice(2);
  if (!datasetDir || !port || !workers) throw new Error(`usage: node ${process.argv[1]} <dataset dir> <port> <workers> [...]; found ${process.argv.slice(2).join(' ')}`);
  return { datasetDir, port: Number(port), workers: Number(workers), extra };
}
