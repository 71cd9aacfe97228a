/**
 * Sends the plan: creates and updates (then `--sync` deactivations) at a fixed concurrency
 * through the client, which retries what is safe to retry. Each row is one request, so a row
 * is applied whole or not at all. A 409 on the match key when creating means the user is
 * already there (a request that succeeded before a crash, or someone else): it is read back
 * and updated or left as it is. Auth and network failures stop the run; other answers fail
 * only their row.
 */
import { ApiError } from '../client/index.js';
import { LISTABLE_STATUSES, type UserV3 } from '../contract/user.js';
import { createBody, currentValues, diff, updateBody } from './fields.js';
import type { Entry, Plan } from './plan.js';
import type { KnownUser } from './snapshot.js';
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
}

export interface ApplyOptions {
  match: MatchField;
  concurrency: number;
  sendMail: boolean;
  onOutcome: (outcome: Outcome) => void;
}

/** What the service said, in one line (the client's message adds hints meant for commands). */
export function reason(err: unknown): string {
  if (!(err instanceof ApiError)) return (err as Error).message ?? String(err);
  const details = err.details.map((d) => `${d.field} ${d.message}`).join('; ');
  const extra = err.status === 400 && details ? `: ${details}` : '';
  return `${err.serverMessage}${extra} (${err.status})`;
}

/** Failures that would fail every other row too: stop rather than grind through the file. */
const isFatal = (err: unknown) =>
  !(err instanceof ApiError) || err.status === 401 || err.status === 403;

async function findByKey(client: ImportClient, match: MatchField, key: string) {
  if (match === 'externalId') {
    try {
      const user = await client.getUser(key);
      return user.externalId === key ? user : undefined;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  }
  const page = await client.listUsers({ query: key, status: [...LISTABLE_STATUSES], limit: 100 });
  return page.data.find((u) => u.email?.value.toLowerCase() === key.toLowerCase());
}

export async function applyPlan(client: ImportClient, plan: Plan, opts: ApplyOptions) {
  const { match } = opts;
  const done = (e: Entry, action: Action, user: { id: string }): Outcome => ({
    row: e.row,
    line: e.line,
    key: e.key,
    action,
    status: 'ok',
    id: user.id,
  });

  /** The user already exists (409 on the match key): converge on the row's values instead. */
  async function alreadyThere(e: Entry, conflict: ApiError): Promise<Outcome> {
    const existing: UserV3 | undefined = await findByKey(client, match, e.key!);
    if (!existing) {
      return {
        ...done(e, 'create', { id: '' }),
        id: undefined,
        status: 'failed',
        error: `${reason(conflict)}; the user is not in this branch`,
      };
    }
    const changes = diff(e.values!, currentValues(existing));
    if (changes.length === 0) return done(e, 'unchanged', existing);
    return done(e, 'update', await client.updateUser(existing.id, updateBody(changes)));
  }

  async function create(e: Entry): Promise<Outcome> {
    try {
      const { user } = await client.createUser(createBody(e.values!, opts.sendMail));
      return done(e, 'create', user);
    } catch (err) {
      const onKey =
        err instanceof ApiError && err.status === 409 && err.details.some((d) => d.field === match);
      if (!onKey) throw err;
      return alreadyThere(e, err as ApiError);
    }
  }

  const update = async (e: Entry) =>
    done(e, 'update', await client.updateUser(e.id!, updateBody(e.changes!)));

  const deactivate = async (u: KnownUser): Promise<Outcome> => {
    await client.updateUser(u.id, { status: 'deactivated' });
    return { key: u.values[match] ?? undefined, action: 'deactivate', status: 'ok', id: u.id };
  };

  type Task = { entry: Entry } | { user: KnownUser };
  const tasks: Task[] = [
    ...plan.entries
      .filter((e) => e.action === 'create' || e.action === 'update')
      .map((entry) => ({ entry })),
    ...plan.deactivate.map((user) => ({ user })),
  ];
  let next = 0;
  let fatal: unknown;
  const run = async (task: Task): Promise<Outcome> => {
    try {
      if ('user' in task) return await deactivate(task.user);
      return await (task.entry.action === 'create' ? create(task.entry) : update(task.entry));
    } catch (err) {
      if (isFatal(err)) throw err;
      if ('user' in task) {
        return {
          key: task.user.values[match] ?? undefined,
          action: 'deactivate',
          status: 'failed',
          id: task.user.id,
          error: reason(err),
        };
      }
      const e = task.entry;
      return {
        row: e.row,
        line: e.line,
        key: e.key,
        action: e.action,
        status: 'failed',
        id: e.id,
        error: reason(err),
      };
    }
  };
  const worker = async () => {
    while (fatal === undefined && next < tasks.length) {
      const task = tasks[next++]!;
      try {
        opts.onOutcome(await run(task));
      } catch (err) {
        fatal ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, tasks.length) }, worker));
  if (fatal !== undefined) throw fatal;
}
