/**
 * One paginated read of the whole branch (every listable status), held compactly: the plan
 * matches rows against it instead of asking the service once per row.
 */
import { LISTABLE_STATUSES, type UserStatus } from '../contract/user.js';
import { currentValues, type Values } from './fields.js';
import type { ImportClient, MatchField } from './types.js';

export interface KnownUser {
  id: string;
  status: UserStatus;
  values: Values;
}

export interface Snapshot {
  users: KnownUser[];
  /** Users by match key (emails lower-cased, as the service compares them). */
  byKey: Map<string, KnownUser>;
}

/** The lookup key of a match-field value. */
export const matchKey = (match: MatchField, value: string) =>
  match === 'email' ? value.toLowerCase() : value;

/** Oldest first: users created while paging land on later pages instead of shifting them. */
const SNAPSHOT_SORT = 'createdAt_ASC_externalId_ASC';
const PAGE = 1000;

export async function takeSnapshot(client: ImportClient, match: MatchField): Promise<Snapshot> {
  const users: KnownUser[] = [];
  const byKey = new Map<string, KnownUser>();
  const pages = client.iterateUsers({ status: [...LISTABLE_STATUSES], sort: SNAPSHOT_SORT }, PAGE);
  for await (const user of pages) {
    const known: KnownUser = { id: user.id, status: user.status, values: currentValues(user) };
    users.push(known);
    const value = known.values[match];
    if (value) byKey.set(matchKey(match, value), known);
  }
  return { users, byKey };
}
