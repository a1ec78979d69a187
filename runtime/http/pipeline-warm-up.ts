// What a thread needs to send its warm-up requests through its own request pipeline before it
// says ready (app.ts pipelineSteps): stand-ins for uWS's request and response, and a key of its
// own. The warm-up of runtime/routes calls handlers directly; without this, the first real
// request of each thread compiled the pipeline around them (key lookup, query parsing, response
// cache, compression, headers, counters).
import { randomBytes } from 'node:crypto';
import { KeyIndex, withMemoryKey } from '../access/key-index.js';
import type { Policy } from '../access/policy.js';
import type { WarmUpRequest } from '../routes/warm-up.js';
import type { UwsHttpRequest, UwsHttpResponse } from './uws.js';

/** The Accept-Encoding a browser sends: the warm-up compiles the compression path too. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * A key index holding one key, made up here and known to nothing else, of the policy's highest
 * plan (every gate open, the widest field tier): the warm-up's requests never carry a real key.
 */
export function warmUpKeys(policy: Policy): { keys: KeyIndex; key: string } {
  const plans = Object.values(policy.plans);
  const top = plans.reduce((best, plan) => (plan.rank > best.rank ? plan : best), plans[0]!);
  const key = `warm-up-${randomBytes(24).toString('hex')}`;
  const snapshot = withMemoryKey({ secret: randomBytes(32).toString('hex'), entries: [] }, { id: 'warm-up', plan: top.name, plaintext: key });
  return { keys: new KeyIndex(snapshot, policy), key };
}

/** The path of `request` on the route `pattern` (`/v1/countries/:ciso`), its encoded path parameters and its query. */
function requestParts(pattern: string, request: WarmUpRequest): { url: string; parameters: string[]; query: string | undefined } {
  // Segments starting with ':' are parameters, as in uWS's patterns (app.ts paramNamesOf).
  const parameters: string[] = [];
  const url = pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment;
      const raw = encodeURIComponent(request.params[segment.slice(1)] ?? '');
      parameters.push(raw);
      return raw;
    })
    .join('/');
  const pairs = Object.entries(request.query).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return { url, parameters, query: pairs.length > 0 ? pairs.join('&') : undefined };
}

/** The request target (path and query) of `request` on the route `pattern`. */
export function targetOf(pattern: string, request: WarmUpRequest): string {
  const { url, query } = requestParts(pattern, request);
  return query === undefined ? url : `${url}?${query}`;
}

/** A GET of `request` on the route `pattern` (`/v1/countries/:ciso`), as uWS would hand it over. */
export class StandInRequest implements UwsHttpRequest {
  private readonly parameters: string[];
  private readonly query: string | undefined;
  private readonly url: string;
  private readonly headers: Map<string, string>;

  constructor(pattern: string, request: WarmUpRequest, key: string) {
    ({ url: this.url, parameters: this.parameters, query: this.query } = requestParts(pattern, request));
    this.headers = new Map([
      ['x-geoapi-key', key],
      ['accept-encoding', ACCEPT_ENCODING],
    ]);
  }

  getHeader(lowerCaseKey: string): string {
    return this.headers.get(lowerCaseKey) ?? '';
  }

  getParameter(index: number): string {
    return this.parameters[index] ?? '';
  }

  getUrl(): string {
    return this.url;
  }

  getMethod(): string {
    return 'get';
  }

  getQuery(): string | undefined {
    return this.query;
  }

  forEach(cb: (lowerCaseKey: string, value: string) => void): void {
    for (const [name, value] of this.headers) cb(name, value);
  }
}

/** Takes the answer and keeps only its status line ("200 OK"), which the caller checks. */
export class StandInResponse implements UwsHttpResponse {
  status = '200 OK';

  writeStatus(status: string): this {
    this.status = status;
    return this;
  }

  writeHeader(): this {
    return this;
  }

  end(): this {
    return this;
  }

  endWithoutBody(): this {
    return this;
  }

  cork(cb: () => void): this {
    cb();
    return this;
  }

  onAborted(): this {
    return this;
  }

  onData(): this {
    return this;
  }

  close(): this {
    return this;
  }
}
