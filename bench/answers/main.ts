// Same answers before and after a change: records a checkout's answers to a seeded request list,
// and compares two recordings. See bench/answers/README.md.
//
//   node dist/bench/answers/main.js record --checkout <dir> --out <file.jsonl> [--seed 11] [--count 3000]
//        [--dataset ../shared/data/csc] [--snapshot <dir>]
//   node dist/bench/answers/main.js compare <a.jsonl> <b.jsonl> [--ignore-data-version]
//        [--ignore-header <name>]... [--show 10]
// Exit codes: 0 ok (compare: no difference), 1 differences or failure, 2 bad usage.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { compare } from './compare.js';
import { record } from './record.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const USAGE = `usage:
  main.js record --checkout <dir> --out <file.jsonl> [--seed <n>] [--count <n>] [--dataset <dir>] [--snapshot <dir>]
  main.js compare <a.jsonl> <b.jsonl> [--ignore-data-version] [--ignore-header <name>]... [--show <n>]`;

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name}: expected a whole number, found ${JSON.stringify(value)}`);
  return Number(value);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'record') {
    const { values } = parseArgs({
      args,
      options: { checkout: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string' }, count: { type: 'string' }, dataset: { type: 'string' }, snapshot: { type: 'string' } },
      strict: true,
    });
    if (!values.checkout || !values.out) throw new Error(`record: --checkout and --out are required\n${USAGE}`);
    const started = performance.now();
    const result = await record({
      checkout: values.checkout,
      out: resolve(values.out),
      dataset: values.dataset ?? resolve(REPO_ROOT, '../shared/data/csc'),
      seed: integer('--seed', values.seed, 11),
      count: integer('--count', values.count, 3000),
      ...(values.snapshot ? { snapshot: values.snapshot } : {}),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`recorded ${result.answers} answers (${result.skipped} follow-up steps skipped) to ${values.out} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    return 0;
  }
  if (command === 'compare') {
    const { values, positionals } = parseArgs({
      args,
      options: { 'ignore-data-version': { type: 'boolean' }, 'ignore-header': { type: 'string', multiple: true }, show: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 2) throw new Error(`compare: expected two recordings, found ${positionals.length}\n${USAGE}`);
    const result = compare(positionals[0]!, positionals[1]!, {
      ignoreDataVersion: values['ignore-data-version'] ?? false,
      ignoreHeaders: (values['ignore-header'] ?? []).map((name) => name.toLowerCase()),
      show: integer('--show', values.show, 10),
    });
    for (const line of result.report) process.stdout.write(`${line}\n`);
    return result.differing === 0 ? 0 : 1;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`answers: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
