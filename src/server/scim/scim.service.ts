/**
 * SCIM's reads and writes over the users service: the same records, rules and store as the
 * REST API, so a user provisioned here is the user every other route sees.
 */
import { LISTABLE_STATUSES, type UserInput, type UserRecord } from '../../contract/user.js';
import { parseUserBody } from '../../contract/user-input.js';
import { AppError, validationError } from '../errors.js';
import type { VersionCheck } from '../http/etag.js';
import type { RequestScope } from '../http/state.js';
import type { UsersService } from '../users/users.service.js';
import { CORE_USER, prop } from './attributes.js';
import { ScimError } from './errors.js';
import { type Lookup, lookupOf, parseFilter } from './filter.js';
import { patchOperations } from './patch.js';
import { applyPatch } from './patch-apply.js';
import { type ScimBody, scimBody, scimChanges, toScim } from './resource.js';

/** Users read per store call while a filter is tested on every user of the branch. */
const SCAN_PAGE = 1000;
/** Creation order, then externalId: a stable order for startIndex paging. */
const ORDER = [
  { key: 'createdAt', dir: 'ASC' },
  { key: 'externalId', dir: 'ASC' },
] as const;

export interface ScimPage {
  total: number;
  users: UserRecord[];
}

/** A resource names the schemas it holds, the core User's among them (RFC 7643 §3). */
function requireCoreSchema(resource: unknown) {
  const schemas = prop(resource, 'schemas');
  if (!Array.isArray(schemas) || !schemas.includes(CORE_USER)) {
    throw new ScimError(
      'validation',
      'invalidSyntax',
      `a User resource names its schemas: "schemas": ["${CORE_USER}", …]`,
    );
  }
}

/** What `active` asks of a user in `status` (undefined: nothing). */
function statusFor(status: UserRecord['status'], active: boolean | undefined) {
  // true on a pending user is a no-op: they are active for an IdP until they sign up.
  if (active === true && status === 'deactivated') return 'activated' as const;
  if (active === false && status !== 'deactivated') return 'deactivated' as const;
  return undefined;
}

export function scimService(users: UsersService) {
  async function lookUp(scope: RequestScope, { key, value }: Lookup) {
    if (key === 'id') {
      const user = await users.get(scope, value).catch((err: unknown) => {
        if (err instanceof AppError && err.kind === 'notFound') return undefined;
        throw err;
      });
      return user?.id === value ? user : undefined;
    }
    const user = await users.findBy(scope, key, value);
    if (user || key !== 'userName') return user;
    // A user without a userName shows its email as one (see resource.ts).
    const byEmail = await users.findBy(scope, 'email', value);
    return byEmail?.userName === null ? byEmail : undefined;
  }

  /** Every live user of the branch, in ORDER, a store page at a time. */
  async function* everyone(scope: RequestScope) {
    for (let offset = 0; ; offset += SCAN_PAGE) {
      const page = await users.list(scope, {
        status: [...LISTABLE_STATUSES],
        sort: [...ORDER],
        limit: SCAN_PAGE,
        offset,
      });
      yield* page.data;
      if (page.data.length < SCAN_PAGE) return;
    }
  }

  /** The change a SCIM body makes to `current`, as the users service's input. */
  function inputOf(current: UserRecord, change: ScimBody): UserInput {
    let input: UserInput = {};
    if (Object.keys(change.body).length > 0) {
      const parsed = parseUserBody('v3', 'update', change.body);
      if (!parsed.ok) throw validationError(parsed.issues, 'user');
      input = parsed.input;
    }
    const status = statusFor(current.status, change.active);
    if (status) input.status = status;
    return input;
  }

  return {
    /** A page of the users a filter matches (`startIndex` 1-based). */
    async list(
      scope: RequestScope,
      q: { filter?: string; startIndex: number; count: number },
    ): Promise<ScimPage> {
      const offset = q.startIndex - 1;
      if (!q.filter) {
        const page = await users.list(scope, {
          status: [...LISTABLE_STATUSES],
          sort: [...ORDER],
          limit: q.count,
          offset,
        });
        return { total: page.total, users: page.data };
      }
      const filter = parseFilter(q.filter);
      const lookup = lookupOf(filter.ast);
      const matches: UserRecord[] = [];
      const test = (u: UserRecord) => filter.matches(toScim(u, ''));
      if (lookup) {
        const found = await lookUp(scope, lookup);
        if (found && test(found)) matches.push(found);
      } else {
        for await (const u of everyone(scope)) if (test(u)) matches.push(u);
      }
      return { total: matches.length, users: matches.slice(offset, offset + q.count) };
    },

    get: (scope: RequestScope, id: string) => users.get(scope, id),

    async create(scope: RequestScope, resource: unknown, sendMail: boolean) {
      requireCoreSchema(resource);
      const { body, active } = scimBody(resource, 'create');
      // RFC 7643 §4.1.1: userName is required. Entra ID and Okta always send one; a user made
      // without one through REST is still served with its email as userName (resource.ts).
      if (body.userName === undefined || body.userName === null) {
        throw new ScimError('validation', 'invalidValue', 'userName is required to create a user');
      }
      if (body.externalId === undefined) {
        throw validationError([{ field: 'externalId', message: 'is required to create a user' }]);
      }
      const parsed = parseUserBody('v3', 'create', { ...body, sendMail });
      if (!parsed.ok) throw validationError(parsed.issues, 'user');
      const user = await users.create(scope, parsed.input);
      return active === false ? users.update(scope, user.id, { status: 'deactivated' }) : user;
    },

    replace(scope: RequestScope, id: string, resource: unknown, check?: VersionCheck) {
      const change = scimBody(resource, 'replace');
      return users.updateWith(scope, id, (current) => inputOf(current, change), check);
    },

    patch(scope: RequestScope, id: string, patchBody: unknown, check?: VersionCheck) {
      const operations = patchOperations(patchBody);
      return users.updateWith(
        scope,
        id,
        (current) => {
          const before = toScim(current, '');
          return inputOf(current, scimChanges(before, applyPatch(before, operations)));
        },
        check,
      );
    },

    remove: (scope: RequestScope, id: string, check?: VersionCheck) =>
      users.remove(scope, id, check),
  };
}

export type ScimService = ReturnType<typeof scimService>;
