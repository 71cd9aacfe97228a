/** How users print: default columns, the fields `--fields` may name, the view for a command. */
import type { UserV3 } from '../../../contract/user.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { parseFields } from '../../output/fields.js';
import { type Column, resolveFormat, type View, viewOf } from '../../output/render.js';

/** The top-level keys of a v3 user: the first segment of every `--fields` path. */
export const USER_FIELDS = [
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

export const USER_COLUMNS: Column<UserV3>[] = [
  { header: 'id', value: (u) => u.id },
  { header: 'externalId', value: (u) => u.externalId },
  { header: 'email', value: (u) => u.email?.value },
  { header: 'userName', value: (u) => u.userName?.value },
  { header: 'firstName', value: (u) => u.profile.firstName },
  { header: 'lastName', value: (u) => u.profile.lastName },
  { header: 'role', value: (u) => u.role },
  { header: 'status', value: (u) => u.status },
];

/** The view for a users command: `-o` resolved against the TTY, `--fields` checked. */
export function userView(globals: GlobalOptions, fields: string | undefined, deps: Deps) {
  const paths = fields === undefined ? undefined : parseFields(fields, USER_FIELDS);
  return viewOf(resolveFormat(globals.output, deps.io), USER_COLUMNS, paths);
}

export type UserView = View<UserV3>;

/** `Ann Smith <ann@example.com>`, or the id: how a user is named in notices. */
export function describeUser(u: UserV3): string {
  const name = [u.profile.firstName, u.profile.lastName].filter(Boolean).join(' ');
  const address = u.email?.value ?? u.userName?.value;
  if (name && address) return `${name} <${address}>`;
  return name || address || u.id;
}
