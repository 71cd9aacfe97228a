/** The HTTP suites, unchanged, against the built CLI's `roster serve` in its own process. */
import { serve } from '../helpers/e2e.js';
import { authSuite } from '../suites/auth.suite.js';
import { negotiationSuite } from '../suites/negotiation.suite.js';
import { platformTypesSuite } from '../suites/platform-types.suite.js';
import { userLimitsSuite } from '../suites/user-limits.suite.js';
import { userStatesSuite } from '../suites/user-states.suite.js';
import { usersListSuite } from '../suites/users-list.suite.js';
import { usersRoutesSuite } from '../suites/users-routes.suite.js';

usersRoutesSuite(serve);
usersListSuite(serve);
authSuite(serve);
negotiationSuite(serve);
platformTypesSuite(serve);
userLimitsSuite(serve);
userStatesSuite(serve);
