/**
 * The user's writable fields, a row each: the one table from which the import's columns (names,
 * order, header aliases), its bodies and comparisons, the CLI's `--set`/`--unset` keys, the named
 * profile fields and the identity rule's keys are derived. A field the service learns is a row
 * here (and, for the store, a migration).
 */

export interface UserField {
  /** Its name in the CLI (`--set NAME=…`), the import's columns and the template's header. */
  readonly name: string;
  /** Where a v3 request body carries it (a dotted path). */
  readonly body: string;
  /** Where a v3 user holds its value; absent: write-only, the service never answers it. */
  readonly read?: string;
  /** Its key in the flat (v1) representation; absent: that representation has none. */
  readonly flat?: string;
  /** A column of the CLI's user tables by default (`--fields` shows any). */
  readonly shown?: boolean;
  /**
   * A key unique among a tenant's users, and how its values compare (contract/identity.ts):
   * `caseExact` (an identity provider's key: "E1" and "e1" may be two people) or `caseless`
   * (mail systems and logins).
   */
  readonly identity?: 'caseExact' | 'caseless';
  /**
   * Other header spellings exports use for it, written as `normalizeHeader` leaves them (lower
   * case, without spaces, `_`, `-` and `.`).
   */
  readonly aliases?: readonly string[];
  /**
   * The store's column holding it (snake_case; a migration adds it). An identity field without
   * `norm` is stored in its compared form (identityKey); with `norm`, the column keeps the value
   * as given and `norm` holds the compared form the unique index is on. Absent: not stored as
   * given (a secret is hashed by the service).
   */
  readonly column?: string;
  readonly norm?: string;
  /**
   * Its SCIM 2.0 attribute (RFC 7643): a path, a multi-valued attribute's entry of one type
   * (`emails[type eq "work"].value`) or an extension's attribute after its URN; absent: SCIM
   * has none (server/scim derives its map from these).
   */
  readonly scim?: string;
  /**
   * Read-only in a CSV: the export writes its column (from `read`), and the import accepts the
   * column but never writes it back, saying this once. Such a field is none of the named profile
   * fields (its value is not a string).
   */
  readonly csvReadOnly?: string;
}

/** In template and export order. */
export const USER_FIELDS = [
  {
    name: 'externalId',
    column: 'external_id',
    shown: true,
    flat: 'externalID',
    body: 'externalId',
    read: 'externalId',
    scim: 'externalId',
    identity: 'caseExact',
    aliases: [
      'identifier',
      'externalidentifier',
      'employeeid',
      'employeenumber',
      'employee#',
      'personnelnumber',
      'personalnummer',
      'staffid',
    ],
  },
  {
    name: 'email',
    column: 'email',
    norm: 'email_norm',
    shown: true,
    flat: 'email',
    body: 'email',
    read: 'email.value',
    scim: 'emails[type eq "work"].value',
    identity: 'caseless',
    aliases: ['emailaddress', 'mail', 'workemail'],
  },
  {
    name: 'userName',
    column: 'user_name',
    norm: 'user_name_norm',
    shown: true,
    flat: 'userName',
    body: 'userName',
    read: 'userName.value',
    scim: 'userName',
    identity: 'caseless',
    aliases: ['login', 'loginname'],
  },
  {
    name: 'firstName',
    column: 'first_name',
    shown: true,
    flat: 'firstName',
    body: 'profile.firstName',
    read: 'profile.firstName',
    scim: 'name.givenName',
    aliases: ['givenname', 'forename', 'vorname'],
  },
  {
    name: 'lastName',
    column: 'last_name',
    shown: true,
    flat: 'lastName',
    body: 'profile.lastName',
    read: 'profile.lastName',
    scim: 'name.familyName',
    aliases: ['surname', 'familyname', 'nachname'],
  },
  { name: 'role', shown: true, flat: 'role', body: 'role', read: 'role', column: 'role' },
  {
    name: 'locale',
    column: 'locale',
    body: 'config.locale',
    read: 'config.locale',
    scim: 'locale',
    aliases: ['configlocale', 'language', 'sprache'],
  },
  {
    name: 'position',
    column: 'position',
    flat: 'position',
    body: 'profile.position',
    read: 'profile.position',
    scim: 'title',
    aliases: ['jobtitle'],
  },
  {
    name: 'department',
    column: 'department',
    flat: 'department',
    body: 'profile.department',
    read: 'profile.department',
    scim: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
    aliases: ['dept', 'abteilung'],
  },
  {
    name: 'location',
    column: 'location',
    flat: 'location',
    body: 'profile.location',
    read: 'profile.location',
    scim: 'addresses[type eq "work"].locality',
    aliases: ['office', 'officelocation', 'standort', 'büro'],
  },
  {
    name: 'phoneNumber',
    column: 'phone',
    flat: 'phoneNumber',
    body: 'profile.phoneNumber',
    read: 'profile.phoneNumber',
    scim: 'phoneNumbers[type eq "mobile"].value',
    aliases: [
      'phone',
      'telephone',
      'telephonenumber',
      'workphone',
      'officephone',
      'telefon',
      'mobile',
      'mobilephone',
      'mobiltelefon',
    ],
  },
  {
    name: 'publicEmailAddress',
    column: 'public_email',
    flat: 'publicEmailAddress',
    body: 'profile.publicEmailAddress',
    read: 'profile.publicEmailAddress',
    scim: 'emails[type eq "public"].value',
    aliases: ['publicemail'],
  },
  {
    name: 'secret',
    flat: 'secret',
    body: 'secret',
    scim: 'password',
    aliases: ['password', 'initialpassword'],
  },
  { name: 'recoveryCode', body: 'recoveryCode.plain' },
  {
    // The original image's URL (on serve a signed one, valid a day): to look at, not to write.
    name: 'avatar',
    body: 'profile.avatar',
    read: 'profile.avatar.original.url',
    csvReadOnly:
      'avatars are made from photos (roster users import --photos DIR, or roster users avatar set/sync), not from URLs',
  },
] as const satisfies readonly UserField[];

type Row = (typeof USER_FIELDS)[number];
export type UserFieldName = Row['name'];
/** The keys that say who a user is. */
export type IdentityField = Extract<Row, { identity: string }>['name'];
/** The named profile fields (`profile.<name>`); any other key there is a custom field id. */
export type ProfileField = Extract<
  Exclude<Row, { csvReadOnly: string }>,
  { body: `profile.${string}` }
>['name'];

/** A store column a field's value is kept in (see `column`). */
export type FieldColumn = Extract<Row, { column: string }>['column'];
/** A store column holding an identity field's compared form (see `norm`). */
export type NormColumn = Extract<Row, { norm: string }>['norm'];
/** A field the store keeps in a column of its own. */
export type StoredField = UserField & { readonly column: FieldColumn; readonly norm?: NormColumn };

export const STORED_FIELDS = (USER_FIELDS as readonly UserField[]).filter(
  (f): f is StoredField => f.column !== undefined,
);

const PROFILE = 'profile.';

/** A named profile field (kept under `profile` in a record and a v3 body). */
export const isProfileField = (f: UserField): boolean => f.body.startsWith(PROFILE);

/** Read-only in a CSV (see `csvReadOnly`). */
export const isCsvReadOnly = (f: UserField): boolean => f.csvReadOnly !== undefined;

export const PROFILE_FIELDS = USER_FIELDS.flatMap((f: UserField) =>
  isProfileField(f) && !isCsvReadOnly(f) ? [f.name as ProfileField] : [],
);

export const IDENTITY_FIELDS = USER_FIELDS.flatMap((f) =>
  'identity' in f ? [f.name as IdentityField] : [],
);

const BY_NAME: ReadonlyMap<string, UserField> = new Map(USER_FIELDS.map((f) => [f.name, f]));

/** The row of a field name, or undefined for a name that is not a named field. */
export const userField = (name: string): UserField | undefined => BY_NAME.get(name);

const BY_BODY: ReadonlyMap<string, UserField> = new Map(USER_FIELDS.map((f) => [f.body, f]));

/** The field a v3 body path sets (`config.locale` → locale), or undefined. */
export const fieldAt = (bodyPath: string): UserFieldName | undefined =>
  BY_BODY.get(bodyPath)?.name as UserFieldName | undefined;

/** Sets `value` at a dotted path of a body, making the objects on the way (a copy of each). */
export function withValueAt(
  body: Record<string, unknown>,
  path: string,
  value: unknown,
): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  if (rest.length === 0) return { ...body, [head!]: value };
  const inner = body[head!];
  const object =
    inner !== null && typeof inner === 'object' ? (inner as Record<string, unknown>) : {};
  return { ...body, [head!]: withValueAt(object, rest.join('.'), value) };
}

/** Write-only: the service never answers it, so it is sent on create and never compared. */
export const isWriteOnly = (f: UserField): boolean => f.read === undefined;

/** Every name a unique key goes by in a request or an error's details (v3 paths and flat names). */
export const IDENTITY_NAMES: ReadonlySet<string> = new Set(
  USER_FIELDS.flatMap((f: UserField) => (f.identity ? [f.name, f.body, f.flat ?? f.name] : [])),
);

/** Every key `profile` holds a named field under (the avatar too), lower-cased. */
const NAMED_PROFILE_KEYS: ReadonlySet<string> = new Set(
  USER_FIELDS.flatMap((f: UserField) =>
    isProfileField(f) ? [f.body.slice(PROFILE.length).toLowerCase()] : [],
  ),
);

/**
 * Whether a key of `profile` is a named field's, in any case: such a key is never a custom
 * field id ("firstname" is a typo of one, refused on write).
 */
export const namesProfileField = (key: string): boolean =>
  NAMED_PROFILE_KEYS.has(key.toLowerCase());

/**
 * A user's custom fields as read: none that a named field's key has taken. A field promoted
 * from custom to named moves its values in its migration (store moveCustomField); one left in
 * `custom` after that (a key spelled in another case, a write the migration raced) would
 * otherwise shadow the named field, whose column is what every write changes.
 */
export function customFields(stored: Record<string, string>): Record<string, string> {
  const keys = Object.keys(stored);
  if (!keys.some(namesProfileField)) return stored;
  return Object.fromEntries(keys.filter((k) => !namesProfileField(k)).map((k) => [k, stored[k]!]));
}
