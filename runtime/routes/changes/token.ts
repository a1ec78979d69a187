// Signed `next_page_token`s of the change feed: the postcode cursors' machinery
// (../signed-token.ts: same secrets, same HMAC over base64url JSON, same 24 h lifetime and
// messages) with its own domain string. The payload binds the token to the snapshot's dataVersion
// (a token from another version names events of another log: `invalid`) and to the normalised
// filters, and carries the last event served.
import type { ChangeFilters } from '../../engine/changes/feed.js';
import { cursorSecretsFromEnv, naturalNumber, nullableString, SignedTokenCodec, type CursorSecrets, type TokenLayout } from '../signed-token.js';

const PAYLOAD_VERSION = 1;

export interface ChangeTokenState {
  dataVersion: string;
  filters: ChangeFilters;
  /** Log index of the last event served. */
  lastIndex: number;
  issuedAtMs: number;
}

const CHANGE_TOKEN_LAYOUT: TokenLayout<ChangeTokenState> = {
  domain: 'geoapi.changes.token.v1\n',
  toFields: (state) => {
    const f = state.filters;
    return [PAYLOAD_VERSION, state.dataVersion, state.lastIndex, state.issuedAtMs, f.startMs, f.placeType, f.countryCode, f.changeType];
  },
  fromFields: (value) => {
    if (value.length !== 8 || value[0] !== PAYLOAD_VERSION) return null;
    const [, dataVersion, lastIndex, issuedAtMs, startMs, placeType, countryCode, changeType] = value;
    if (typeof dataVersion !== 'string') return null;
    if (!naturalNumber(lastIndex) || !naturalNumber(issuedAtMs)) return null;
    if (startMs !== null && !Number.isSafeInteger(startMs)) return null;
    if (!nullableString(placeType) || !nullableString(countryCode) || !nullableString(changeType)) return null;
    return { dataVersion, lastIndex, issuedAtMs, filters: { startMs: startMs as number | null, placeType, countryCode, changeType } };
  },
};

export class ChangeTokenCodec extends SignedTokenCodec<ChangeTokenState> {
  constructor(secrets: CursorSecrets = cursorSecretsFromEnv({})) {
    super(secrets, CHANGE_TOKEN_LAYOUT);
  }
}
