import type { IdentityField } from '../../contract/identity.js';

/** The column each unique key is compared in (its values in identityKey's form). */
export const IDENTITY_COLUMNS: Record<
  IdentityField,
  'external_id' | 'email_norm' | 'user_name_norm'
> = {
  externalId: 'external_id',
  email: 'email_norm',
  userName: 'user_name_norm',
};
