// Load balancer and monitor probes, without a key, neither counted against a quota nor logged
// per request: GET/HEAD /healthz (the process answers) and /readyz (a snapshot is loaded — a
// worker registers routes only once its store is open —, every thread has run its preparation
// steps, and the server is not draining). /readyz answers 503 `warming` while the threads still
// prepare (requests are answered meanwhile, some slower: a balancer sends traffic once warm) and
// 503 `draining` while the server drains, so a balancer moves keep-alive clients elsewhere before
// the process exits. A live snapshot swap does not make a ready server unready.
import type { UwsApp, UwsHttpResponse } from './uws.js';

export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';

const HEALTHY = JSON.stringify({ status: 'ok' });
const READY = JSON.stringify({ status: 'ready' });
const DRAINING = JSON.stringify({ status: 'draining' });
const WARMING = JSON.stringify({ status: 'warming' });
const ignoreAbort = (): void => {};

function answer(res: UwsHttpResponse, status: '200 OK' | '503 Service Unavailable', body: string, head: boolean): void {
  res.onAborted(ignoreAbort);
  res.cork(() => {
    res.writeStatus(status).writeHeader('Content-Type', 'application/json; charset=utf-8').writeHeader('Cache-Control', 'no-store');
    if (head) {
      res.writeHeader('Content-Length', String(body.length));
      res.endWithoutBody();
    } else {
      // While draining, the connection is closed after the answer: the balancer reconnects elsewhere.
      res.end(body, body === DRAINING);
    }
  });
}

export function registerProbes(app: UwsApp, server: { draining(): boolean; warm(): boolean }): void {
  app.get(HEALTHZ_PATH, (res) => answer(res, '200 OK', HEALTHY, false));
  app.head(HEALTHZ_PATH, (res) => answer(res, '200 OK', HEALTHY, true));
  const ready = (res: UwsHttpResponse, head: boolean): void => {
    if (server.draining()) answer(res, '503 Service Unavailable', DRAINING, head);
    else if (!server.warm()) answer(res, '503 Service Unavailable', WARMING, head);
    else answer(res, '200 OK', READY, head);
  };
  app.get(READYZ_PATH, (res) => ready(res, false));
  app.head(READYZ_PATH, (res) => ready(res, true));
}
