import type { Operation } from '../types.js';
import { autocompleteOperation } from './autocomplete.js';
import { fuzzySearchOperation } from './fuzzy.js';
import { nearbySearchOperation } from './nearby.js';
import { reverseLookupOperation } from './reverse.js';

/** Autocomplete, fuzzy and nearby search, reverse lookup. */
export const searchOperations: Operation[] = [autocompleteOperation, fuzzySearchOperation, nearbySearchOperation, reverseLookupOperation];
