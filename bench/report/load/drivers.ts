// Drives one measured run in a separate process: saturation with wrk (C, Debian package `wrk`,
// cheapest on a CPU shared with the server) when installed, else the Node generator in closed
// mode; fixed-rate runs always with the Node generator in open mode (wrk2 is not packaged).
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonFromChild } from './child-json.js';
import type { LoadConfig, LoadResult } from './loadgen.js';

const LOADGEN = fileURLToPath(new URL('./loadgen.js', import.meta.url));

// Rotates through the request list (args[1]); the key (args[2]) goes in every request, and
// Accept-Encoding (args[3]) when given.
const WRK_SCRIPT = `
local paths = {}
local i = 0
function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  wrk.headers["X-GEOAPI-KEY"] = args[2]
  if args[3] ~= nil and #args[3] > 0 then wrk.headers["Accept-Encoding"] = args[3] end
end
function request()
  i = i + 1
  if i > #paths then i = 1 end
  return wrk.format("GET", paths[i])
end
`;

export interface SaturationResult {
  tool: 'wrk' | 'node';
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Bytes received per second, header blocks included (wrk's Transfer/sec, or the Node generator's count). */
  transferBytesPerSecond?: number | undefined;
}

/** What current browsers send (Chrome, Firefox, Safari): every answer of 1 KiB or more comes back compressed. */
export const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

export function wrkAvailable(): boolean {
  return !spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error;
}

const toMs = (value: string, unit: string): number => Number(value) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[unit]!;

const BYTE_UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

function runWrk(port: number, key: string, pathsFile: string, scriptDir: string, seconds: number, connections: number, acceptEncoding: string): Promise<SaturationResult> {
  const script = join(scriptDir, 'rotate.lua');
  writeFileSync(script, WRK_SCRIPT);
  // wrk takes whole seconds.
  const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--timeout', '30s', '--latency', '-s', script, `http://127.0.0.1:${port}`, '--', pathsFile, key, acceptEncoding];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk failed (${code}): ${err}${out}`));
      const percentile = (p: string): number => {
        const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
        return m ? toMs(m[1]!, m[2]!) : NaN;
      };
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      if (!rps) return reject(new Error(`wrk output without Requests/sec:\n${out}`));
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
      const transfer = /Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/.exec(out);
      const transferBytesPerSecond = transfer ? Number(transfer[1]) * BYTE_UNITS[transfer[2]!]! : undefined;
      resolve({ tool: 'wrk', requestsPerSecond: Number(rps[1]), p50: percentile('50'), p99: percentile('99'), non2xx, errors, transferBytesPerSecond });
    });
  });
}

export function runNodeLoad(config: LoadConfig): Promise<LoadResult> {
  return jsonFromChild<LoadResult>(LOADGEN, 'load generator', [JSON.stringify(config)]);
}

/**
 * Fixed-rate percentiles are taken per third of the run and the median third is reported: one
 * pause of another process on the shared machine then moves the whole-run p99 (reported too),
 * not the headline.
 */
export const FIXED_RATE_WINDOWS = 3;

export interface Driver {
  tool: 'wrk' | 'node';
  /** `acceptEncoding`: sent with every request when not empty (a browser's answers are compressed). */
  saturate(port: number, key: string, pathsFile: string, seconds: number, acceptEncoding?: string): Promise<SaturationResult>;
  fixedRate(port: number, key: string, pathsFile: string, seconds: number, rate: number): Promise<LoadResult>;
}

export function makeDriver(options: { useWrk: boolean; connections: number; warmupSeconds: number; scriptDir: string }): Driver {
  const { connections, warmupSeconds, scriptDir } = options;
  return {
    tool: options.useWrk ? 'wrk' : 'node',
    async saturate(port, key, pathsFile, seconds, acceptEncoding = '') {
      if (options.useWrk) return runWrk(port, key, pathsFile, scriptDir, seconds, connections, acceptEncoding);
      const result = await runNodeLoad({ port, key, pathsFile, mode: 'closed', connections, seconds, warmupSeconds: 0, acceptEncoding });
      return { tool: 'node', requestsPerSecond: result.requestsPerSecond, p50: result.p50, p99: result.p99, non2xx: result.non2xx, errors: result.errors, transferBytesPerSecond: result.receivedBytesPerSecond };
    },
    fixedRate(port, key, pathsFile, seconds, rate) {
      return runNodeLoad({ port, key, pathsFile, mode: 'open', connections, seconds, warmupSeconds, rate, windows: FIXED_RATE_WINDOWS });
    },
  };
}
