/** `roster users list`: one page of users, or every page with --all. */
import type { Command } from 'commander';
import {
  LISTABLE_STATUSES,
  type ListableStatus,
  MAX_QUERY_LENGTH,
  SORT_KEYS,
  parseSort as sortOrder,
} from '../../../contract/user.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';
import { parseNonNegativeInt, parsePositiveInt, parseSort, parseStatuses } from '../../parse.js';
import { fieldsOption, globalsOf } from '../shared/options.js';
import { runPagedList } from '../shared/paged-list.js';
import { userView } from './format.js';

export interface ListOptions {
  status?: ListableStatus[];
  query?: string;
  sort?: string;
  limit?: number;
  offset?: number;
  all?: boolean;
  fields?: string;
  globals: GlobalOptions;
}

const DEFAULT_STATUSES: ListableStatus[] = ['activated', 'pending'];

export function register(users: Command, deps: Deps, runFn = runList) {
  fieldsOption(
    users
      .command('list')
      .description("list users of the token's branch (JSON: an array of v3 users)")
      .option(
        '--status <list>',
        'activated, pending, deactivated, comma-separated, or all (default: activated,pending)',
        parseStatuses,
      )
      .option(
        '--query <text>',
        'free-text search over names, email, userName, position, … (prefix match)',
      )
      .option(
        '--sort <key_DIR>',
        `order, e.g. lastName_DESC (a second key is added) or lastName_ASC_firstName_ASC; keys: ${SORT_KEYS.join(', ')}`,
        parseSort,
      )
      .option(
        '--limit <n>',
        'users per page, at most 1000 (default 100; with --all: 1000)',
        parsePositiveInt,
      )
      .option('--offset <n>', 'skip this many users', parseNonNegativeInt)
      .option('--all', 'follow every page'),
  ).action((opts: Omit<ListOptions, 'globals'>, cmd: Command) =>
    runFn({ ...opts, globals: globalsOf(cmd) }, deps),
  );
}

/**
 * Checks the options with the service's own rules (contract/user.ts), so a bad --sort fails
 * before any request; the rules are plain code, so the check loads nothing (zod was a third of
 * the command's start-up).
 */
function checkQuery(opts: ListOptions) {
  if (opts.sort !== undefined) {
    const parsed = sortOrder(opts.sort);
    if ('error' in parsed) throw usageError(`--sort: ${parsed.error}`);
  }
  if (opts.query !== undefined && opts.query.length > MAX_QUERY_LENGTH) {
    throw usageError(`--query: at most ${MAX_QUERY_LENGTH} characters`);
  }
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const view = userView(opts.globals, opts.fields, deps, { ids: true });
  checkQuery(opts);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  // CONTRACT: everyone who can or soon will log in, unless told otherwise.
  const status = opts.status ?? DEFAULT_STATUSES;
  const params = { status, query: opts.query, sort: opts.sort };
  const filter =
    status.length === LISTABLE_STATUSES.length ? 'any status' : `status ${status.join(' or ')}`;
  await runPagedList(deps, view, opts, (page) => client.listUsers({ ...params, ...page }), {
    plural: 'users',
    empty: `no users with ${filter}${opts.query ? ` matching '${opts.query}'` : ''}`,
  });
}
