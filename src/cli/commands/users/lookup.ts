/**
 * A user by what a person has at hand: id, externalId, or email (`users show a@b`, as GAM's
 * `info user a@b`). The service looks up ids and externalIds itself; an email is found with the
 * list's free-text `query` and then compared as the identity rule compares emails, so a search
 * hit on a longer address (`an@x` inside `joan@x`) is never taken for the user.
 */
import type { ApiClient } from '../../../client/index.js';
import { carriesKey } from '../../../contract/identity.js';
import { LISTABLE_STATUSES, type UserV3 } from '../../../contract/user.js';

export async function findUser(client: ApiClient, key: string): Promise<UserV3> {
  return (await byEmail(client, key)) ?? client.getUser(key);
}

/**
 * The id a verb sends for `key` (remove, activate, deactivate, update): the id of the user with
 * that email, else `key` itself, which the service resolves as an id or externalId, or answers
 * 404 naming it. An id or externalId without an @ costs no request.
 */
export async function userIdOf(client: ApiClient, key: string): Promise<string> {
  return (await byEmail(client, key))?.id ?? key;
}

/**
 * The user whose email `key` is, if any. An externalId may hold an @ too (an identity
 * provider's login), so none found is not an error: the caller asks the service for `key`, whose
 * 404 a batch (`show -`) counts as that id's failure, not a reason to stop.
 */
async function byEmail(client: ApiClient, key: string): Promise<UserV3 | undefined> {
  if (!key.includes('@')) return undefined;
  const query = { query: key, status: [...LISTABLE_STATUSES] };
  for await (const user of client.iterateUsers(query)) {
    if (carriesKey(user, 'email', key)) return user;
  }
  return undefined;
}
