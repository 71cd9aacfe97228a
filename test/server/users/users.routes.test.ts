import { startServer } from '../../helpers/server.js';
import { usersRoutesSuite } from '../../suites/users-routes.suite.js';

usersRoutesSuite(startServer);
