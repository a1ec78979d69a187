// glibc's malloc, as the server runs it. glibc raises its mmap threshold (up to 32 MiB) each time a
// buffer it mapped is freed, and its trim threshold with it: the garbage collector freeing the
// buffers a snapshot load builds and drops is enough. From then on every thread's buffers below
// that size come from malloc's arenas, which keep what is freed for reuse. Pinning the threshold
// keeps large buffers mapped and given back when freed: ~26 MiB less resident on the full dataset
// with 2 threads, at start and under the report's load, with the same throughput (README, Memory).
// The launchers also ask glibc (≥ 2.35) to advise transparent huge pages for its mappings of 2 MiB
// or more (GLIBC_TUNABLES=glibc.malloc.hugetlb=1; the kernel's THP mode "madvise" or "always"):
// the snapshot's sections are read into such buffers, and on a virtual machine each first touch of
// a 4 KiB page costs ~7–12 µs. Full dataset, spawn → first answer, 5 starts alternated:
// 1,488–1,779 ms against 1,708–2,036 ms, the same resident memory once ready.
// glibc reads both only when the process starts, so the launchers set them: `npm start`, the
// systemd unit, deploy/replicas, bench:report. A server started without them says so in its banner.
import type { Env } from './config.js';

export const MMAP_THRESHOLD_VARIABLE = 'MALLOC_MMAP_THRESHOLD_';
/** glibc's initial threshold (128 KiB), pinned. */
export const PINNED_MMAP_THRESHOLD = '131072';
export const TUNABLES_VARIABLE = 'GLIBC_TUNABLES';
/** Transparent huge pages advised for glibc's large mappings. */
export const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb=1';

/** The banner's line on the allocator (glibc is Linux's; elsewhere the settings mean nothing). */
export function describeAllocator(env: Env, platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux') return null;
  return `allocator: ${describeThreshold(env)}; ${describeHugePages(env)}`;
}

function describeThreshold(env: Env): string {
  const pinned = env[MMAP_THRESHOLD_VARIABLE];
  if (pinned !== undefined && pinned.trim() !== '') return `${MMAP_THRESHOLD_VARIABLE}=${pinned.trim()} (glibc gives large freed buffers back)`;
  if (/(^|:)glibc\.malloc\.mmap_threshold=/.test(env[TUNABLES_VARIABLE] ?? '')) return `glibc.malloc.mmap_threshold set in ${TUNABLES_VARIABLE}`;
  return `${MMAP_THRESHOLD_VARIABLE} not set: with glibc, ~26 MiB more stays resident on the full dataset; set it to ${PINNED_MMAP_THRESHOLD} (npm start and the systemd unit do)`;
}

function describeHugePages(env: Env): string {
  const asked = /(?:^|:)glibc\.malloc\.hugetlb=([0-9]+)/.exec(env[TUNABLES_VARIABLE] ?? '');
  if (asked !== null && asked[1] !== '0') return `glibc.malloc.hugetlb=${asked[1]} in ${TUNABLES_VARIABLE} (large buffers in huge pages where the kernel allows)`;
  return `huge pages not asked for: with ${TUNABLES_VARIABLE}=${HUGE_PAGES_TUNABLE} the snapshot loads ~0.2 s sooner on the full dataset (npm start and the systemd unit set it)`;
}
