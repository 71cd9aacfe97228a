/** `roster users list`: one page of users, or every page with --all. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { usageError } from '../../errors.js';
import { parseNonNegativeInt, parsePositiveInt } from '../../parse.js';
import { fieldsOption, globalsOf } from '../options.js';
import { runPagedList } from '../paged-list.js';
import { userView } from './format.js';

export interface ListOptions {
  status?: string;
  query?: string;
  sort?: string;
  limit?: number;
  offset?: number;
  all?: boolean;
  fields?: string;
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runList) {
  fieldsOption(
    users
      .command('list')
      .description("list users of the token's branch (JSON: an array of v3 users)")
      .option(
        '--status <list>',
        'activated, pending, deactivated, comma-separated (default: activated)',
      )
      .option(
        '--query <text>',
        'free-text search over names, email, userName, position, … (prefix match)',
      )
      .option('--sort <keys>', 'two keys, e.g. lastName_ASC_firstName_ASC')
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

/** Checks the query with the service's own schema, so a bad --sort fails before any request. */
async function checkQuery(opts: ListOptions) {
  if (opts.status === undefined && opts.sort === undefined && opts.query === undefined) return;
  const { userListQuerySchema } = await import('../../../contract/schemas.js');
  const query = { status: opts.status, sort: opts.sort, query: opts.query };
  const parsed = userListQuerySchema.safeParse(
    Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)),
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw usageError(`--${String(issue.path[0])}: ${issue.message}`);
  }
}

export async function runList(opts: ListOptions, deps: Deps): Promise<void> {
  const view = userView(opts.globals, opts.fields, deps);
  await checkQuery(opts);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const params = { status: opts.status as never, query: opts.query, sort: opts.sort };
  const filter = opts.status ? `status ${opts.status}` : 'status activated (the default)';
  await runPagedList(deps, view, opts, (page) => client.listUsers({ ...params, ...page }), {
    plural: 'users',
    empty: `no users with ${filter}${opts.query ? ` matching '${opts.query}'` : ''}`,
  });
}
