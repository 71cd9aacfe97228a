/** User rules: status on create and change, secrets, uniqueness answers, invitations. */
import { type IdentityField, identityKey } from '../../contract/identity.js';
import { customFieldsIssue } from '../../contract/limits.js';
import type { Page } from '../../contract/medium.js';
import { DEFAULT_LIMIT, type UserListQuery } from '../../contract/schemas.js';
import type { UserInput, UserRecord } from '../../contract/user.js';
import { UniqueViolationError } from '../../store/errors.js';
import { newObjectId } from '../../store/ids.js';
import type { Store } from '../../store/store.js';
import {
  type NewUserRow,
  PROFILE_COLUMNS,
  toRecord,
  type UserColumns,
  type UserRow,
  type UserView,
} from '../../store/types.js';
import { AppError } from '../errors.js';
import type { RequestScope } from '../http/state.js';
import { composeInvitation } from '../mail/invitation.js';
import { hashSecret } from './secrets.js';

/** The columns an input sets directly (no rules, no hashing). */
function plainColumns(input: UserInput): Partial<UserColumns> {
  const c: Partial<UserColumns> = {};
  // externalId is its own index, so it is kept in the form it is compared in (NFC).
  if (input.externalId !== undefined) {
    c.external_id = input.externalId === null ? null : identityKey('externalId', input.externalId);
  }
  if (input.email !== undefined) {
    c.email = input.email;
    c.email_norm = input.email === null ? null : identityKey('email', input.email);
  }
  if (input.userName !== undefined) {
    c.user_name = input.userName;
    c.user_name_norm = input.userName === null ? null : identityKey('userName', input.userName);
  }
  if (input.role !== undefined) c.role = input.role;
  if (input.locale !== undefined) c.locale = input.locale;
  if (input.gender !== undefined) c.gender = input.gender;
  if (input.avatar !== undefined)
    c.avatar = input.avatar === null ? null : JSON.stringify(input.avatar);
  for (const [field, value] of Object.entries(input.profile ?? {})) {
    (c as Record<string, unknown>)[PROFILE_COLUMNS[field as keyof typeof PROFILE_COLUMNS]] = value;
  }
  return c;
}

async function secretColumns(input: UserInput): Promise<Partial<UserColumns>> {
  const c: Partial<UserColumns> = {};
  if (input.secret !== undefined) c.secret_hash = await hashSecret(input.secret);
  if (input.recoveryCode === null) {
    c.recovery_hash = null;
    c.recovery_expires = null;
  } else if (input.recoveryCode !== undefined) {
    c.recovery_hash = await hashSecret(input.recoveryCode.plain);
    c.recovery_expires = input.recoveryCode.expires;
  }
  return c;
}

/** The custom fields after a change, as stored; 400 when the change grows them past the bounds. */
function mergeCustom(current: Record<string, string>, change: UserInput['custom']): string {
  const merged: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(change ?? {})) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  const issue = customFieldsIssue(current, merged);
  if (issue) throw new AppError('validation', `profile ${issue.message}`, [issue]);
  return JSON.stringify(merged);
}

function conflict(err: unknown, input: UserInput): never {
  if (err instanceof UniqueViolationError) {
    const value = { externalId: input.externalId, email: input.email, userName: input.userName }[
      err.field as 'externalId'
    ];
    throw new AppError(
      'conflict',
      `${err.field} '${value}' is already used by another user of this tenant`,
      [{ field: err.field, message: 'is already in use' }],
    );
  }
  throw err;
}

/**
 * The status an update leads to, or an error when the change is not possible (docs/decisions.md "Users":
 * the state machine). `activated` needs a secret, or an activation before.
 */
function nextStatus(row: UserRow, input: UserInput): Partial<UserColumns> {
  const now = new Date().toISOString();
  const hasSecret = row.secret_hash !== null || input.secret !== undefined;
  if (input.status === 'deactivated') {
    return row.status === 'deactivated' ? {} : { status: 'deactivated' };
  }
  const activate = input.status === 'activated' || (row.status === 'pending' && input.secret);
  if (!activate || row.status === 'activated') return {};
  // Someone who never signed up (never activated, no secret) returns to where they were.
  if (row.status === 'deactivated' && row.activated_at === null && !hasSecret) {
    return { status: 'pending' };
  }
  if (row.status === 'pending' && !hasSecret) {
    throw new AppError(
      'conflict',
      `user ${row.id} has not signed up yet; give them a secret (one-time password) to activate them`,
      [{ field: 'status', message: 'a pending user needs a secret to be activated' }],
    );
  }
  return { status: 'activated', activated_at: now };
}

/** A path's id or externalId, in the form externalIds are stored in (ids are ASCII). */
const byKey = (key: string) => identityKey('externalId', key);

/**
 * `invited` is told after a user and their invitation committed, so delivery starts at once
 * (it is in the outbox either way: see mail/delivery.ts).
 */
export function usersService(store: Store, invited: () => void) {
  const notFound = (scope: RequestScope, key: string) =>
    new AppError('notFound', `user '${key}' does not exist in branch '${scope.branch.name}'`);
  const find = async (scope: RequestScope, key: string): Promise<UserView> => {
    const row = await store.users.find(scope.branch.id, byKey(key));
    if (!row) throw notFound(scope, key);
    return row;
  };

  return {
    async list(scope: RequestScope, q: UserListQuery): Promise<Page<UserRecord>> {
      const limit = q.limit ?? DEFAULT_LIMIT;
      const offset = q.offset ?? 0;
      const { total, rows } = await store.users.list({
        branchId: scope.branch.id,
        statuses: q.status ?? ['activated'],
        query: q.query?.trim() || undefined,
        sort: q.sort ?? [
          { key: 'lastName', dir: 'ASC' },
          { key: 'firstName', dir: 'ASC' },
        ],
        limit,
        offset,
      });
      return { total, limit, offset, data: rows.map(toRecord) };
    },

    get: async (scope: RequestScope, key: string): Promise<UserRecord> =>
      toRecord(await find(scope, key)),

    /** A live user of the branch by one unique key's value (compared as identity.ts says). */
    async findBy(
      scope: RequestScope,
      field: IdentityField,
      value: string,
    ): Promise<UserRecord | undefined> {
      const key = identityKey(field, value);
      const row = await store.users.findBy(scope.tenant.id, scope.branch.id, field, key);
      return row && toRecord(row);
    },

    async create(scope: RequestScope, input: UserInput): Promise<UserRecord> {
      const secrets = await secretColumns(input);
      const now = new Date().toISOString();
      const activated = input.secret !== undefined;
      const base: NewUserRow = {
        id: newObjectId(),
        tenant_id: scope.tenant.id,
        branch_id: scope.branch.id,
        created_at: now,
        updated_at: now,
        status: activated ? 'activated' : 'pending',
        activated_at: activated ? now : null,
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
        custom: mergeCustom({}, input.custom),
        ...plainColumns(input),
        ...secrets,
      };
      const invitation =
        input.sendMail !== false && base.email
          ? composeInvitation({
              userId: base.id,
              email: base.email,
              firstName: base.first_name,
              tenantHost: scope.tenant.host,
            })
          : undefined;
      let row: UserRow;
      try {
        row = await store.users.insert(base, invitation);
      } catch (err) {
        conflict(err, input);
      }
      if (invitation) invited();
      return toRecord(row);
    },

    async update(scope: RequestScope, key: string, input: UserInput): Promise<UserRecord> {
      await find(scope, key); // 404 before the (slow) hashing
      const secrets = await secretColumns(input);
      let row: UserRow | undefined;
      try {
        // Read, decide and write as one store step: nothing else runs in between.
        row = await store.users.update(scope.branch.id, byKey(key), (current) => {
          const changes: Partial<UserColumns> = {
            ...plainColumns(input),
            ...secrets,
            ...nextStatus(current, input),
            updated_at: new Date().toISOString(),
          };
          if (input.custom) changes.custom = mergeCustom(JSON.parse(current.custom), input.custom);
          return changes;
        });
      } catch (err) {
        conflict(err, input);
      }
      if (!row) throw notFound(scope, key);
      return toRecord(row);
    },

    async remove(scope: RequestScope, key: string): Promise<void> {
      const removed = await store.reserve.whenFull(() =>
        store.users.update(scope.branch.id, byKey(key), () => ({
          status: 'deleted',
          updated_at: new Date().toISOString(),
        })),
      );
      if (!removed) throw notFound(scope, key);
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;
