/**
 * HTTP suites, unchanged, against the built CLI's `roster serve` in its own process: what the
 * entry point wires (store, auth, the users routes, and the process's own log, which must never
 * hold a token) is the app the in-process runs test. The other suites (negotiation, lists,
 * limits, states, platform types) test the service's rules, which do not depend on how the
 * process started; they run in-process on every backend.
 */
import { SECRET_HASH_COST } from '../../src/server/users/secrets.js';
import { serveProcess } from '../helpers/e2e.js';
import { authSuite } from '../suites/auth.suite.js';
import { usersRoutesSuite } from '../suites/users-routes.suite.js';

// `roster serve` hashes one-time passwords at the default cost (test servers at a lower one).
usersRoutesSuite(serveProcess, { secretHashCost: SECRET_HASH_COST });
authSuite(serveProcess);
