/**
 * One function per /users endpoint; each sends the media type the HTTP core chose for the
 * service (users.v2 / user.v3 on Roster; user-invite.v2 / user-update.v1 on the platform).
 */
import type { z } from 'zod';
import type { Page } from '../contract/medium.js';
import type { userBodySchemas } from '../contract/schemas.js';
import { LISTABLE_STATUSES, type ListableStatus, type UserV3 } from '../contract/user.js';
import { fieldAt, withValueAt } from '../contract/user-fields.js';
import { mediaTypeOf, missingRequired, type VersionEntry } from '../contract/versions.js';
import { ApiError, RequiredFieldsError } from './errors.js';
import type { HttpClient } from './http.js';
import { findMadeUser } from './made-user.js';
import { header } from './response.js';

export { type PageRequest, paginate } from './paginate.js';

/** The v3 create body (email/userName as strings or `{value}` objects). */
export type UserCreateBody = z.input<(typeof userBodySchemas)['v3']['create']>;
/** The v3 incremental update: absent keys stay, `null` clears. */
export type UserUpdateBody = z.input<(typeof userBodySchemas)['v3']['update']>;

export interface ListUsersParams {
  limit?: number;
  offset?: number;
  /** A page's `next` cursor (Roster): the page after it; `offset` is then not sent. */
  after?: string;
  /** Free-text, prefix-matching search over names, email, userName, position, … */
  query?: string;
  /** Two keys, e.g. `lastName_ASC_firstName_ASC`. */
  sort?: string;
  /** Default on the server: `activated`. */
  status?: ListableStatus | ListableStatus[];
}

/** What fills a field a request type requires when the body lacks it (a profile's defaults). */
export interface UserDefaults {
  role?: string;
  locale?: string;
}

/**
 * The body for `entry`: the fields it requires filled from `defaults` where absent, or a
 * RequiredFieldsError naming what is still missing.
 */
export function completeBody(
  body: UserCreateBody,
  entry: VersionEntry | undefined,
  vendor: string,
  defaults: UserDefaults = {},
  where: { method: string; url: string } = { method: 'POST', url: '/users' },
): UserCreateBody {
  const requires = entry?.requires ?? [];
  let out = { ...body } as Record<string, unknown>;
  for (const path of missingRequired(out, requires)) {
    const field = fieldAt(path);
    const value = field && field in defaults ? defaults[field as keyof UserDefaults] : undefined;
    if (value) out = withValueAt(out, path, value);
  }
  const missing = missingRequired(out, requires);
  if (missing.length > 0 && entry) {
    throw new RequiredFieldsError({
      fields: missing,
      mediaType: mediaTypeOf(entry, vendor),
      ...where,
    });
  }
  return out as UserCreateBody;
}

export interface CreatedUser {
  user: UserV3;
  /** The Location header: `{base_url}/users/<id>`. */
  location: string | undefined;
}

/** GET /users: one page of users of the token's branch. */
export async function listUsers(http: HttpClient, params: ListUsersParams = {}) {
  const { status, after, offset, ...rest } = params;
  const res = await http.json<Page<UserV3>>({
    method: 'GET',
    endpoint: '/users',
    query: {
      ...rest,
      ...(after === undefined ? { offset } : { after }),
      status: Array.isArray(status) ? status.join(',') : status,
    },
  });
  return res.data;
}

/** GET /users/{userId}: by id, or by externalId when no id matches. */
export async function getUser(http: HttpClient, idOrExternalId: string): Promise<UserV3> {
  const res = await http.json<UserV3>({
    method: 'GET',
    endpoint: '/users/{userId}',
    params: { userId: idOrExternalId },
  });
  return res.data;
}

/**
 * POST /users: invites (with `email`, unless `sendMail: false`) or creates a user. Not retried
 * after the request may have reached the service; a 409 then means it did. Except where the
 * service says it may have made the user (a 503 with Roster-Outcome: unknown): the user is
 * looked for by the body's identity, and created again only when not there.
 */
export async function createUser(
  http: HttpClient,
  body: UserCreateBody,
  defaults?: UserDefaults,
): Promise<CreatedUser> {
  try {
    return await postUser(http, body, defaults);
  } catch (err) {
    if (!(err instanceof ApiError && err.outcomeUnknown)) throw err;
    const made = await findMadeUser(body as Record<string, unknown>, {
      get: (key) => getUser(http, key),
      search: async (query) =>
        (await listUsers(http, { query, status: [...LISTABLE_STATUSES], limit: 1000 })).data,
    });
    if (made) return { user: made, location: `${http.baseUrl}/users/${made.id}` };
    return postUser(http, body, defaults);
  }
}

async function postUser(
  http: HttpClient,
  body: UserCreateBody,
  defaults?: UserDefaults,
): Promise<CreatedUser> {
  const res = await http.json<UserV3 | undefined>({
    method: 'POST',
    endpoint: '/users',
    jsonFor: (entry, vendor) =>
      completeBody(body, entry, vendor, defaults, { method: 'POST', url: `${http.baseUrl}/users` }),
  });
  const location = header(res.headers, 'location');
  if (res.data) return { user: res.data, location };
  // A service that answers 201 without a body (as the spec allows): read the user back.
  const id = location?.split('/').pop();
  if (!id) throw new Error('POST /users answered without a body or a Location header');
  return { user: await getUser(http, decodeURIComponent(id)), location };
}

/** The fields the service requires in a new user's body (none on Roster; role and locale on the platform). */
export async function createRequires(http: HttpClient): Promise<readonly string[]> {
  return (await http.choose('/users', 'POST', 'content-type')).requires ?? [];
}

/** PUT /users/{userId}: incremental update; answers the updated user. */
export async function updateUser(
  http: HttpClient,
  idOrExternalId: string,
  patch: UserUpdateBody,
): Promise<UserV3> {
  const res = await http.json<UserV3>({
    method: 'PUT',
    endpoint: '/users/{userId}',
    params: { userId: idOrExternalId },
    json: patch,
  });
  return res.data;
}

/** DELETE /users/{userId}: the user becomes `deleted` (202). */
export async function deleteUser(http: HttpClient, idOrExternalId: string): Promise<void> {
  await http.json({
    method: 'DELETE',
    endpoint: '/users/{userId}',
    params: { userId: idOrExternalId },
  });
}
