// Operations module for the postcode server tests: only the postcode operations, so these tests
// depend on runtime/http, runtime/access and the postcode modules, not on every other route.
export { postcodeOperations as operations } from '../../../runtime/routes/postcodes/index.js';
