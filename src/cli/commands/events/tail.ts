/**
 * `roster events tail`: follows the log with long polls, one line per change. Its cursor is kept
 * across failures (a service restart is retried with backoff, then continued where it was:
 * nothing missed, nothing twice); Ctrl-C prints the cursor `--after` resumes from.
 */
import type { Command } from 'commander';
import { ApiError, ClientError } from '../../../client/errors.js';
import { EventsNotOfferedError, listEvents } from '../../../client/events.js';
import { AFTER_END, type RosterEvent } from '../../../contract/events.js';
import { type Deps, type GlobalOptions, note, onCleanup, print } from '../../context.js';
import { followFormat, formatterOf } from '../../output/render.js';
import { globalsOf } from '../shared/options.js';
import { type FilterOptions, filterOptions, filterWords, queryOf } from './filters.js';
import { tailLines } from './format.js';

export interface TailOptions extends FilterOptions {
  after?: string;
  globals: GlobalOptions;
}

/** The long poll's hold: below the client's 30 s answer timeout. */
export const TAIL_WAIT_SECONDS = 20;
const BACKOFF_MS = [500, 1000, 2000, 5000, 10000];

export function register(events: Command, deps: Deps, runFn = runTail) {
  filterOptions(
    events
      .command('tail')
      .description(
        'follow events as they happen, one line per change (Ctrl-C prints where to resume)',
      )
      .option('--after <cursor>', 'start after this cursor (what an earlier tail printed)'),
  ).action((opts: Omit<TailOptions, 'globals'>, cmd: Command) =>
    runFn({ ...opts, globals: globalsOf(cmd) }, deps),
  );
}

/** A failure worth waiting out (the service restarting), not one to stop on. */
const transient = (err: unknown) =>
  err instanceof ClientError &&
  !(err instanceof EventsNotOfferedError) &&
  (!(err instanceof ApiError) || err.status >= 500 || err.status === 429);

export async function runTail(opts: TailOptions, deps: Deps): Promise<void> {
  // Default: lines for a person; else a format that can follow an endless stream (-o ndjson,
  // or json, which follows as NDJSON): one event per line, for pipes.
  const follow = followFormat(opts.globals.output, deps.io, 'events tail', 'event');
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const query = await queryOf(opts, client);
  const sleep = deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  let after = opts.after;
  onCleanup(deps, () => {
    if (after)
      note(deps.io, `resume with: roster events tail${filterWords(query)} --after ${after}`);
  });
  const events = follow
    ? await formatterOf(follow).begin(deps.io, { columns: [], json: (e: RosterEvent) => e })
    : undefined;
  const show = async (page: Awaited<ReturnType<typeof listEvents>>) => {
    for (const e of page.data) {
      if (events) await events.row(e);
      else for (const line of tailLines(e, deps.io.columns ?? 80)) print(deps.io, line);
    }
    after = page.next;
  };
  // Where it starts: after --after; from --since's time, with what happened since then first;
  // else from now on (what is already there is `events list`'s): the cursor of the log's end,
  // asked for without a wait so that Ctrl-C at once still prints a cursor to resume from.
  if (after === undefined && opts.since === undefined) {
    await show(await listEvents(client.http, { ...query, after: AFTER_END }));
  }
  // Each poll is sent once: the tail waits out a failure itself (BACKOFF_MS), and says so once
  // an outage, not a line per retry as the client's own retries of a GET would.
  let failures = 0;
  for (;;) {
    let page: Awaited<ReturnType<typeof listEvents>>;
    try {
      page = await listEvents(
        client.http,
        { ...query, after, wait: TAIL_WAIT_SECONDS },
        { once: true },
      );
    } catch (err) {
      if (!transient(err)) throw err;
      // At least as long as the service asked (429 or 503 with Retry-After: a failover).
      const asked = err instanceof ApiError ? (err.retryAfterMs ?? 0) : 0;
      const ms = Math.max(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]!, asked);
      if (failures === 1)
        note(deps.io, `the service does not answer (${(err as Error).message}); retrying`);
      await sleep(ms);
      continue;
    }
    if (failures > 0) note(deps.io, 'the service answers again; following on');
    failures = 0;
    await show(page);
  }
}
