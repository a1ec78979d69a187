// The pid file of `geoapi serve` and `geoapi reload`, which signals the server named in it.
// Default place: beside the snapshot directory (<snapshot dir>.pid, config.ts pidFileFor), so the
// same --snapshot / GEOAPI_SNAPSHOT finds the server; --pid-file / GEOAPI_PID_FILE when several
// servers share a snapshot. The file holds the process id and a line saying what it is.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const MARKER = 'geoapi serve';

/** Writes this process's id to `file`; returns false (after saying why) when it cannot. */
export function writePidFile(file: string, warn: (message: string) => void): boolean {
  const other = readPid(file);
  if (other !== null && other !== process.pid && isAlive(other)) {
    warn(`pid file ${file} named process ${other}, still running; it now names this one (${process.pid}): give each server its own --pid-file`);
  }
  try {
    writeFileSync(file, `${process.pid}\n${MARKER}\n`);
    return true;
  } catch (error) {
    warn(`cannot write the pid file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); geoapi reload will not find this server: set --pid-file or use kill -HUP ${process.pid}`);
    return false;
  }
}

/** Removes `file` when it still names this process. */
export function removePidFile(file: string): void {
  if (readPid(file) === process.pid) rmSync(file, { force: true });
}

function readPid(file: string): number | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const [first, second] = text.split('\n');
  if (second?.trim() !== MARKER || !/^\d+$/.test(first?.trim() ?? '')) return null;
  return Number(first);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's arguments where /proc tells them (Linux), else null. */
function commandLine(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return null;
  }
}

/** Sends SIGHUP to the server named in `file`; throws a message saying what is wrong. */
export function signalServer(file: string): number {
  const pid = readPid(file);
  if (pid === null) throw new Error(`no geoapi server pid in ${file} (is the server running? it writes this file at start; --pid-file / GEOAPI_PID_FILE names another)`);
  if (!isAlive(pid)) throw new Error(`${file} names process ${pid}, which is not running (a stale pid file)`);
  // A stale file whose pid was reused: SIGHUP ends most programs, so check what runs there when we can.
  const argv = commandLine(pid);
  if (argv !== null && !argv.some((arg) => arg === 'serve' || arg === 'start')) {
    throw new Error(`${file} names process ${pid}, which is not a geoapi server (${argv.slice(0, 3).join(' ')}): a stale pid file`);
  }
  process.kill(pid, 'SIGHUP');
  return pid;
}
