/** How users print: default columns, the fields `--fields` may name, the view for a command. */
import type { UserV3 } from '../../../contract/user.js';
import { USER_FIELDS, type UserField } from '../../../contract/user-fields.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { getPath, parseFields } from '../../output/fields.js';
import { type Column, resolveFormat, type View, viewOf } from '../../output/render.js';
import { safeText } from '../../output/text-safe.js';

/** The top-level keys of a v3 user: the first segment of every `--fields` path. */
const USER_KEYS = [
  'id',
  'status',
  'role',
  'createdAt',
  'activatedAt',
  'externalId',
  'email',
  'userName',
  'config',
  'profile',
] as const;

/**
 * `--fields` names besides paths: each user field's name (the table's headers) for the path a
 * v3 user holds it at: `lastName` → `profile.lastName`, `email` → `email.value`.
 */
const USER_FIELD_NAMES = Object.fromEntries(
  USER_FIELDS.flatMap((f: UserField) => (f.read ? [[f.name, f.read]] : [])),
);

/** On a narrow terminal, what stays longest after the id: the address and status, then names. */
const KEEP: Partial<Record<string, number>> = { email: 2, firstName: 1, lastName: 1 };
/** What a person tells users apart by: cut last, and in the middle (table.ts). */
const IDENTIFIES = new Set(['email', 'userName', 'firstName', 'lastName']);

/** id, the fields the user-field table shows by default, and status. */
export const USER_COLUMNS: Column<UserV3>[] = [
  { header: 'id', value: (u) => u.id },
  ...USER_FIELDS.flatMap((f: UserField) =>
    f.shown && f.read
      ? [
          {
            header: f.name,
            keep: KEEP[f.name],
            identifies: IDENTIFIES.has(f.name),
            value: (u: UserV3) => getPath(u, f.read!),
          },
        ]
      : [],
  ),
  { header: 'status', keep: 2, value: (u) => u.status },
];

/** The view for a users command: `-o` resolved against the TTY, `--fields` checked. */
export function userView(
  globals: GlobalOptions,
  fields: string | undefined,
  deps: Deps,
  allow: { ids?: boolean } = {},
) {
  const paths = fields === undefined ? undefined : parseFields(fields, USER_KEYS, USER_FIELD_NAMES);
  return viewOf(resolveFormat(globals.output, deps.io, allow), USER_COLUMNS, paths);
}

export type UserView = View<UserV3>;

/** `Ann Smith <ann@example.com>`, or the id: how a user is named in notices. */
export function describeUser(u: UserV3): string {
  const name = safeText([u.profile.firstName, u.profile.lastName].filter(Boolean).join(' '));
  const address = safeText(u.email?.value ?? u.userName?.value ?? '');
  if (name && address) return `${name} <${address}>`;
  return name || address || safeText(u.id);
}
