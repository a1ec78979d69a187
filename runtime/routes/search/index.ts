import type { Operation } from '../types.js';

/** Autocomplete, fuzzy and nearby search. */
export const searchOperations: Operation[] = [];
