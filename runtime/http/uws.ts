// Loads uWebSockets.js as a native addon, from the first candidate package whose binary loads.
//
// Two npm builds exist: @btc-vision/uwebsockets.js (v20.57; Node 20–25 but needs glibc ≥ 2.38)
// and @trufflesuite/uws-js-unofficial (v20.30; Node ABI 93/108/115). The latter's entry file
// silently falls back to a slow pure-JS server when its binary does not load, so we never use
// entry files: we require the `.node` binary itself, which either loads natively or throws.
// GEOAPI_UWS_CANDIDATES (comma-separated package names, or "none") overrides the list.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const DEFAULT_UWS_CANDIDATES = ['@btc-vision/uwebsockets.js', '@trufflesuite/uws-js-unofficial'] as const;

/** Where each package keeps its binaries. */
const BINARY_DIRS: Record<string, string> = {
  '@btc-vision/uwebsockets.js': '.',
  '@trufflesuite/uws-js-unofficial': 'binaries',
};

/** The parts of the uWS API geoapi uses (identical in v20.30 and v20.57). */
export interface UwsHttpResponse {
  writeStatus(status: string): UwsHttpResponse;
  writeHeader(key: string, value: string): UwsHttpResponse;
  end(body?: string | Uint8Array, closeConnection?: boolean): UwsHttpResponse;
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): UwsHttpResponse;
  cork(cb: () => void): UwsHttpResponse;
  onAborted(handler: () => void): UwsHttpResponse;
  /** Request body chunks (a GET refused for carrying one drains it here). */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): UwsHttpResponse;
  /** Force-closes the connection. */
  close(): UwsHttpResponse;
}

export interface UwsHttpRequest {
  getHeader(lowerCaseKey: string): string;
  getParameter(index: number): string;
  getUrl(): string;
  getMethod(): string;
  /** The raw query string (after `?`), undefined when the URL has none. */
  getQuery(): string | undefined;
  /** Every header (lower-case names), for copying a request out before an asynchronous step. */
  forEach(cb: (lowerCaseKey: string, value: string) => void): void;
}

export type UwsHandler = (res: UwsHttpResponse, req: UwsHttpRequest) => void;
export type UwsListenSocket = object;

export interface UwsApp {
  get(pattern: string, handler: UwsHandler): UwsApp;
  any(pattern: string, handler: UwsHandler): UwsApp;
  head(pattern: string, handler: UwsHandler): UwsApp;
  options(pattern: string, handler: UwsHandler): UwsApp;
  listen(port: number, cb: (socket: UwsListenSocket | false) => void): UwsApp;
  listen(host: string, port: number, cb: (socket: UwsListenSocket | false) => void): UwsApp;
  /** v20.34+: closes listen sockets and all connections. Absent in v20.30. */
  close?(): UwsApp;
}

export interface UwsModule {
  App(): UwsApp;
  us_listen_socket_close(socket: UwsListenSocket): void;
  us_socket_local_port(socket: UwsListenSocket): number;
}

export interface UwsBuild {
  /** npm package the binary came from. */
  packageName: string;
  version: string;
  /** Absolute path of the loaded `.node` file. */
  binary: string;
  /** Node ABI (process.versions.modules) the binary was built for. */
  abi: string;
}

export interface LoadedUws {
  uws: UwsModule;
  build: UwsBuild;
}

export class UwsUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UwsUnavailableError';
  }
}

/** Candidate packages from GEOAPI_UWS_CANDIDATES, else the defaults. */
export function uwsCandidates(env: Readonly<Record<string, string | undefined>>): string[] {
  const raw = env['GEOAPI_UWS_CANDIDATES'];
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_UWS_CANDIDATES];
  if (raw.trim() === 'none') return [];
  return raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
}

const require = createRequire(import.meta.url);

/** The package's directory, found along the usual node_modules lookup paths (no `exports` involved). */
function packageDir(packageName: string): string | null {
  for (const dir of require.resolve.paths(packageName) ?? []) {
    const candidate = join(dir, packageName);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  return null;
}

function binaryName(): string {
  return `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
}

/** Loads the first candidate that loads natively; throws UwsUnavailableError naming every attempt. */
export function loadUws(candidates: readonly string[] = DEFAULT_UWS_CANDIDATES): LoadedUws {
  const attempts: string[] = [];
  for (const packageName of candidates) {
    const dir = packageDir(packageName);
    if (!dir) {
      attempts.push(`${packageName}: not installed`);
      continue;
    }
    const binary = join(dir, BINARY_DIRS[packageName] ?? '.', binaryName());
    if (!existsSync(binary)) {
      attempts.push(`${packageName}: no binary ${binaryName()} for this platform and Node ABI ${process.versions.modules}`);
      continue;
    }
    let uws: UwsModule;
    try {
      uws = require(binary) as UwsModule;
    } catch (error) {
      attempts.push(`${packageName}: ${binary} does not load: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    if (typeof uws.App !== 'function' || typeof uws.us_listen_socket_close !== 'function' || typeof uws.us_socket_local_port !== 'function') {
      attempts.push(`${packageName}: ${binary} loaded but lacks App/us_listen_socket_close/us_socket_local_port`);
      continue;
    }
    const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
    return { uws, build: { packageName, version, binary, abi: process.versions.modules } };
  }
  const tried = candidates.length === 0 ? 'no candidates (GEOAPI_UWS_CANDIDATES=none)' : attempts.join('; ');
  throw new UwsUnavailableError(
    `no native uWebSockets.js binary loads on Node ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules}). ` +
      `Tried: ${tried}. geoapi does not run on a JavaScript fallback; use Node 20 (ABI 115) with ` +
      `@trufflesuite/uws-js-unofficial, or a glibc ≥ 2.38 system for @btc-vision/uwebsockets.js.`,
  );
}

export function describeBuild(build: UwsBuild): string {
  return `${build.packageName}@${build.version} (native, ABI ${build.abi})`;
}
