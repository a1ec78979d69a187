// Opaque, signed tokens for paging (postcode cursors, change-feed tokens).
// Token: base64url(JSON array payload) "." base64url(HMAC-SHA256(secret, domain + payload)).
// Each kind has its own domain string, so a token of one kind is never accepted as another. The
// payload always binds the snapshot's dataVersion (rows and events are stable within one version
// only) and the time it was issued (tokens expire after 24 hours). Verification accepts the
// current secret and any previous ones, so a secret can be rotated without breaking the tokens
// clients hold. The codec is given its secrets; where they come from is the caller's business.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;
/** Tokens issued this far in the future (clock skew between replicas) are still accepted. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;
const MAX_TOKEN_CHARS = 2048;

export const CURSOR_MESSAGES = {
  invalid: 'cursor is invalid or has been tampered with.',
  expired: 'cursor has expired. Start again without a cursor.',
  country: 'cursor belongs to a different country.',
  filters: 'cursor filters do not match this request.',
} as const;

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
 * GEOAPI_CURSOR_SECRET signs new tokens; GEOAPI_CURSOR_SECRET_PREVIOUS (optional, several
 * separated by commas) still verifies. Unset: a random secret per process, so tokens do not
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

/** What every token carries besides its own fields. */
export interface TokenState {
  dataVersion: string;
  issuedAtMs: number;
}

/** How one kind of token lays out its state as a JSON array (first element: its payload version). */
export interface TokenLayout<S extends TokenState> {
  /** HMAC domain separation, e.g. 'geoapi.postcodes.cursor.v1\n'. */
  domain: string;
  toFields(state: S): unknown[];
  /** The state, or null when the fields are not a well-formed payload of this kind. */
  fromFields(fields: unknown[]): S | null;
}

export class SignedTokenCodec<S extends TokenState> {
  constructor(
    private readonly secrets: CursorSecrets,
    private readonly layout: TokenLayout<S>,
  ) {}

  get ephemeral(): boolean {
    return this.secrets.ephemeral;
  }

  encode(state: S): string {
    const payload = Buffer.from(JSON.stringify(this.layout.toFields(state))).toString('base64url');
    return `${payload}.${this.sign(this.secrets.current, payload).toString('base64url')}`;
  }

  /**
   * Checks signature, dataVersion and age (in that order: nothing inside an unsigned token is
   * trusted). The caller then compares what else the token is bound to with the request.
   */
  decode(token: string, expect: { dataVersion: string; nowMs: number }): S {
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

    const state = this.parse(payload);
    if (state === null || state.dataVersion !== expect.dataVersion) throw new CursorError('invalid');
    if (state.issuedAtMs > expect.nowMs + CLOCK_SKEW_MS) throw new CursorError('invalid');
    if (expect.nowMs - state.issuedAtMs >= CURSOR_TTL_MS) throw new CursorError('expired');
    return state;
  }

  private parse(payload: string): S | null {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    return Array.isArray(value) ? this.layout.fromFields(value) : null;
  }

  private sign(key: Buffer, payload: string): Buffer {
    return createHmac('sha256', key).update(this.layout.domain).update(payload).digest();
  }
}

/** For payload checks: a string or null. */
export function nullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** For payload checks: a safe integer ≥ 0. */
export function naturalNumber(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
