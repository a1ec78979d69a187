// `npm start` stopped with SIGTERM (what a process manager or `kill` sends to npm) stops the server.
// It used to leave node running: npm forwards SIGTERM to its child, which was `sh -c "node …"`;
// dash does not exec a lone command and dies of the signal without passing it on, orphaning node.
// The script now execs node, so npm's child is the server itself and drains on SIGTERM.
// The script also pins glibc's mmap threshold and asks it for huge pages (runtime/cli/allocator.ts),
// which the banner shows; where the kernel allows them, the server's large buffers are in huge pages.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { freePort, request } from '../support/server.js';
import { fixtureSnapshot, startProcess, tempDir } from '../cli/support.js';

test('npm start stopped with SIGTERM stops the server (it drains and its port closes)', async () => {
  const home = tempDir();
  const port = await freePort();
  const npm = startProcess('npm', ['start', '--silent', '--', '--threads', '1'], {
    env: { GEOAPI_HOME: home, GEOAPI_SNAPSHOT: fixtureSnapshot(), GEOAPI_PORT: String(port), GEOAPI_KEYS: undefined, GEOAPI_QUOTA_STATE_FILE: undefined, MALLOC_MMAP_THRESHOLD_: undefined, GLIBC_TUNABLES: undefined },
  });
  await npm.waitFor(/Try it:[\s\S]*curl/);
  if (process.platform === 'linux') {
    assert.match(npm.output(), /^allocator: MALLOC_MMAP_THRESHOLD_=131072 .*; glibc\.malloc\.hugetlb=1 in GLIBC_TUNABLES /m);
    // THP off in the kernel ("never"): glibc's advice changes nothing.
    if (!/\[never\]/.test(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))) {
      const server = childrenOf(npm.child.pid!).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('main.js'))!;
      // One thread's response cache ring (32 MiB, written before ready) is one of them.
      const hugeKb = Number(/^AnonHugePages:\s+(\d+) kB/m.exec(readFileSync(`/proc/${server}/smaps_rollup`, 'utf8'))![1]);
      assert.ok(hugeKb >= 2048, `expected the server's large buffers in huge pages, found ${hugeKb} kB`);
    }
  }
  const key = /X-GEOAPI-KEY: (\S+)"/.exec(npm.output())![1]!;
  assert.equal((await request(`http://127.0.0.1:${port}/v1/countries/US`, { key })).status, 200);

  npm.child.kill('SIGTERM');
  // 'close' fires only once every process holding the output pipes (npm and the server) is gone.
  await npm.closed;
  assert.match(npm.output(), /geoapi: SIGTERM: no new connections; finishing open ones/);
  assert.match(npm.output(), /geoapi: stopped/);
  await assert.rejects(request(`http://127.0.0.1:${port}/v1/countries/US`, { key }), /ECONNREFUSED/);
});

/** Process ids whose parent is `pid`, and theirs (npm runs the script through a shell that execs node). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // The parent id follows the command name, which may hold spaces: read after its closing parenthesis.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === pid) found.push(Number(name), ...childrenOf(Number(name)));
  }
  return found;
}
