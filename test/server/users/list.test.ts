import { startServer } from '../../helpers/server.js';
import { usersListSuite } from '../../suites/users-list.suite.js';

usersListSuite(startServer);
