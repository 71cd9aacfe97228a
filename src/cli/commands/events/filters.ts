/** The filter flags `events list` and `events tail` share, as the service's query. */
import type { Command } from 'commander';
import type { EventsQuery } from '../../../client/events.js';
import type { ApiClient } from '../../../client/index.js';
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
    ...(opts.user ? { target: (await findUser(client, opts.user)).id } : {}),
    ...(opts.since ? { since: parseWhen('--since', opts.since) } : {}),
    ...(opts.until ? { until: parseWhen('--until', opts.until) } : {}),
    ...(opts.run ? { run: opts.run } : {}),
  };
}
