/** User rules: status on create and change, secrets, uniqueness answers, invitations. */
import { identityKey, LOGIN_REQUIRED, loginName } from '../../contract/identity.js';
import { customFieldsIssue } from '../../contract/limits.js';
import type { Page } from '../../contract/medium.js';
import { keyedRecord } from '../../contract/safe-keys.js';
import { DEFAULT_LIMIT, type UserListQuery } from '../../contract/schemas.js';
import { storedForm } from '../../contract/stored-form.js';
import {
  type ProfileField,
  sendsInvitation,
  type UserInput,
  type UserRecord,
} from '../../contract/user.js';
import {
  type IdentityField,
  isProfileField,
  STORED_FIELDS,
  type StoredField,
} from '../../contract/user-fields.js';
import { UniqueViolationError } from '../../store/errors.js';
import { newObjectId } from '../../store/ids.js';
import type { Store } from '../../store/store.js';
import {
  emptyUserRow,
  type ListFilter,
  type NewUserRow,
  toRecord,
  type UserColumns,
  type UserRow,
  type UserView,
} from '../../store/types.js';
import { AppError, validationError } from '../errors.js';
import type { VersionCheck } from '../http/etag.js';
import type { RequestScope } from '../http/state.js';
import { composeInvitation } from '../mail/invitation.js';
import type { ListCursors } from './list-cursor.js';
import { hashSecret } from './secrets.js';

/** An input's value of a field: absent = unchanged, null = clear. */
function inputValue(input: UserInput, f: StoredField): string | null | undefined {
  if (isProfileField(f)) return input.profile?.[f.name as ProfileField];
  return input[f.name as keyof UserInput] as string | null | undefined;
}

/** The columns an input sets directly (no rules, no hashing), as the user-field table stores them. */
function plainColumns(input: UserInput): Partial<UserColumns> {
  const c: Record<string, unknown> = {};
  for (const f of STORED_FIELDS) {
    const value = inputValue(input, f);
    if (value === undefined) continue;
    const key = value === null || !f.identity ? value : identityKey(f.name as IdentityField, value);
    // A key with a `norm` column keeps its value as given (an email's domain in lower case:
    // contract/stored-form.ts) beside the form it is indexed in;
    // one without (externalId) is stored in the form it is compared in.
    if (f.norm) {
      c[f.column] = value === null ? null : storedForm(f.name, value);
      c[f.norm] = key;
    } else c[f.column] = key;
  }
  if (input.gender !== undefined) c.gender = input.gender;
  if (input.avatar !== undefined)
    c.avatar = input.avatar === null ? null : JSON.stringify(input.avatar);
  return c as Partial<UserColumns>;
}

async function secretColumns(input: UserInput, cost?: number): Promise<Partial<UserColumns>> {
  const c: Partial<UserColumns> = {};
  if (input.secret !== undefined) c.secret_hash = await hashSecret(input.secret, cost);
  if (input.recoveryCode === null) {
    c.recovery_hash = null;
    c.recovery_expires = null;
  } else if (input.recoveryCode !== undefined) {
    c.recovery_hash = await hashSecret(input.recoveryCode.plain, cost);
    c.recovery_expires = input.recoveryCode.expires;
  }
  return c;
}

/** The custom fields after a change, as stored; 400 when the change grows them past the bounds. */
function mergeCustom(current: Record<string, string>, change: UserInput['custom']): string {
  const merged = Object.assign(keyedRecord<string>(), current);
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
    const field = STORED_FIELDS.find((f) => f.name === err.field);
    const value = field && inputValue(input, field);
    if (err.field === 'userName' && value == null && input.email) {
      // The login-name index (contract/identity.ts loginName): no userName given, the email is it.
      throw new AppError(
        'conflict',
        `email '${input.email}' is the userName of another user of this tenant, and a user without a userName logs in with its email: give this one a userName`,
        [{ field: 'email', message: 'is already in use as a userName' }],
      );
    }
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

/**
 * The create rule on every write (contract/identity.ts): a change that clears the user's email
 * or userName must leave the other. Checked in the store step, on the row it changes.
 */
function checkLogin(row: UserRow, changes: Partial<UserColumns>) {
  if (!('email' in changes) && !('user_name' in changes)) return;
  const after = {
    email: 'email' in changes ? (changes.email ?? null) : row.email,
    userName: 'user_name' in changes ? (changes.user_name ?? null) : row.user_name,
  };
  if (loginName(after) !== null) return;
  throw new AppError(
    'validation',
    `user ${row.id} would have neither an email nor a userName to log in with: keep one of them`,
    [{ ...LOGIN_REQUIRED }],
  );
}

/** Whether an input carries a secret to hash (slow: never inside a store step). */
const hashes = (input: UserInput) =>
  input.secret !== undefined || (input.recoveryCode ?? null) !== null;

/** Thrown out of a store step whose derived change turned out to need hashing first. */
class NeedsHashing extends Error {}

/** Checked inside the store's step, so no other write slips between the check and the change. */
function checkVersion(row: UserRow, ifMatch: VersionCheck | undefined) {
  if (ifMatch && !ifMatch(row.version)) {
    throw new AppError(
      'preconditionFailed',
      `user ${row.id} has changed (it is at version ${row.version}); read it again and retry with its ETag`,
    );
  }
}

/** A path's id or externalId, in the form externalIds are stored in (ids are ASCII). */
const byKey = (key: string) => identityKey('externalId', key);

export interface UsersServiceOptions {
  /**
   * Told after a user and their invitation committed, so delivery starts at once (it is in the
   * outbox either way: see mail/delivery.ts).
   */
  invited: () => void;
  /**
   * A search's total is counted up to this many matches, then answered as that bound with
   * `totalExact: false` (SEARCH_COUNT_UP_TO); undefined: always exact (as the platform).
   */
  countUpTo?: number;
  /** scrypt's cost for one-time passwords and recovery codes; default SECRET_HASH_COST. */
  secretHashCost?: number;
  /** The list cursors' codec, keyed with the store's secret (list-cursor.ts). */
  cursors: ListCursors;
  /**
   * Cleans up after a user is removed (its avatar's media, avatars.ts), once it is gone: a
   * failure there leaves the media, not the user. Every channel removes through `remove`.
   */
  removed?: (scope: RequestScope, user: UserRecord) => Promise<void>;
}

export function usersService(
  store: Store,
  { invited, countUpTo, secretHashCost, cursors, removed }: UsersServiceOptions,
) {
  const hashed = (input: UserInput) => secretColumns(input, secretHashCost);
  const notFound = (scope: RequestScope, key: string) =>
    new AppError('notFound', `user '${key}' does not exist in branch '${scope.branch.name}'`);
  // Promise chains, not async functions: a GET by id passes through both on every request.
  const find = (scope: RequestScope, key: string): Promise<UserView> =>
    store.users.find(scope.branch.id, byKey(key)).then((row) => {
      if (!row) throw notFound(scope, key);
      return row;
    });

  /**
   * The store step of an update: reads the user, checks its version, derives the input from it
   * and writes the columns that input changes (none: nothing is written).
   */
  async function write(
    scope: RequestScope,
    key: string,
    derive: (current: UserRecord) => UserInput,
    ifMatch: VersionCheck | undefined,
    secrets: Partial<UserColumns>,
  ): Promise<UserRecord> {
    let input: UserInput = {};
    let row: UserRow | undefined;
    let wasPending = false;
    try {
      // Read, decide and write as one store step: nothing else runs in between.
      row = await store.users.update(
        scope.branch.id,
        byKey(key),
        (current) => {
          checkVersion(current, ifMatch);
          input = derive(toRecord(current));
          if (Object.keys(input).length === 0) return {};
          wasPending = current.status === 'pending';
          const changes: Partial<UserColumns> = {
            ...plainColumns(input),
            ...secrets,
            ...nextStatus(current, input),
            updated_at: new Date().toISOString(),
            version: current.version + 1,
          };
          if (input.custom) changes.custom = mergeCustom(JSON.parse(current.custom), input.custom);
          checkLogin(current, changes);
          return changes;
        },
        scope.audit,
      );
    } catch (err) {
      conflict(err, input);
    }
    if (!row) throw notFound(scope, key);
    // Deactivated before they signed up: the invitation still waiting is not sent.
    if (wasPending && row.status === 'deactivated') await store.outbox.cancelInvitation(row.id);
    return toRecord(row);
  }

  return {
    async list(scope: RequestScope, q: UserListQuery): Promise<Page<UserRecord>> {
      if (q.after !== undefined && q.offset !== undefined) {
        throw validationError([
          {
            field: 'after',
            message: 'cannot be combined with offset: a cursor says where to start',
          },
        ]);
      }
      const limit = q.limit ?? DEFAULT_LIMIT;
      const offset = q.offset ?? 0;
      const list = {
        branchId: scope.branch.id,
        statuses: q.status ?? ['activated'],
        query: q.query?.trim() || undefined,
        sort: q.sort ?? [
          { key: 'lastName', dir: 'ASC' },
          { key: 'firstName', dir: 'ASC' },
        ],
      } satisfies Partial<ListFilter>;
      const after = q.after === undefined ? undefined : cursors.decode(list, q.after);
      const { total, totalExact, rows, next } = await store.users.list({
        ...list,
        limit,
        offset,
        after,
        countUpTo,
      });
      const page = {
        total,
        ...(totalExact === false ? { totalExact } : {}),
        limit,
        offset,
        data: rows.map(toRecord),
      };
      return next ? { ...page, next: cursors.encode(list, next) } : page;
    },

    get: (scope: RequestScope, key: string): Promise<UserRecord> => find(scope, key).then(toRecord),

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
      const secrets = await hashed(input);
      const now = new Date().toISOString();
      const activated = input.secret !== undefined;
      const base: NewUserRow = {
        ...emptyUserRow({
          id: newObjectId(),
          tenant_id: scope.tenant.id,
          branch_id: scope.branch.id,
          created_at: now,
        }),
        status: activated ? 'activated' : 'pending',
        activated_at: activated ? now : null,
        custom: mergeCustom({}, input.custom),
        ...plainColumns(input),
        ...secrets,
      };
      // No invitation to one created activated with a secret: it has no sign-up to do.
      const invitation =
        base.email && sendsInvitation(input)
          ? composeInvitation({
              userId: base.id,
              email: base.email,
              firstName: base.first_name,
              tenantHost: scope.tenant.host,
            })
          : undefined;
      let row: UserRow;
      try {
        row = await store.users.insert(base, scope.audit, invitation);
      } catch (err) {
        conflict(err, input);
      }
      if (invitation) invited();
      return toRecord(row);
    },

    /** `ifMatch`: the change applies only to a user whose version it accepts (else 412). */
    async update(
      scope: RequestScope,
      key: string,
      input: UserInput,
      ifMatch?: VersionCheck,
    ): Promise<UserRecord> {
      // An unknown user is a 404 before the (slow) hashing; without a secret to hash, the store
      // step's own read answers that, and an update costs one read fewer.
      if (hashes(input)) await find(scope, key);
      return write(scope, key, () => input, ifMatch, await hashed(input));
    },

    /**
     * Updates a user with the change `derive` makes from it, read and written as one store step:
     * a change relative to the user (a SCIM PATCH or PUT) costs one read, and nothing written
     * meanwhile is lost. A change that sets a secret is derived first, hashed, and then written
     * only to the version it was derived from (else 412): hashing cannot wait inside the step.
     */
    async updateWith(
      scope: RequestScope,
      key: string,
      derive: (current: UserRecord) => UserInput,
      ifMatch?: VersionCheck,
    ): Promise<UserRecord> {
      try {
        return await write(
          scope,
          key,
          (current) => {
            const input = derive(current);
            if (hashes(input)) throw new NeedsHashing();
            return input;
          },
          ifMatch,
          {},
        );
      } catch (err) {
        if (!(err instanceof NeedsHashing)) throw err;
      }
      // Read (an empty change writes nothing), derive, hash, then write to that version only.
      const current = await write(scope, key, () => ({}), ifMatch, {});
      const input = derive(current);
      const secrets = await hashed(input);
      return write(
        scope,
        key,
        () => input,
        (v) => v === current.version,
        secrets,
      );
    },

    /**
     * Removes a user, then what it leaves behind (`removed`: its avatar's media), whatever the
     * channel; answers the user as it was removed.
     */
    async remove(scope: RequestScope, key: string, ifMatch?: VersionCheck): Promise<UserRecord> {
      const row = await store.reserve.whenFull(() =>
        store.users.update(
          scope.branch.id,
          byKey(key),
          (current) => {
            checkVersion(current, ifMatch);
            return {
              status: 'deleted',
              updated_at: new Date().toISOString(),
              version: current.version + 1,
            };
          },
          scope.audit,
        ),
      );
      if (!row) throw notFound(scope, key);
      const user = toRecord(row);
      await removed?.(scope, user);
      return user;
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;
