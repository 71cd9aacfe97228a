import { startServer } from '../../helpers/server.js';
import { platformTypesSuite } from '../../suites/platform-types.suite.js';

platformTypesSuite(startServer);
