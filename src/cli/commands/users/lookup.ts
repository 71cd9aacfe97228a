/**
 * A user by what a person has at hand: id, externalId, or email (`users show a@b`, as GAM's
 * `info user a@b`). The service looks up ids and externalIds itself; an email is found with the
 * list's free-text `query` and then compared as the identity rule compares emails, so a search
 * hit on a longer address (`an@x` inside `joan@x`) is never taken for the user.
 */
import type { ApiClient } from '../../../client/index.js';
import { sameIdentity } from '../../../contract/identity.js';
import { LISTABLE_STATUSES, type UserV3 } from '../../../contract/user.js';
import { CliError, EXIT } from '../../errors.js';

export async function findUser(client: ApiClient, key: string): Promise<UserV3> {
  if (!key.includes('@')) return client.getUser(key);
  const query = { query: key, status: [...LISTABLE_STATUSES] };
  for await (const user of client.iterateUsers(query)) {
    const email = user.email?.value;
    if (email !== undefined && sameIdentity('email', email, key)) return user;
  }
  // An externalId may hold an @ too (an identity provider's login).
  const { ApiError } = await import('../../../client/errors.js');
  try {
    return await client.getUser(key);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    throw new CliError(
      `no user has the email, id or externalId '${key}' (pending and deactivated users included)`,
      EXIT.notFound,
    );
  }
}
