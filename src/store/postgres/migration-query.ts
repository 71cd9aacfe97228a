/** How one script of a migration runs on PostgreSQL (db.ts and the declared migrations' code). */
import type pg from 'pg';

/** How long the client waits for one migration's statements (an index over 1M users: ~a minute). */
const MIGRATION_TIMEOUT_MS = 86_400_000;

/**
 * A migration may build an index over every user (1M: longer than a request may take): the
 * client's limit (pg's query_timeout) is a day for its statements; the server's is off for
 * its transaction (db.ts).
 */
export const migrationQuery = (client: Pick<pg.ClientBase, 'query'>, text: string) =>
  // pg reads query_timeout per query (client.js), though its types do not list it.
  client.query({ text, query_timeout: MIGRATION_TIMEOUT_MS } as pg.QueryConfig);
