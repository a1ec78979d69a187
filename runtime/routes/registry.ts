// Every operation the server exposes; runtime/http registers each path natively with uWS.
import { changeOperations } from './changes.js';
import { postcodeOperations } from './postcodes.js';
import { referenceOperations } from './reference/index.js';
import { searchOperations } from './search/index.js';
import type { Operation } from './types.js';

export function allOperations(): Operation[] {
  return [...referenceOperations, ...postcodeOperations, ...searchOperations, ...changeOperations];
}
