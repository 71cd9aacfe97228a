/** The filter flags `events list` and `events tail` share, as the service's query. */
import type { Command } from 'commander';
import { ApiError } from '../../../client/errors.js';
import type { EventsQuery } from '../../../client/events.js';
import type { ApiClient } from '../../../client/index.js';
import { shellWord } from '../../../import/shell-word.js';
import { CliError, EXIT } from '../../errors.js';
import { findUser } from '../users/lookup.js';
import { parseWhen } from './format.js';

export interface FilterOptions {
  type?: string[];
  user?: string;
  since?: string;
  until?: string;
  run?: string;
}

const collect = (v: string, all: string[] = []) => [...all, ...v.split(',')];

export function filterOptions(cmd: Command): Command {
  return cmd
    .option(
      '--type <types>',
      'only these types or families (user.updated, user.*); repeatable',
      collect,
    )
    .option('--user <id|email>', "only one user's events (an id, externalId or email)")
    .option('--since <when>', 'only events after this: 30m, 2h, 7d before now, or an ISO time')
    .option('--until <when>', 'only events before this (as --since)')
    .option('--run <id>', 'only the events of one import or avatar sync run (its run id)');
}

/** The service's query for the flags: a user by email is found first (its id is the target). */
export async function queryOf(opts: FilterOptions, client: ApiClient): Promise<EventsQuery> {
  return {
    ...(opts.type ? { types: opts.type } : {}),
    ...(opts.user ? { target: (await targetOf(client, opts.user)).id } : {}),
    ...(opts.since ? { since: parseWhen('--since', opts.since) } : {}),
    ...(opts.until ? { until: parseWhen('--until', opts.until) } : {}),
    ...(opts.run ? { run: opts.run } : {}),
  };
}

/**
 * The target id of a user named by id, externalId or email, and whether that user is live. A
 * deleted user's events outlive them ("who removed Ann?"): an id the service no longer knows is
 * taken as it is; an email can no longer be looked up, and the 404 says where the id is.
 */
export async function targetOf(
  client: ApiClient,
  key: string,
): Promise<{ id: string; live: boolean }> {
  try {
    return { id: (await findUser(client, key)).id, live: true };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    if (!key.includes('@')) return { id: key, live: false };
    throw new CliError(
      `no user has the email ${key}; a deleted user's events are found by their id: roster events list --type user.deleted shows it`,
      EXIT.notFound,
    );
  }
}

/**
 * The filter flags that give `query` again, as a shell reads them: a cursor is bound to its
 * filters, so a resume hint repeats them, with times as the service took them (a relative
 * `--since 1h` means another time later).
 */
export function filterWords(query: EventsQuery): string {
  const words = [
    ...(query.types ?? []).flatMap((t) => ['--type', t]),
    ...(query.target ? ['--user', query.target] : []),
    ...(query.since ? ['--since', query.since] : []),
    ...(query.until ? ['--until', query.until] : []),
    ...(query.run ? ['--run', query.run] : []),
  ];
  return words.map((w) => ` ${shellWord(w)}`).join('');
}
