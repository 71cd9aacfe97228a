/**
 * A user by what a person has at hand: id, externalId, or email (`users show a@b`, as GAM's
 * `info user a@b`). The service looks up ids and externalIds itself; an email is found with the
 * list's free-text `query` and then compared as the identity rule compares emails, so a search
 * hit on a longer address (`an@x` inside `joan@x`) is never taken for the user.
 */
import type { ApiClient } from '../../../client/index.js';
import { sameIdentity } from '../../../contract/identity.js';
import { LISTABLE_STATUSES, type UserV3 } from '../../../contract/user.js';

export async function findUser(client: ApiClient, key: string): Promise<UserV3> {
  if (!key.includes('@')) return client.getUser(key);
  const query = { query: key, status: [...LISTABLE_STATUSES] };
  for await (const user of client.iterateUsers(query)) {
    const email = user.email?.value;
    if (email !== undefined && sameIdentity('email', email, key)) return user;
  }
  // An externalId may hold an @ too (an identity provider's login). Nobody: the service's 404,
  // which a batch (`show -`) counts as that id's failure, not a reason to stop.
  return client.getUser(key);
}
