// The reference tests' view of a real server: test/support/server.ts (a geoapi child process
// on a free port, one key per plan, the real policy file), with responses decoded for assertions
// (bodies decompressed per Content-Encoding, JSON parsed, headers through a Headers-like get()).
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { PlanName } from '../../../../runtime/contract/index.js';
import { openApiChecker } from '../../../support/openapi.js';
import { startTestServer as startServer, type TestServer as ChildServer } from '../../../support/server.js';

export const PLANS: readonly PlanName[] = ['community', 'starter', 'supporter', 'professional', 'business', 'legacy'];

export interface TestResponse {
  status: number;
  headers: { get(name: string): string | null };
  /** Decoded body text. */
  text: string;
  /** Parsed JSON body (undefined when empty). */
  body: unknown;
}

export interface TestServer {
  url: string;
  keys: Record<PlanName, string>;
  /** plan null = no key header; `key` overrides the plan's key. */
  get(path: string, options?: { plan?: PlanName | null; key?: string; headers?: Record<string, string> }): Promise<TestResponse>;
  close(): Promise<void>;
}

export async function startTestServer(snapshotDir: string, options: { fixedNow?: string } = {}): Promise<TestServer> {
  const server: ChildServer = await startServer({ snapshotDir, ...(options.fixedNow ? { fixedNow: options.fixedNow } : {}) });
  // Every answer of an operation is also checked against the server's OpenAPI document.
  const openApi = openApiChecker((await server.get('/openapi.json')).json());
  return {
    url: server.url,
    keys: server.keys,
    async get(path, opts = {}) {
      const headers = { ...(opts.headers ?? {}) };
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'accept-encoding')) headers['Accept-Encoding'] = 'identity';
      const key = opts.key ?? (opts.plan === null ? undefined : server.keys[opts.plan ?? 'business']);
      if (key !== undefined) headers['X-GEOAPI-KEY'] = key;
      const res = await server.get(path, { headers });
      const encoding = res.headers['content-encoding'];
      const bytes = encoding === 'br' ? brotliDecompressSync(res.bytes) : encoding === 'gzip' ? gunzipSync(res.bytes) : res.bytes;
      const text = bytes.toString('utf8');
      const body = text === '' ? undefined : JSON.parse(text);
      const plan = opts.key !== undefined || opts.plan === null ? null : (opts.plan ?? 'business');
      if (openApi.operationOf(path) !== undefined && res.status !== 405) openApi.assert({ path, status: res.status, plan, body }, 'contract answer');
      return {
        status: res.status,
        headers: {
          get(name) {
            const value = res.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(', ') : String(value);
          },
        },
        text,
        body,
      };
    },
    close: () => server.close(),
  };
}
