/** `roster users list`: one page of users, or every page with --all. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../context.js';
import { note } from '../../context.js';
import { usageError } from '../../errors.js';
import { spinner } from '../../output/progress.js';
import { listWriter } from '../../output/render.js';
import { parseNonNegativeInt, parsePositiveInt } from '../../parse.js';
import { fieldsOption, globalsOf } from '../options.js';
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

/** Page size with --all: the service's maximum, so few round trips. */
export const ALL_PAGE_SIZE = 1000;

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
  const out = await listWriter(deps.io, view);

  if (opts.all) {
    const { paginate } = await import('../../../client/paginate.js');
    const pages = paginate((page) => client.listUsers({ ...params, ...page }), {
      pageSize: opts.limit ?? ALL_PAGE_SIZE,
      offset: opts.offset ?? 0,
    });
    // A table prints at the end: meanwhile a spinner on the terminal counts what arrived.
    const progress = view.format === 'table' ? await spinner(deps, 'fetching users…') : undefined;
    let count = 0;
    for await (const user of pages) {
      await out.write(user);
      if (++count % 100 === 0) progress?.update(`fetching users… ${count}`);
    }
    progress?.stop();
    await out.end();
    return;
  }
  const page = await client.listUsers({ ...params, limit: opts.limit, offset: opts.offset });
  for (const user of page.data) await out.write(user);
  await out.end();
  const shown = page.offset + page.data.length;
  if (view.format === 'table' && page.total === 0) {
    const filter = opts.status ? `status ${opts.status}` : 'status activated (the default)';
    note(deps.io, `no users with ${filter}${opts.query ? ` matching '${opts.query}'` : ''}`);
  } else if (view.format === 'table' && shown < page.total) {
    note(
      deps.io,
      `showing ${page.offset + 1}–${shown} of ${page.total}; --all for every page, or --offset ${shown}`,
    );
  }
}
