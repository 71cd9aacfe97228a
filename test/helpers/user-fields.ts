/**
 * What tests expect of the user-field table, derived from it (contract/user-fields.ts) by the
 * rules the docs state, so that a field added to the table changes these and no test's copy
 * (issue 43, item 4: a neutral new field broke 7 tests in 6 files that held their own).
 */
import {
  isCsvReadOnly,
  PROFILE_FIELDS,
  USER_FIELDS,
  type UserField,
} from '../../src/contract/user-fields.js';

const FIELDS = USER_FIELDS as readonly UserField[];

/** `users import --template`'s header: every field a CSV can write, in the table's order. */
export const TEMPLATE_HEADER = FIELDS.filter((f) => !isCsvReadOnly(f))
  .map((f) => f.name)
  .join(',');

/** An export's columns before the custom fields': every field the service answers, in order. */
export const EXPORT_COLUMNS = FIELDS.filter((f) => f.read !== undefined).map((f) => f.name);

/** Every named profile field unset: a v3 profile and a flat user hold each, null. */
export const UNSET_PROFILE: Record<string, null> = Object.fromEntries(
  PROFILE_FIELDS.map((f) => [f, null]),
);

/** The attributes of a SCIM extension (by its URN) that the table maps, in its order. */
export const extensionAttributes = (urn: string): string[] =>
  FIELDS.flatMap((f) => (f.scim?.startsWith(`${urn}:`) ? [f.scim.slice(urn.length + 1)] : []));
