import { newObjectId } from '../../src/store/ids.js';
import type { NewUserRow } from '../../src/store/types.js';

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
    id: newObjectId(),
    status: 'activated',
    role: null,
    external_id: null,
    email: null,
    email_norm: null,
    user_name: null,
    user_name_norm: null,
    secret_hash: null,
    recovery_hash: null,
    recovery_expires: null,
    locale: null,
    gender: null,
    first_name: null,
    last_name: null,
    public_email: null,
    phone: null,
    position: null,
    department: null,
    location: null,
    avatar: null,
    custom: '{}',
    created_at: now,
    updated_at: now,
    activated_at: now,
    ...overrides,
  };
}
