/** The old path of the e2e harness, kept for the tests that still import it from here. */
export { BIN, type Served, serve } from '../../helpers/e2e.js';
