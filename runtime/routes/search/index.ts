import type { Operation } from '../types.js';
import { autocompleteOperation } from './autocomplete.js';
import { fuzzySearchOperation } from './fuzzy.js';
import { nearbySearchOperation } from './nearby.js';

/** Autocomplete, fuzzy and nearby search. */
export const searchOperations: Operation[] = [autocompleteOperation, fuzzySearchOperation, nearbySearchOperation];
