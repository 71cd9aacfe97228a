/**
 * Sends the plan: creates, updates and leavers' deactivations (then `--sync` deactivations) at a fixed concurrency
 * through the client, which retries what is safe to retry. Each row is one request, so a row
 * is applied whole or not at all. A 409 on the match key when creating means the user is
 * already there (a request that succeeded before a crash, or someone else): it is read back
 * and updated or left as it is. What would fail every other row too stops the run (the
 * client's `stopsRun`: auth, an unreachable service); other answers fail only their row.
 */
import { ApiError, stopsRun } from '../client/index.js';
import { issueText } from '../contract/errors.js';
import { carriesKey } from '../contract/identity.js';
import { LISTABLE_STATUSES, sendsInvitation } from '../contract/user.js';
import { createBody, currentValues, diff, updateBody } from './fields.js';
import type { Entry } from './plan.js';
import { type KnownUser, valuesOf } from './snapshot.js';
import type { Action, ImportClient, MatchField } from './types.js';

/** How one row (or one deactivation) ended. */
export interface Outcome {
  row?: number;
  line?: number;
  key?: string;
  action: Action;
  status: 'ok' | 'failed';
  id?: string;
  error?: string;
  /** A create that asked the service to send its invitation (queued there, not sent yet). */
  invited?: true;
}

export interface ApplyOptions {
  match: MatchField;
  concurrency: number;
  sendMail: boolean;
  onOutcome: (outcome: Outcome) => void;
  /** Aborted: workers take no new task; the ones in flight finish. */
  signal?: AbortSignal;
}

/** What the service said, in one line (without the hints the CLI adds to a message). */
export function reason(err: unknown): string {
  if (!(err instanceof ApiError)) return (err as Error).message ?? String(err);
  const details = err.details.map(issueText).join('; ');
  const extra = err.status === 400 && details ? `: ${details}` : '';
  return `${err.serverMessage}${extra} (${err.status})`;
}

async function findByKey(client: ImportClient, match: MatchField, key: string) {
  if (match === 'externalId') {
    try {
      const user = await client.getUser(key);
      return carriesKey(user, 'externalId', key) ? user : undefined;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  }
  const page = await client.listUsers({ query: key, status: [...LISTABLE_STATUSES], limit: 100 });
  return page.data.find((u) => carriesKey(u, 'email', key));
}

/** One request's worth of work: who it is about, and how to send it. */
interface Task {
  about: Omit<Outcome, 'status'>;
  send(): Promise<{ action: Action; id: string; invited?: true }>;
}

/**
 * Sends `rows` (creates and updates, pulled as workers free up, so a 100,000-row file is never
 * held in memory), then the deactivations.
 */
export async function applyPlan(
  client: ImportClient,
  rows: AsyncIterable<Entry>,
  deactivate: KnownUser[],
  opts: ApplyOptions,
) {
  const { match } = opts;

  /** After a 409 on create: if the match key is taken in this branch, converge on the row. */
  async function alreadyThere(e: Entry, conflict: ApiError) {
    const existing = await findByKey(client, match, e.key!);
    if (!existing) throw conflict;
    const changes = diff(e.values!, currentValues(existing));
    if (changes.length === 0) return { action: 'unchanged' as const, id: existing.id };
    const user = await client.updateUser(existing.id, updateBody(changes));
    return { action: 'update' as const, id: user.id };
  }

  async function create(e: Entry) {
    try {
      const { user } = await client.createUser(createBody(e.values!, opts.sendMail));
      const invited = sendsInvitation({ ...e.values!, sendMail: opts.sendMail });
      return {
        action: 'create' as const,
        id: user.id,
        ...(invited ? { invited: true as const } : {}),
      };
    } catch (err) {
      // The service names one violated unique field (whichever index fired first), so any 409
      // is checked against the match key.
      if (!(err instanceof ApiError && err.status === 409)) throw err;
      return alreadyThere(e, err);
    }
  }

  const rowTask = (e: Entry): Task => ({
    about: { row: e.row, line: e.line, key: e.key, action: e.action, id: e.id },
    send: async () => {
      if (e.action === 'create') return create(e);
      if (e.action === 'deactivate') {
        // A leaver's row (--sync): only the status changes.
        await client.updateUser(e.id!, { status: 'deactivated' });
        return { action: 'deactivate', id: e.id! };
      }
      return { action: 'update', id: (await client.updateUser(e.id!, updateBody(e.changes!))).id };
    },
  });
  const deactivateTask = (u: KnownUser): Task => ({
    about: { key: valuesOf(u)[match] ?? undefined, action: 'deactivate', id: u.id },
    send: async () => {
      await client.updateUser(u.id, { status: 'deactivated' });
      return { action: 'deactivate', id: u.id };
    },
  });

  async function* tasks(): AsyncGenerator<Task> {
    for await (const e of rows) yield rowTask(e);
    for (const u of deactivate) yield deactivateTask(u);
  }
  const source = tasks();
  let fatal: unknown;
  const worker = async () => {
    while (fatal === undefined && !opts.signal?.aborted) {
      let next: IteratorResult<Task>;
      try {
        next = await source.next();
      } catch (err) {
        fatal ??= err; // the file could not be read again
        return;
      }
      if (next.done) return;
      const task = next.value;
      let outcome: Outcome;
      try {
        outcome = { ...task.about, ...(await task.send()), status: 'ok' };
      } catch (err) {
        if (stopsRun(err)) {
          fatal ??= err;
          return;
        }
        outcome = { ...task.about, status: 'failed', error: reason(err) };
      }
      opts.onOutcome(outcome);
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
  } finally {
    await source.return(undefined);
  }
  if (fatal !== undefined) throw fatal;
}
