import type { IdentityField } from '../../contract/identity.js';
import { USER_FIELDS, type UserField } from '../../contract/user-fields.js';

/**
 * The column each unique key is compared in (its values in identityKey's form): the field
 * table's `norm`, else its `column`.
 */
export const IDENTITY_COLUMNS = Object.fromEntries(
  USER_FIELDS.flatMap((f: UserField) => (f.identity ? [[f.name, f.norm ?? f.column]] : [])),
) as Record<IdentityField, string>;
