/**
 * Verbs over several ids (users activate/deactivate/remove, media delete): each id is tried in
 * turn and reported on its own. A rejected token or an unreachable service stops the run (every
 * other id would fail the same way: the client's `stopsRun`); a missing entity, a conflict or a
 * connection reset mid-answer is that id's failure only.
 *
 * Exit: 0 all done · 5 some failed · 4 none done, all not found · 1 none done otherwise ·
 * 3 the token was rejected (the remaining ids were not tried).
 */
import type { ApiClient } from '../../../client/index.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { note } from '../../context.js';
import { CliError, EXIT, firstLine } from '../../errors.js';
import { renderList, resolveFormat } from '../../output/render.js';
import { paintErr } from '../../output/style.js';
import { confirmOrRefuse } from './options.js';

export interface BatchRow {
  /** The id (or externalId) as given. */
  id: string;
  ok: boolean;
  /** The entity's status afterwards, when known. */
  status?: string;
  error?: string;
}

export const BATCH_EXIT_HELP = `
Several ids are processed one by one; each gets a result row (JSON: {id, ok, status, error}).
Exit codes: 0 all done, 5 some failed, 4 none done because none was found, 1 none done for
other reasons, 3 the token was rejected (remaining ids are not tried).`;

/** What the ids name, for messages: `{ one: 'user', many: 'users' }`. */
export interface Noun {
  one: string;
  many: string;
}

/** `user a`, or `2 users (a, b)`: what a confirmation question names. */
export const describeIds = (ids: string[], noun: Noun) =>
  ids.length === 1 ? `${noun.one} ${ids[0]}` : `${ids.length} ${noun.many} (${ids.join(', ')})`;

export async function runBatch(
  ids: string[],
  action: (id: string) => Promise<string>,
  verb: string,
  globals: GlobalOptions,
  deps: Deps,
  noun: Noun = { one: 'user', many: 'users' },
): Promise<void> {
  const { io } = deps;
  const format = resolveFormat(globals.output, io);
  const { ApiError, stopsRun } = await import('../../../client/errors.js');
  const { userMessage } = await import('../../advice.js');
  const rows: BatchRow[] = [];
  const notFound: string[] = [];
  let stop: unknown;
  for (const id of [...new Set(ids)]) {
    try {
      rows.push({ id, ok: true, status: await action(id) });
    } catch (err) {
      if (stopsRun(err)) {
        stop = err;
        break;
      }
      if (err instanceof ApiError && err.status === 404) notFound.push(id);
      const error = err instanceof ApiError ? err.serverMessage : firstLine(userMessage(err));
      rows.push({ id, ok: false, error });
      if (format !== 'table') note(io, `${paintErr(io, 'red', 'failed')} ${id}: ${error}`);
    }
  }
  if (stop && rows.length === 0) throw stop;
  await renderList(
    io,
    format,
    rows,
    [
      { header: 'id', value: (r) => r.id },
      { header: 'result', value: (r) => (r.ok ? verb : 'failed') },
      { header: 'status', value: (r) => r.status },
      { header: 'error', value: (r) => r.error },
    ],
    (r) => ({ id: r.id, ok: r.ok, status: r.status ?? null, error: r.error ?? null }),
  );
  if (stop) throw stop;

  const done = rows.filter((r) => r.ok).length;
  const failed = rows.length - done;
  note(io, `${done} ${verb}, ${failed} failed`);
  if (failed === 0) return;
  if (done > 0) throw new CliError(`${failed} of ${rows.length} failed`, EXIT.partial);
  if (notFound.length === rows.length) {
    throw new CliError(`no ${noun.one} found for ${notFound.join(', ')}`, EXIT.notFound);
  }
  throw new CliError(`none of the ${rows.length} ${noun.many} could be ${verb}`);
}

/**
 * A destructive verb over ids (users remove, media delete): asks on a terminal — without one it
 * refuses unless --yes (exit 2, nothing done) — then runs the batch. `verb` asks ("Remove"),
 * `doing` refuses ("not removing …"), `done` reports ("removed").
 */
export async function runConfirmedBatch(
  opts: { ids: string[]; globals: GlobalOptions },
  deps: Deps,
  spec: {
    verb: string;
    doing: string;
    done: string;
    noun: Noun;
    action: (client: ApiClient, id: string) => Promise<string>;
  },
): Promise<void> {
  const ids = [...new Set(opts.ids)];
  const what = describeIds(ids, spec.noun);
  const question = `${spec.verb} ${what}?`;
  const refusal = `not ${spec.doing} ${what}`;
  if (!(await confirmOrRefuse(deps, opts.globals, question, refusal))) {
    // Nothing was done, so the command did not do what it was asked: not a success (exit 1).
    throw new CliError(`nothing ${spec.done}: not confirmed`);
  }
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  await runBatch(ids, (id) => spec.action(client, id), spec.done, opts.globals, deps, spec.noun);
}
