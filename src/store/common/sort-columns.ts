import type { SortKey } from '../../contract/user.js';

/**
 * Sort keys as the columns to order by, for both backends. Names sort case-insensitively, which
 * each spells its own way (SQLite: COLLATE NOCASE; PostgreSQL: stored folded columns, schema.ts).
 */
export function sortColumns(names: {
  firstName: string;
  lastName: string;
}): Record<SortKey, string> {
  return {
    ...names,
    createdAt: 'created_at',
    email: 'email_norm',
    externalId: 'external_id',
    status: 'status',
  };
}
