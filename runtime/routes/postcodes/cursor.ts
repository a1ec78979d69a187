// Opaque, signed pagination cursors for the postcode list.
// Token: base64url(JSON payload) "." base64url(HMAC-SHA256(secret, domain + payload)).
// The payload binds the cursor to the country, the normalised filters and the snapshot's
// dataVersion, and carries the last row served (rows are stable within one dataVersion, so the
// next page resumes right after it: a deep page costs what the first page costs) and the time it
// was issued (cursors expire after 24 hours). Verification accepts the current secret and any
// previous ones, so a secret can be rotated without breaking the cursors clients hold.
// The codec is given its secrets (CursorSecrets); where they come from is the caller's business.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PostcodeFilters } from '../../engine/postcodes/engine.js';

export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;
/** Cursors issued this far in the future (clock skew between replicas) are still accepted. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;
const PAYLOAD_VERSION = 1;
const DOMAIN = 'geoapi.postcodes.cursor.v1\n';
const MAX_TOKEN_CHARS = 2048;

export const CURSOR_MESSAGES = {
  invalid: 'cursor is invalid or has been tampered with.',
  expired: 'cursor has expired. Start again without a cursor.',
  country: 'cursor belongs to a different country.',
  filters: 'cursor filters do not match this request.',
} as const;

export interface CursorState {
  /** Upper-case alpha-2 code. */
  country: string;
  dataVersion: string;
  filters: PostcodeFilters;
  /** Snapshot row of the last postcode served. */
  lastRow: number;
  issuedAtMs: number;
}

export type CursorFailure = keyof typeof CURSOR_MESSAGES;

export class CursorError extends Error {
  constructor(readonly reason: CursorFailure) {
    super(CURSOR_MESSAGES[reason]);
    this.name = 'CursorError';
  }
}

export interface CursorSecrets {
  current: Buffer;
  previous: Buffer[];
  /** True when no secret was configured and a random one was generated at start. */
  ephemeral: boolean;
}

/**
 * GEOAPI_CURSOR_SECRET signs new cursors; GEOAPI_CURSOR_SECRET_PREVIOUS (optional, several
 * separated by commas) still verifies. Unset: a random secret per process, so cursors do not
 * survive a restart and are not accepted by other replicas.
 */
export function cursorSecretsFromEnv(env: Readonly<Record<string, string | undefined>>): CursorSecrets {
  const current = env['GEOAPI_CURSOR_SECRET'];
  const previous = (env['GEOAPI_CURSOR_SECRET_PREVIOUS'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => Buffer.from(s, 'utf8'));
  if (current === undefined || current.trim() === '') {
    return { current: randomBytes(32), previous, ephemeral: true };
  }
  return { current: Buffer.from(current.trim(), 'utf8'), previous, ephemeral: false };
}

function encodeBase64url(bytes: Buffer | string): string {
  return Buffer.from(bytes).toString('base64url');
}

export class CursorCodec {
  constructor(private readonly secrets: CursorSecrets) {}

  get ephemeral(): boolean {
    return this.secrets.ephemeral;
  }

  encode(state: CursorState): string {
    const f = state.filters;
    const payload = encodeBase64url(
      JSON.stringify([PAYLOAD_VERSION, state.country, state.dataVersion, state.lastRow, state.issuedAtMs, f.q, f.stateCode, f.cityId, f.type]),
    );
    return `${payload}.${this.sign(this.secrets.current, payload).toString('base64url')}`;
  }

  /**
   * Checks signature, dataVersion and age (in that order: nothing inside an unsigned token is
   * trusted). The caller then compares country and filters with the request.
   */
  decode(token: string, expect: { dataVersion: string; nowMs: number }): CursorState {
    if (token.length === 0 || token.length > MAX_TOKEN_CHARS) throw new CursorError('invalid');
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) throw new CursorError('invalid');
    const payload = token.slice(0, dot);
    const signatureText = token.slice(dot + 1);
    if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]{43}$/.test(signatureText)) throw new CursorError('invalid');
    const signature = Buffer.from(signatureText, 'base64url');
    // Re-encoding must give the same text: refuses alternative spellings of the same bytes.
    if (signature.toString('base64url') !== signatureText) throw new CursorError('invalid');
    const keys = [this.secrets.current, ...this.secrets.previous];
    if (!keys.some((key) => timingSafeEqual(this.sign(key, payload), signature))) throw new CursorError('invalid');

    const state = parsePayload(payload);
    if (state === null || state.dataVersion !== expect.dataVersion) throw new CursorError('invalid');
    if (state.issuedAtMs > expect.nowMs + CLOCK_SKEW_MS) throw new CursorError('invalid');
    if (expect.nowMs - state.issuedAtMs >= CURSOR_TTL_MS) throw new CursorError('expired');
    return state;
  }

  private sign(key: Buffer, payload: string): Buffer {
    return createHmac('sha256', key).update(DOMAIN).update(payload).digest();
  }
}

function parsePayload(payload: string): CursorState | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 9 || value[0] !== PAYLOAD_VERSION) return null;
  const [, country, dataVersion, lastRow, issuedAtMs, q, stateCode, cityId, type] = value as unknown[];
  const nullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';
  if (typeof country !== 'string' || typeof dataVersion !== 'string') return null;
  if (!Number.isSafeInteger(lastRow) || (lastRow as number) < 0) return null;
  if (!Number.isSafeInteger(issuedAtMs) || (issuedAtMs as number) < 0) return null;
  if (!nullableString(q) || !nullableString(stateCode) || !nullableString(type)) return null;
  if (cityId !== null && (!Number.isSafeInteger(cityId) || (cityId as number) < 1)) return null;
  return {
    country,
    dataVersion,
    lastRow: lastRow as number,
    issuedAtMs: issuedAtMs as number,
    filters: { q, stateCode, cityId: cityId as number | null, type },
  };
}
