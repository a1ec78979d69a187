// `geoapi keys add|list|revoke`: manages the key file. The plaintext key of `add` is printed once,
// as the last line of the output (scripts take `tail -n 1`), and never written anywhere.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { addKey, keyStatus, newKeyFile, parseExpiry, readKeyFile, revokeKey, writeKeyFile, type KeyFile } from '../access/keys.js';
import { PLAN_NAMES } from '../access/policy.js';
import type { PlanName } from '../contract/index.js';
import type { Env } from './config.js';
import { keysFileFrom } from './paths.js';
import { UsageError } from './usage.js';

type Print = (line: string) => void;

function parsePlan(value: string | undefined): PlanName {
  if (value === undefined) throw new UsageError(`keys add: --plan is required (one of ${PLAN_NAMES.join(', ')})`);
  if (!(PLAN_NAMES as readonly string[]).includes(value)) throw new UsageError(`keys add: --plan: expected one of ${PLAN_NAMES.join(', ')}, found ${JSON.stringify(value)}`);
  return value as PlanName;
}

function openOrCreate(file: string, print: Print): KeyFile {
  if (existsSync(file)) return readKeyFile(file);
  mkdirSync(dirname(file), { recursive: true });
  print(`Creating ${file} with a new HMAC secret.`);
  return newKeyFile();
}

export function keysAdd(args: string[], print: Print, env: Env, now = new Date()): void {
  const { values } = parseArgs({
    args,
    options: { plan: { type: 'string' }, name: { type: 'string' }, expires: { type: 'string' }, file: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const plan = parsePlan(values.plan);
  const expires = values.expires === undefined ? null : parseExpiry(values.expires);
  if (expires !== null && expires.getTime() <= now.getTime()) throw new UsageError(`keys add: --expires ${values.expires} is already past`);
  const file = resolve(keysFileFrom(values.file, env));
  const keyFile = openOrCreate(file, print);
  const { record, key } = addKey(keyFile, { plan, name: values.name ?? '', expires, now });
  writeKeyFile(file, keyFile);
  print(`Added key ${record.id} (plan ${plan}${record.name ? `, name ${JSON.stringify(record.name)}` : ''}, expires ${record.expires ?? 'never'}) to ${file}.`);
  print('The key is shown only now; geoapi keeps only its HMAC. Send it in the X-GEOAPI-KEY header:');
  print(key);
}

export function keysList(args: string[], print: Print, env: Env, now = new Date()): void {
  const { values } = parseArgs({ args, options: { file: { type: 'string' } }, strict: true, allowPositionals: false });
  const file = resolve(keysFileFrom(values.file, env));
  const keyFile = readKeyFile(file);
  if (keyFile.keys.length === 0) {
    print(`No keys in ${file}. Add one with: geoapi keys add --plan <plan> --file ${file}`);
    return;
  }
  const rows = [['ID', 'PLAN', 'STATUS', 'EXPIRES', 'CREATED', 'NAME']];
  for (const record of keyFile.keys) {
    rows.push([record.id, record.plan, keyStatus(record, now), record.expires ?? 'never', record.created, record.name]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) print(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd());
}

export function keysRevoke(args: string[], print: Print, env: Env): void {
  const { values, positionals } = parseArgs({ args, options: { file: { type: 'string' } }, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError(`keys revoke: expected one key id, found ${positionals.length}`);
  const file = resolve(keysFileFrom(values.file, env));
  const keyFile = readKeyFile(file);
  const record = revokeKey(keyFile, positionals[0]!);
  writeKeyFile(file, keyFile);
  print(`Revoked key ${record.id} (plan ${record.plan}) in ${file}. A running server refuses it after its next check of the file (about a second).`);
}

export function runKeysCommand(args: string[], print: Print, env: Env): number {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      keysAdd(rest, print, env);
      return 0;
    case 'list':
      keysList(rest, print, env);
      return 0;
    case 'revoke':
      keysRevoke(rest, print, env);
      return 0;
    default:
      throw new UsageError(`keys: expected add, list or revoke, found ${sub === undefined ? 'nothing' : JSON.stringify(sub)}`);
  }
}
