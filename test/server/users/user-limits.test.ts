import { startServer } from '../../helpers/server.js';
import { userLimitsSuite } from '../../suites/user-limits.suite.js';

userLimitsSuite(startServer);
