/**
 * What a migration the database refused says, on either backend: which one, the database's
 * reason, and that none of it stayed (each runs in its own transaction). Met upgrading a copy
 * whose next migration's indexes had been made by hand: the bare reason said neither that it was
 * a migration nor that the upgrade had stopped.
 */
/** Told as each pending migration starts and ends (serve prints them: one may take a minute). */
export type MigrationLog = (line: string) => void;

/**
 * What a database at schema `current` tells as it migrates: an upgrade each step, a new
 * database (version 0: its schema is made in well under a second) nothing.
 */
export const upgradeLog = (current: number, log: MigrationLog = () => {}): MigrationLog =>
  current === 0 ? () => {} : log;

/** The line a migration starts with: which version of how many, and what it is for. */
export const migrationStarting = (version: number, of: number, why: string) =>
  `database: upgrading the schema to version ${version} of ${of}: ${why}…`;

/**
 * A long step's progress: how many of its rows are done (a step over every user at 1M runs for
 * tens of seconds, and an upgrade that says nothing for that long looks hung).
 */
export type MigrationProgress = (done: number, total: number) => void;

/** The line a migration's progress is told in. */
export const migrationProgress = (version: number, of: number, done: number, total: number) =>
  `database: schema version ${version} of ${of}: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows`;

/** The line it ends with, and how long it took. */
export const migrationDone = (version: number, of: number, ms: number) =>
  `database: schema version ${version} of ${of} in ${(ms / 1000).toFixed(1)} s`;

export function migrationFailed(
  version: number,
  of: number,
  where: string,
  reason: string,
): string {
  return `migration ${version} of ${of} failed in the database ${where}: ${reason}; it was rolled back and the schema is still at version ${version - 1}: fix what the database reports, then start again`;
}
