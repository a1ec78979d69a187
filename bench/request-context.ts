// The RequestContext of a handler called in process, without HTTP (the search, postcode and render
// benches): every feature granted, no headers, the caller's plan for the field tiers.
import { usageReportOf } from '../runtime/access/usage.js';
import type { Caller } from '../runtime/contract/index.js';
import { engineFor } from '../runtime/engine/index.js';
import type { RequestContext } from '../runtime/routes/types.js';
import type { Store } from '../runtime/store/types.js';

/** A Business caller: the Full tier everywhere. */
export const BUSINESS_CALLER: Caller = { keyId: 'bench', plan: 'business', tierName: 'business', tier: 'full', countryTier: 'full', rank: 4 };

export function benchContext(store: Store, query: Readonly<Record<string, string>>, options: { caller?: Caller; params?: Record<string, string> } = {}): RequestContext {
  const caller = options.caller ?? BUSINESS_CALLER;
  return {
    params: options.params ?? {},
    query: new Map(Object.entries(query)),
    header: () => undefined,
    caller,
    engine: engineFor(store),
    store,
    now: new Date(),
    requireFeature: () => {},
    hasFeature: () => true,
    usage: () => usageReportOf(caller.plan, undefined, Date.now()),
  };
}
