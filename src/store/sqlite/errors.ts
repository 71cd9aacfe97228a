/** SQLite's unique-constraint errors, as the store's `UniqueViolationError`. */
import { UniqueViolationError } from '../errors.js';

const INDEX_FIELDS: Record<string, UniqueViolationError['field']> = {
  // SQLite names the columns of the violated index: "UNIQUE constraint failed: users.tenant_id, users.email_norm".
  'users.external_id': 'externalId',
  'users.email_norm': 'email',
  'users.user_name_norm': 'userName',
  // An index on an expression is named, not its columns: the login name (userName, else email).
  "index 'users_login'": 'userName',
  'tenants.host': 'host',
  'branches.tenant_id, branches.name': 'branch',
};

/** Turns SQLite's unique-constraint error into a `UniqueViolationError`; rethrows anything else. */
export function rethrowUnique(err: unknown): never {
  const e = err as { code?: string; message?: string };
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE') {
    for (const [index, field] of Object.entries(INDEX_FIELDS)) {
      if (e.message?.includes(index)) throw new UniqueViolationError(field);
    }
  }
  throw err;
}
