import type { Operation } from '../types.js';

/** Countries, states, cities, regions, subregions, currency, phone, ISO, timezone, data version. */
export const referenceOperations: Operation[] = [];
