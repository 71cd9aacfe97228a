/** The old path of the e2e harness (test/helpers/e2e.ts), kept for the tests that still import it. */
export {
  BIN,
  type Env,
  type RunResult,
  roster,
  type Served,
  serve,
} from '../../helpers/e2e.js';
export { EMPTY_PAGE, sendJson } from '../../helpers/fake-server.js';
