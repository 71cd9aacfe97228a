/**
 * The files of a SQLite store, apart from the driver, so checking for a data dir (local admin
 * commands) does not load better-sqlite3.
 */
export const DATABASE_FILE = 'roster.db';

/** The database and the files SQLite keeps beside it in WAL mode. */
export const DATABASE_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`];
