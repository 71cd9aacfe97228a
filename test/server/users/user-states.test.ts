import { startServer } from '../../helpers/server.js';
import { userStatesSuite } from '../../suites/user-states.suite.js';

userStatesSuite(startServer);
