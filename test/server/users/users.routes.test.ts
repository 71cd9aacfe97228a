import { startServer, TEST_SECRET_HASH_COST } from '../../helpers/server.js';
import { usersRoutesSuite } from '../../suites/users-routes.suite.js';

usersRoutesSuite(startServer, { secretHashCost: TEST_SECRET_HASH_COST });
