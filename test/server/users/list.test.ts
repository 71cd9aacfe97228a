import { startServer } from '../../helpers/server.js';
import { usersCursorSuite } from '../../suites/users-cursor.suite.js';
import { usersListSuite } from '../../suites/users-list.suite.js';

usersListSuite(startServer);
usersCursorSuite(startServer);
