/**
 * What a migration the database refused says, on either backend: which one, the database's
 * reason, and that none of it stayed (each runs in its own transaction). Met upgrading a copy
 * whose next migration's indexes had been made by hand: the bare reason said neither that it was
 * a migration nor that the upgrade had stopped.
 */
export function migrationFailed(
  version: number,
  of: number,
  where: string,
  reason: string,
): string {
  return `migration ${version} of ${of} failed in the database ${where}: ${reason}; it was rolled back and the schema is still at version ${version - 1}: fix what the database reports, then start again`;
}
