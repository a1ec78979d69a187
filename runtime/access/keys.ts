// The API key store: a JSON file of key records. Only HMAC-SHA256(key) with a per-file secret is
// stored, so a leaked file does not leak usable keys; the plaintext key exists only in the output
// of `geoapi keys add` and in the client.
import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import type { PlanName } from '../contract/index.js';
import { describeJsonError, PLAN_NAMES } from './policy.js';

export const KEY_FILE_FORMAT = 'geoapi-keys';
export const KEY_FILE_VERSION = 1;
/** Longest presented key worth hashing; longer header values are refused without work. */
export const MAX_KEY_LENGTH = 256;

export interface KeyRecord {
  id: string;
  /** HMAC-SHA256(key, secret), lowercase hex. */
  hash: string;
  plan: PlanName;
  name: string;
  /** ISO time. */
  created: string;
  /** ISO time after which the key is refused, or null. */
  expires: string | null;
  revoked: boolean;
}

export interface KeyFile {
  format: typeof KEY_FILE_FORMAT;
  version: typeof KEY_FILE_VERSION;
  /** HMAC secret, hex; generated when the file is created. */
  secret: string;
  keys: KeyRecord[];
}

export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

const HEX64 = /^[0-9a-f]{64}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

function fail(source: string, where: string, expected: string, found: unknown): never {
  failText(source, where, expected, found === undefined ? 'nothing' : JSON.stringify(found));
}

function failText(source: string, where: string, expected: string, found: string): never {
  throw new KeyFileError(`keys file ${source}: ${where}: expected ${expected}, found ${found}`);
}

/** Parses and checks key file text; throws KeyFileError saying what is wrong where. */
export function parseKeyFile(text: string, source = '(text)'): KeyFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new KeyFileError(`keys file ${source} is not valid JSON: ${describeJsonError(text, error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) fail(source, '(root)', 'an object', parsed);
  const root = parsed as Record<string, unknown>;
  if (root['format'] !== KEY_FILE_FORMAT) fail(source, 'format', JSON.stringify(KEY_FILE_FORMAT), root['format']);
  if (root['version'] !== KEY_FILE_VERSION) fail(source, 'version', String(KEY_FILE_VERSION), root['version']);
  const secret = root['secret'];
  // The secret itself never goes into a message.
  if (typeof secret !== 'string' || !HEX64.test(secret)) failText(source, 'secret', '64 lowercase hex digits', typeof secret === 'string' ? `a string of ${secret.length} characters` : typeof secret);
  if (!Array.isArray(root['keys'])) fail(source, 'keys', 'an array', root['keys']);
  const ids = new Set<string>();
  const hashes = new Set<string>();
  const keys = (root['keys'] as unknown[]).map((value, i): KeyRecord => {
    const where = `keys[${i}]`;
    if (typeof value !== 'object' || value === null) fail(source, where, 'an object', value);
    const record = value as Record<string, unknown>;
    const { id, hash, plan, name, created, expires, revoked } = record;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) fail(source, `${where}.id`, 'an id of letters, digits, _ or -', id);
    if (ids.has(id)) fail(source, `${where}.id`, 'a unique id', id);
    if (typeof hash !== 'string' || !HEX64.test(hash)) fail(source, `${where}.hash`, '64 lowercase hex digits', hash);
    if (hashes.has(hash)) fail(source, `${where}.hash`, 'a unique hash', hash);
    if (typeof plan !== 'string' || !(PLAN_NAMES as readonly string[]).includes(plan)) fail(source, `${where}.plan`, `one of ${PLAN_NAMES.join(', ')}`, plan);
    if (typeof name !== 'string') fail(source, `${where}.name`, 'a string', name);
    if (typeof created !== 'string' || !ISO_TIME.test(created)) fail(source, `${where}.created`, 'an ISO time (UTC)', created);
    if (expires !== null && (typeof expires !== 'string' || !ISO_TIME.test(expires))) fail(source, `${where}.expires`, 'null or an ISO time (UTC)', expires);
    if (typeof revoked !== 'boolean') fail(source, `${where}.revoked`, 'a boolean', revoked);
    ids.add(id);
    hashes.add(hash);
    return { id, hash, plan: plan as PlanName, name, created, expires: expires as string | null, revoked };
  });
  return { format: KEY_FILE_FORMAT, version: KEY_FILE_VERSION, secret, keys };
}

export function readKeyFile(file: string): KeyFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KeyFileError(`keys file ${file} does not exist; create it with: geoapi keys add --plan <plan> --file ${file}`);
    throw new KeyFileError(`cannot read keys file ${file}: ${(error as Error).message}`);
  }
  return parseKeyFile(text, file);
}

/** Writes the file atomically (temp file + rename, mode 0600) so a watching server never reads half a file. */
export function writeKeyFile(file: string, keyFile: KeyFile): void {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(keyFile, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

export function newKeyFile(): KeyFile {
  return { format: KEY_FILE_FORMAT, version: KEY_FILE_VERSION, secret: randomBytes(32).toString('hex'), keys: [] };
}

/** A new API key: `gk_` + 32 random bytes, base64url (43 characters). */
export function generateKey(): string {
  return `gk_${randomBytes(32).toString('base64url')}`;
}

export function hashKey(secret: string, key: string): string {
  return createHmac('sha256', Buffer.from(secret, 'hex')).update(key, 'utf8').digest('hex');
}

export interface NewKeyOptions {
  plan: PlanName;
  name?: string;
  expires?: Date | null;
  now?: Date;
}

/** Adds a key to `keyFile` (in place); returns the record and the plaintext key (shown once, never stored). */
export function addKey(keyFile: KeyFile, options: NewKeyOptions): { record: KeyRecord; key: string } {
  const ids = new Set(keyFile.keys.map((record) => record.id));
  let id: string;
  do id = `k_${randomBytes(6).toString('hex')}`;
  while (ids.has(id));
  const key = generateKey();
  const record: KeyRecord = {
    id,
    hash: hashKey(keyFile.secret, key),
    plan: options.plan,
    name: options.name ?? '',
    created: (options.now ?? new Date()).toISOString(),
    expires: options.expires ? options.expires.toISOString() : null,
    revoked: false,
  };
  keyFile.keys.push(record);
  return { record, key };
}

export function revokeKey(keyFile: KeyFile, id: string): KeyRecord {
  const record = keyFile.keys.find((candidate) => candidate.id === id);
  if (!record) throw new KeyFileError(`no key with id ${JSON.stringify(id)} (ids: ${keyFile.keys.map((k) => k.id).join(', ') || 'none'})`);
  record.revoked = true;
  return record;
}

export type KeyStatus = 'active' | 'expired' | 'revoked';

export function keyStatus(record: KeyRecord, now: Date): KeyStatus {
  if (record.revoked) return 'revoked';
  if (record.expires !== null && Date.parse(record.expires) <= now.getTime()) return 'expired';
  return 'active';
}

/**
 * Parses an expiry given on the command line: a date `YYYY-MM-DD` means the key works through
 * that day (UTC) and stops at its end; a full ISO time is used as given.
 */
export function parseExpiry(text: string): Date {
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (dateOnly) {
    const [, y, m, d] = dateOnly;
    const start = Date.UTC(Number(y), Number(m) - 1, Number(d));
    const check = new Date(start);
    if (check.getUTCFullYear() !== Number(y) || check.getUTCMonth() !== Number(m) - 1 || check.getUTCDate() !== Number(d)) {
      throw new KeyFileError(`--expires: ${text} is not a calendar date`);
    }
    return new Date(start + 86_400_000);
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return new Date(ms);
  }
  throw new KeyFileError(`--expires: expected a date YYYY-MM-DD or an ISO time with zone (2030-01-31T12:00:00Z), found ${JSON.stringify(text)}`);
}
