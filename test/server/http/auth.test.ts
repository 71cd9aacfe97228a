import { startServer } from '../../helpers/server.js';
import { authSuite } from '../../suites/auth.suite.js';

authSuite(startServer);
