// Signed `next_page_token`s of the change feed: the postcode cursors' machinery (same secrets,
// GEOAPI_CURSOR_SECRET / _PREVIOUS; same HMAC-SHA256 over base64url JSON; same 24 h lifetime and
// messages), with its own domain string so a token of one kind is never accepted as the other.
// The payload binds the token to the snapshot's dataVersion (a token from another version names
// events of another log: `invalid`) and to the normalised filters, and carries the last event served.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CURSOR_TTL_MS, CursorError, cursorSecretsFromEnv, type CursorSecrets } from '../postcodes/cursor.js';
import type { ChangeFilters } from '../../engine/changes/feed.js';

const DOMAIN = 'geoapi.changes.token.v1\n';
const PAYLOAD_VERSION = 1;
const CLOCK_SKEW_MS = 5 * 60 * 1000;
const MAX_TOKEN_CHARS = 2048;


export interface ChangeTokenState {
  dataVersion: string;
  filters: ChangeFilters;
  /** Log index of the last event served. */
  lastIndex: number;
  issuedAtMs: number;
}

export class ChangeTokenCodec {
  constructor(private readonly secrets: CursorSecrets = cursorSecretsFromEnv({})) {}

  encode(state: ChangeTokenState): string {
    const f = state.filters;
    const payload = Buffer.from(JSON.stringify([PAYLOAD_VERSION, state.dataVersion, state.lastIndex, state.issuedAtMs, f.startMs, f.placeType, f.countryCode, f.changeType])).toString('base64url');
    return `${payload}.${this.sign(this.secrets.current, payload).toString('base64url')}`;
  }

  /** Signature, then dataVersion and age; the caller compares filters. Throws CursorError. */
  decode(token: string, expect: { dataVersion: string; nowMs: number }): ChangeTokenState {
    if (token.length === 0 || token.length > MAX_TOKEN_CHARS) throw new CursorError('invalid');
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) throw new CursorError('invalid');
    const payload = token.slice(0, dot);
    const signatureText = token.slice(dot + 1);
    if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]{43}$/.test(signatureText)) throw new CursorError('invalid');
    const signature = Buffer.from(signatureText, 'base64url');
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

function parsePayload(payload: string): ChangeTokenState | null {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 8 || value[0] !== PAYLOAD_VERSION) return null;
  const [, dataVersion, lastIndex, issuedAtMs, startMs, placeType, countryCode, changeType] = value as unknown[];
  const nullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';
  if (typeof dataVersion !== 'string') return null;
  if (!Number.isSafeInteger(lastIndex) || (lastIndex as number) < 0) return null;
  if (!Number.isSafeInteger(issuedAtMs) || (issuedAtMs as number) < 0) return null;
  if (startMs !== null && !Number.isSafeInteger(startMs)) return null;
  if (!nullableString(placeType) || !nullableString(countryCode) || !nullableString(changeType)) return null;
  return { dataVersion, lastIndex: lastIndex as number, issuedAtMs: issuedAtMs as number, filters: { startMs: startMs as number | null, placeType, countryCode, changeType } };
}
