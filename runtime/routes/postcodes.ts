import type { Operation } from './types.js';

/** Postcode exact lookup and cursor-paginated search. */
export const postcodeOperations: Operation[] = [];
