// glibc's malloc, as the server runs it. glibc raises its mmap threshold (up to 32 MiB) each time a
// buffer it mapped is freed, and its trim threshold with it: the garbage collector freeing the
// buffers a snapshot load builds and drops is enough. From then on every thread's buffers below
// that size come from malloc's arenas, which keep what is freed for reuse. Pinning the threshold
// keeps large buffers mapped and given back when freed: ~26 MiB less resident on the full dataset
// with 2 threads, at start and under the report's load, with the same throughput (README, Memory).
// glibc reads the setting only when the process starts, so the launchers set it: `npm start`, the
// systemd unit, bench:report. A server started without it says so in its banner.
import type { Env } from './config.js';

export const MMAP_THRESHOLD_VARIABLE = 'MALLOC_MMAP_THRESHOLD_';
/** glibc's initial threshold (128 KiB), pinned. */
export const PINNED_MMAP_THRESHOLD = '131072';

/** The banner's line on the allocator (glibc is Linux's; elsewhere the setting means nothing). */
export function describeAllocator(env: Env, platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux') return null;
  const pinned = env[MMAP_THRESHOLD_VARIABLE];
  if (pinned !== undefined && pinned.trim() !== '') return `allocator: ${MMAP_THRESHOLD_VARIABLE}=${pinned.trim()} (glibc gives large freed buffers back)`;
  if (/mmap_threshold=/.test(env['GLIBC_TUNABLES'] ?? '')) return 'allocator: glibc.malloc.mmap_threshold set in GLIBC_TUNABLES';
  return `allocator: ${MMAP_THRESHOLD_VARIABLE} not set: with glibc, ~26 MiB more stays resident on the full dataset; set it to ${PINNED_MMAP_THRESHOLD} (npm start and the systemd unit do)`;
}
