/**
 * Who a user is: the keys unique among a tenant's users that are not deleted, and how two values
 * of one key are compared. The one rule for the server's uniqueness (the store's `*_norm`
 * columns and lookups by key), the import's snapshot, plan and apply, and SCIM.
 *
 * Every key is compared in Unicode NFC, so "é" typed as one code point or as "e" + a combining
 * accent is one value. externalId is otherwise case-exact (SCIM's `caseExact: true`: it is the
 * identity provider's key, and "E1" and "e1" may be two people there); email and userName
 * compare without case, as mail systems and logins do, and in NFKC: what renders alike in an
 * admin table or an IdP log is one login ("ａｎｎ" in fullwidth letters is "ann"). Invisible
 * format characters (Unicode Cf: a zero-width space, joiners, bidi marks) have no place in
 * either and are refused (`hasFormatChars`), not folded away: a stored name keeps no hidden
 * character. The value is stored as given (NFC); only its compared form is NFKC.
 */

import type { UserV3 } from './user.js';
import { IDENTITY_FIELDS, type IdentityField, USER_FIELDS, type UserField } from './user-fields.js';

// Which fields are keys, and how each compares, is the user-field table's (user-fields.ts).
export { IDENTITY_FIELDS, type IdentityField };

const CASE_EXACT = new Set(
  USER_FIELDS.filter((f: UserField) => f.identity === 'caseExact').map((f) => f.name as string),
);

export const isIdentityField = (field: string): field is IdentityField =>
  (IDENTITY_FIELDS as readonly string[]).includes(field);

/** Printable ASCII: NFC already (no ASCII character composes with another). */
const PRINTABLE_ASCII = /^[ -~]*$/;

/** The form in which a key's values are compared (and, for the server, indexed). */
export function identityKey(field: IdentityField, value: string): string {
  // normalize() costs, and the import keys every user of the branch and every row by this.
  if (PRINTABLE_ASCII.test(value)) return CASE_EXACT.has(field) ? value : value.toLowerCase();
  return CASE_EXACT.has(field) ? value.normalize('NFC') : value.normalize('NFKC').toLowerCase();
}

const FORMAT = /\p{Cf}/u;
/** Whether a login value holds an invisible format character (refused in email and userName). */
export const hasFormatChars = (value: string) => FORMAT.test(value);
export const FORMAT_MESSAGE =
  'must not contain invisible format characters (a zero-width space, a joiner, a bidi mark)';

/** Two values of a key that name the same user. */
export const sameIdentity = (field: IdentityField, a: string, b: string): boolean =>
  identityKey(field, a) === identityKey(field, b);

/**
 * Whether a user as the API answers it (v3) holds `key` in `field`: how a search's hits are
 * told from the one user a key names (a query for `an@x` also finds `joan@x`).
 */
export function carriesKey(
  user: Pick<UserV3, 'externalId' | 'email' | 'userName'>,
  field: IdentityField,
  key: string,
): boolean {
  const theirs = field === 'externalId' ? user.externalId : user[field]?.value;
  return typeof theirs === 'string' && sameIdentity(field, theirs, key);
}

/**
 * A user logs in with a userName, else with its email: the login name SCIM serves as its
 * `userName`. It is one of the keys, so no user's userName may be another's email-derived one
 * (the store's unique index on the same fallback keeps that under concurrent writes).
 */
export const loginName = (u: { email: string | null; userName: string | null }): string | null =>
  u.userName ?? u.email;

/** The create rule, held on every write: a user keeps an email or a userName to log in with. */
export const LOGIN_REQUIRED = { field: 'email', message: 'email or userName is required' } as const;
