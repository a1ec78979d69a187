// The baseline for bench/http.bench.ts: a plain Node `http` server holding the same answers as
// plain objects in memory and doing what a straightforward Node API does per request: parse the
// URL, check the key, route, JSON.stringify, write. Started as a child process:
//   node dist/bench/http-baseline.js <answers.json> <key> <dataVersion>
// prints `listening <port>` when ready. answers.json maps "path?query" to the answer object.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const [answersFile, key, dataVersion] = process.argv.slice(2);
const answers = new Map<string, unknown>(Object.entries(JSON.parse(readFileSync(answersFile!, 'utf8')) as Record<string, unknown>));
const UNAUTHORIZED = { error: "Unauthorized. You shouldn't be here." };

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-ID': randomUUID(),
    'X-GEOAPI-Data-Version': dataVersion!,
  };
  if (req.headers['x-geoapi-key'] !== key) {
    res.writeHead(401, headers).end(JSON.stringify(UNAUTHORIZED));
    return;
  }
  const answer = answers.get(url.pathname + url.search);
  if (answer === undefined) {
    res.writeHead(404, headers).end(JSON.stringify({ error: 'Not found.' }));
    return;
  }
  res.writeHead(200, headers).end(JSON.stringify(answer));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
