import { newObjectId } from '../../src/store/ids.js';
import { emptyUserRow, type NewUserRow } from '../../src/store/types.js';

let counter = 0;

/**
 * A user row as the store takes it: every column empty but the tenant and branch given, each
 * row created a second after the one before (so creation order is insertion order).
 */
export function userRow(
  overrides: Partial<NewUserRow> & Pick<NewUserRow, 'tenant_id' | 'branch_id'>,
): NewUserRow {
  const now = new Date(Date.UTC(2026, 0, 1, 0, 0, counter++)).toISOString();
  return {
    ...emptyUserRow({ id: newObjectId(), tenant_id: 0, branch_id: 0, created_at: now }),
    status: 'activated',
    activated_at: now,
    ...overrides,
  };
}
