/** The media API suite against the in-process server. */
import { startServer } from '../../helpers/server.js';
import { mediaApiSuite } from './media-api.suite.js';

mediaApiSuite(startServer);
