/** `roster users history <id|email>`: one person's changes, newest first, `field: from → to`. */
import type { Command } from 'commander';
import { listEvents } from '../../../client/events.js';
import type { RosterEvent } from '../../../contract/events.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { forPeople, listWriter } from '../../output/render.js';
import { targetOf } from '../events/filters.js';
import { eventView } from '../events/format.js';
import { globalsOf } from '../shared/options.js';

export interface HistoryOptions {
  id: string;
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runHistory) {
  users
    .command('history')
    .description("one user's changes, newest first: who changed which field, when (JSON: events)")
    .argument('<id>', 'the user id, an externalId or an email')
    .action((id: string, _opts: unknown, cmd: Command) =>
      runFn({ id, globals: globalsOf(cmd) }, deps),
    );
}

export async function runHistory(opts: HistoryOptions, deps: Deps): Promise<void> {
  const view = eventView(opts.globals, deps);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const { id: target, live } = await targetOf(client, opts.id);
  const events: RosterEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listEvents(client.http, { target, limit: 1000, after });
    events.push(...page.data);
    after = page.next;
    if (!page.more) break;
  }
  // An id no live user has and no event names: a typo, said as the 404 it was.
  if (!live && events.length === 0) {
    throw new CliError(
      `no user has the id ${opts.id} (nor an event: a deleted user's history stays under their id)`,
      EXIT.notFound,
    );
  }
  const out = await listWriter(deps.io, view);
  for (const e of events.reverse()) await out.write(e);
  if ((await out.end()) === 0 && forPeople(view.format)) note(deps.io, 'no changes recorded');
}
