/**
 * After a create whose outcome the service could not tell (503 with Roster-Outcome: unknown):
 * the user it may have made, found by the body's keys as the identity rule compares them, or
 * undefined when there is none — the create was not made and may be sent again.
 */
import { carriesKey } from '../contract/identity.js';
import type { UserV3 } from '../contract/user.js';
import { ApiError } from './errors.js';

export interface UserLookup {
  /** GET /users/{userId}: by id, or by externalId. */
  get(idOrExternalId: string): Promise<UserV3>;
  /** The users a free-text query finds, of every listable status. */
  search(query: string): Promise<UserV3[]>;
}

/** A key's value as a create body gives it: a string, or `{value}` (v3). */
const keyValue = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : typeof (v as { value?: unknown })?.value === 'string'
      ? (v as { value: string }).value
      : undefined;

export async function findMadeUser(
  body: Record<string, unknown>,
  lookup: UserLookup,
): Promise<UserV3 | undefined> {
  const externalId = keyValue(body.externalId);
  if (externalId !== undefined) {
    const user = await lookup.get(externalId).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    });
    // {userId} matches an id first: only a user with this externalId is the one made.
    return user?.externalId === externalId ? user : undefined;
  }
  for (const field of ['email', 'userName'] as const) {
    const key = keyValue(body[field]);
    if (key === undefined) continue;
    return (await lookup.search(key)).find((u) => carriesKey(u, field, key));
  }
  return undefined;
}
