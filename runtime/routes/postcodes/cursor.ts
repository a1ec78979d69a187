// Postcode list cursors: signed tokens (../signed-token.ts) bound to the country, the normalised
// filters and the snapshot's dataVersion, carrying the last row served — rows are stable within
// one dataVersion, so the next page resumes right after it and a deep page costs what the first
// page costs.
import type { PostcodeFilters } from '../../engine/postcodes/engine.js';
import { naturalNumber, nullableString, SignedTokenCodec, type CursorSecrets, type TokenLayout } from '../signed-token.js';

export { CURSOR_MESSAGES, CURSOR_TTL_MS, CursorError, cursorSecretsFromEnv, type CursorFailure, type CursorSecrets } from '../signed-token.js';

const PAYLOAD_VERSION = 1;

export interface CursorState {
  /** Upper-case alpha-2 code. */
  country: string;
  dataVersion: string;
  filters: PostcodeFilters;
  /** Snapshot row of the last postcode served. */
  lastRow: number;
  issuedAtMs: number;
}

const CURSOR_LAYOUT: TokenLayout<CursorState> = {
  domain: 'geoapi.postcodes.cursor.v1\n',
  toFields: (state) => {
    const f = state.filters;
    return [PAYLOAD_VERSION, state.country, state.dataVersion, state.lastRow, state.issuedAtMs, f.q, f.stateCode, f.cityId, f.type];
  },
  fromFields: (value) => {
    if (value.length !== 9 || value[0] !== PAYLOAD_VERSION) return null;
    const [, country, dataVersion, lastRow, issuedAtMs, q, stateCode, cityId, type] = value;
    if (typeof country !== 'string' || typeof dataVersion !== 'string') return null;
    if (!naturalNumber(lastRow) || !naturalNumber(issuedAtMs)) return null;
    if (!nullableString(q) || !nullableString(stateCode) || !nullableString(type)) return null;
    if (cityId !== null && (!Number.isSafeInteger(cityId) || (cityId as number) < 1)) return null;
    return { country, dataVersion, lastRow, issuedAtMs, filters: { q, stateCode, cityId: cityId as number | null, type } };
  },
};

export class CursorCodec extends SignedTokenCodec<CursorState> {
  constructor(secrets: CursorSecrets) {
    super(secrets, CURSOR_LAYOUT);
  }
}
