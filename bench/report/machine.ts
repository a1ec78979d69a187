// The machine a report was measured on: numbers from a shared 2-core box mean little without it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  cpuModel: string;
  cores: number;
  ramGiB: number;
  node: string;
  os: string;
  kernel: string;
  wrk: string | null;
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1]!.trim();
  } catch {
    // Not Linux.
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function osName(): string {
  if (existsSync('/etc/os-release')) {
    const match = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (match) return match[1]!;
  }
  return `${os.type()} ${os.release()}`;
}

export function describeMachine(): Machine {
  const wrk = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return {
    cpuModel: cpuModel(),
    cores: os.availableParallelism(),
    ramGiB: os.totalmem() / 1024 ** 3,
    node: process.version,
    os: osName(),
    kernel: os.release(),
    wrk: wrk.error ? null : (/wrk (\S+)/.exec(`${wrk.stdout}${wrk.stderr}`)?.[1] ?? 'installed'),
  };
}

export function loadAverage(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' / ');
}
