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
import { interactive, note } from '../../context.js';
import { CliError, EXIT, firstLine } from '../../errors.js';
import { forPeople, renderList, resolveFormat, type View } from '../../output/render.js';
import { paintErr } from '../../output/style.js';
import type { Preview } from './dry-run.js';
import { expandIds, type IdItem, isBadId } from './ids.js';
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

/** What trying each id gave: a row per id, the values of those done, and what stopped the run. */
export interface Outcome<V> {
  rows: BatchRow[];
  values: V[];
  notFound: string[];
  /** The error that stopped the run (the remaining ids were not tried). */
  stop?: unknown;
}

/**
 * Runs `action` for each id in turn (duplicates once; a `BadId` fails without a request), by the
 * rules above. `noteFailures`: also name each failure on stderr (when the output has no row for
 * it a person would see).
 */
export async function tryEach<V>(
  items: IdItem[],
  action: (id: string) => Promise<V>,
  statusOf: (value: V) => string | undefined,
  deps: Deps,
  noteFailures: boolean,
): Promise<Outcome<V>> {
  const { io } = deps;
  const { ApiError, stopsRun } = await import('../../../client/errors.js');
  const { userMessage } = await import('../../advice.js');
  const out: Outcome<V> = { rows: [], values: [], notFound: [] };
  const failed = (id: string, error: string) => {
    out.rows.push({ id, ok: false, error });
    if (noteFailures) note(io, `${paintErr(io, 'red', 'failed')} ${id}: ${error}`);
  };
  for (const item of [...new Set(items)]) {
    if (isBadId(item)) {
      failed(item.text, item.error);
      continue;
    }
    try {
      const value = await action(item);
      out.values.push(value);
      out.rows.push({ id: item, ok: true, status: statusOf(value) });
    } catch (err) {
      if (stopsRun(err)) {
        out.stop = err;
        break;
      }
      if (err instanceof ApiError && err.status === 404) out.notFound.push(item);
      failed(item, err instanceof ApiError ? err.serverMessage : firstLine(userMessage(err)));
    }
  }
  if (out.stop && out.rows.length === 0) throw out.stop;
  return out;
}

/**
 * What a row done says in the result column and the count: `verb`, unless the verb's own rule
 * says otherwise (an activation that left a user pending is not one activated).
 */
export type ResultOf = (row: BatchRow) => string | undefined;

/** `2 activated, 1 still pending (never signed up), 0 failed`: the rows done, by result. */
function tally(rows: BatchRow[], verb: string, resultOf?: ResultOf): string {
  const counts = new Map<string, number>([[verb, 0]]);
  for (const r of rows) {
    if (!r.ok) continue;
    const result = resultOf?.(r) ?? verb;
    counts.set(result, (counts.get(result) ?? 0) + 1);
  }
  const failed = rows.filter((r) => !r.ok).length;
  return [...[...counts].map(([result, n]) => `${n} ${result}`), `${failed} failed`].join(', ');
}

/** After the output: the stopping error, else the exit the rows call for (see the top). */
export function finishBatch(
  outcome: Outcome<unknown>,
  verb: string,
  noun: Noun,
  deps: Deps,
  resultOf?: ResultOf,
) {
  const { rows, notFound, stop } = outcome;
  if (stop) throw stop;
  const done = rows.filter((r) => r.ok).length;
  const failed = rows.length - done;
  note(deps.io, tally(rows, verb, resultOf));
  if (failed === 0) return;
  if (done > 0) throw new CliError(`${failed} of ${rows.length} failed`, EXIT.partial);
  if (notFound.length === rows.length) {
    throw new CliError(`no ${noun.one} found for ${notFound.join(', ')}`, EXIT.notFound);
  }
  throw new CliError(`none of the ${rows.length} ${noun.many} could be ${verb}`);
}

export async function runBatch(
  ids: IdItem[],
  action: (id: string) => Promise<string>,
  verb: string,
  globals: GlobalOptions,
  deps: Deps,
  noun: Noun = { one: 'user', many: 'users' },
  resultOf?: ResultOf,
): Promise<void> {
  const format = resolveFormat(globals.output, deps.io);
  const outcome = await tryEach(ids, action, (s) => s, deps, !forPeople(format));
  await renderList(
    deps.io,
    format,
    outcome.rows,
    [
      { header: 'id', value: (r) => r.id },
      { header: 'result', value: (r) => (r.ok ? (resultOf?.(r) ?? verb) : 'failed') },
      { header: 'status', value: (r) => r.status },
      { header: 'error', value: (r) => r.error },
    ],
    (r) => ({ id: r.id, ok: r.ok, status: r.status ?? null, error: r.error ?? null }),
  );
  finishBatch(outcome, verb, noun, deps, resultOf);
}

/**
 * A destructive verb over ids (users remove, media delete): asks on a terminal — without one it
 * refuses unless --yes (exit 2, nothing done) — then runs the batch. `verb` asks ("Remove"),
 * `doing` refuses ("not removing …"), `done` reports ("removed").
 */
export async function runConfirmedBatch(
  opts: { ids: string[]; dryRun?: boolean; globals: GlobalOptions },
  deps: Deps,
  spec: {
    verb: string;
    doing: string;
    done: string;
    noun: Noun;
    action: (client: ApiClient, id: string) => Promise<string>;
    /** `--dry-run`: what the action would do to this id (reads only). */
    preview: (client: ApiClient, id: string) => Promise<Preview>;
    /**
     * How the question names this id (`Ann Smith <ann@example.com> [id]`), read before asking
     * so a person confirms whom, not an id; undefined (or a failed read): the id as given.
     */
    label?: (client: ApiClient, id: string) => Promise<string | undefined>;
  },
): Promise<void> {
  if (opts.dryRun) {
    const { runDryRun } = await import('./dry-run.js');
    await runDryRun(opts.ids, spec.preview, opts.globals, deps, spec.noun);
    return;
  }
  const ids = [...new Set(await expandIds(opts.ids, deps))];
  const given = ids.map((id) => (isBadId(id) ? id.text : id));
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  // Read only when a person will be asked: --yes and scripts cost no extra request.
  const asking = !opts.globals.yes && interactive(deps.io);
  const labels =
    asking && spec.label ? await labelsOf(given, ids, (id) => spec.label!(client, id)) : given;
  const what = describeIds(labels, spec.noun);
  const refusal = `not ${spec.doing} ${describeIds(given, spec.noun)}`;
  // No ids (an empty list piped in) means nothing to do: nothing to confirm.
  if (
    ids.length > 0 &&
    !(await confirmOrRefuse(deps, opts.globals, `${spec.verb} ${what}?`, refusal))
  ) {
    // Nothing was done, so the command did not do what it was asked: not a success (exit 1).
    throw new CliError(`nothing ${spec.done}: not confirmed`);
  }
  await runBatch(ids, (id) => spec.action(client, id), spec.done, opts.globals, deps, spec.noun);
}

/** A question lists every id; beyond this many, the rest are named by id (no request each). */
const LABELLED_UP_TO = 20;

/** What `label` says for each id it names (the first LABELLED_UP_TO); the id as given otherwise. */
async function labelsOf(
  given: string[],
  ids: IdItem[],
  label: (id: string) => Promise<string | undefined>,
): Promise<string[]> {
  const out: string[] = [];
  for (const [i, id] of ids.entries()) {
    const text = given[i]!;
    const name =
      i < LABELLED_UP_TO && !isBadId(id) ? await label(id).catch(() => undefined) : undefined;
    out.push(name || text);
  }
  return out;
}

/** `show -`: the records found, as one list in `view`; an id not found fails on its own. */
export async function showEach<T>(
  items: IdItem[],
  get: (id: string) => Promise<T>,
  view: View<T>,
  noun: Noun,
  deps: Deps,
): Promise<void> {
  const outcome = await tryEach(items, get, () => undefined, deps, true);
  await renderList(deps.io, view.format, outcome.values, view.columns, view.json);
  finishBatch(outcome, 'shown', noun, deps);
}
