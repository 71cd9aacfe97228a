/**
 * The import pipeline: read → map → plan → apply → report. Everything the file can be wrong
 * about is found before the first request; a refused `--sync` or a `--dry-run` sends nothing.
 */

import { safeText } from '../contract/text-safe.js';
import { applyPlan, type Outcome } from './apply.js';
import { type Layout, parseMaps, READ_ONLY, resolveHeader } from './columns.js';
import { ImportError, importUsageError } from './errors.js';
import { buildPlan, type Entry, type Plan, type PlanOptions, replayPlan } from './plan.js';
import { type PlannedRow, plannedDeactivation, plannedRow } from './planned.js';
import { detectPreset, PRESETS, type Preset, type PresetName } from './presets.js';
import { type CsvFile, openCsv, type ReadOptions } from './read.js';
import { type DoneRow, ReportWriter, readDone } from './report.js';
import { PlanCheck, type SavedPlan } from './saved-plan.js';
import { shellWord } from './shell-word.js';
import { type Snapshot, takeSnapshot } from './snapshot.js';
import { DEFAULT_MAX_DEACTIVATE, type DeactivateLimit, syncRefusal } from './sync.js';
import type { ImportClient, MatchField, Summary } from './types.js';

/**
 * Files up to this size are read once: pass two replays pass one's reading (an HR file of
 * 20,000 rows is well below it, and reading it again was a good part of a dry run:
 * bench/README.md, "Read once"). Larger ones are read twice, so memory stays bounded by the
 * branch, not the file.
 */
const KEEP_ROWS_BYTES = 4 * 1024 * 1024;

export interface ImportOptions {
  file: string;
  encoding?: string;
  delimiter?: string;
  maps?: string[];
  ignoreUnknown?: boolean;
  emptyClears?: boolean;
  /** The export's format: its columns, match key, status columns and preamble. */
  preset?: PresetName;
  /** A column whose values say who is active (`activeValues`); every other value is a leaver. */
  statusColumn?: string;
  activeValues?: string[];
  /** Lines before the header to skip (after an Excel `sep=` line, which is always honoured). */
  skipLines?: number;
  /** A workbook's sheet (name or position) and header row. */
  sheet?: string;
  headerRow?: number;
  /** Default: the preset's, else externalId. */
  match?: MatchField;
  dryRun?: boolean;
  concurrency?: number;
  sendMail?: boolean;
  report?: string;
  resume?: string;
  sync?: boolean;
  maxDeactivate?: DeactivateLimit;
  /** Aborted: send no more rows; those in flight finish and are reported. */
  signal?: AbortSignal;
  /** Apply exactly this saved plan: rows whose user changed since are refused (see saved-plan). */
  plan?: SavedPlan;
  /** With `plan`: send the rows that are as planned, fail the others (exit 5). */
  partial?: boolean;
}

/** What the engine reports progress to (the CLI draws it: cli/output/progress-line.ts). */
export interface Progress {
  tick(): void;
  end(): void;
}

export interface ImportHooks {
  onWarning?: (message: string) => void;
  /** The plan, before anything is sent (also for a dry run or a refused sync). */
  onPlan?: (plan: Plan) => void;
  progress?: (total: number) => Progress;
  /**
   * Before the first row is sent (a dry run: before its plan is shown), when the plan creates
   * users: the fields every new user has a column for, so the caller can see to what the
   * service requires (role and locale).
   */
  beforeCreates?: (fields: string[]) => Promise<void>;
  /** A real run, right before the first row is sent (after beforeCreates): record the run. */
  beforeSending?: () => Promise<void> | void;
  /** A dry run: every row of the plan in file order, then the `--sync` deactivations. */
  onPlannedRow?: (planned: PlannedRow, row?: number) => Promise<void> | void;
}

export interface ImportResult {
  plan: Plan;
  summary: Summary;
  /** Rows (and deactivations) that failed, in file order. */
  failures: Outcome[];
  /** A dry run's `--sync` beyond `--max-deactivate` (a real run throws it instead). */
  refusal?: ImportError;
  /** The run was stopped (`signal`) before every row was sent. */
  interrupted?: boolean;
}

const planned = (e: Entry): Outcome => ({
  row: e.row,
  line: e.line,
  key: e.key,
  action: e.action,
  status: e.action === 'error' ? 'failed' : 'ok',
  id: e.id,
  error: e.error,
});

/** What the plan would do (or, for a run, what is known before sending), as a summary. */
function plannedSummary(plan: Plan, resumed: boolean): Summary {
  const { create, update, unchanged, error, skip, leaver, deactivate } = plan.counts;
  const summary: Summary = {
    created: create,
    updated: update,
    unchanged,
    deactivated: plan.deactivate.length + deactivate,
    failed: error,
    rows: plan.rows,
  };
  if (plan.statusColumns.length > 0) summary.leavers = leaver + deactivate;
  if (resumed) summary.skipped = skip;
  return summary;
}

function openReport(opts: ImportOptions): ReportWriter | undefined {
  const path = opts.report ?? (opts.dryRun ? undefined : opts.resume);
  if (!path) return undefined;
  if (opts.dryRun && path === opts.resume) {
    // A dry run's plan would overwrite the record of the rows already done.
    throw importUsageError(
      `--dry-run --report ${path} would overwrite the --resume report; name another file`,
    );
  }
  return ReportWriter.open(path, !opts.dryRun && path === opts.resume, opts.dryRun);
}

/** The file again, for the second pass; its header must not have changed. */
async function reopen(first: CsvFile, opts: ImportOptions, read: ReadOptions): Promise<CsvFile> {
  const again = await openCsv(opts.file, { ...read, delimiter: first.delimiter });
  if (again.header.join('\n') !== first.header.join('\n')) {
    throw new ImportError(`${opts.file} changed while it was being imported; run the import again`);
  }
  return again;
}

/** How the file's columns are read: by the preset, or the default names and aliases. */
function layoutOf(
  csv: CsvFile,
  opts: ImportOptions,
  preset: Preset | undefined,
  maps: Map<string, string | null>,
  hooks: ImportHooks,
) {
  const status =
    opts.statusColumn !== undefined
      ? { column: opts.statusColumn, active: opts.activeValues ?? [] }
      : undefined;
  const header = {
    file: opts.file,
    maps,
    ignoreUnknown: opts.ignoreUnknown,
    preset,
    status,
  };
  const looksLike = detectPreset(csv.header);
  const suggestion =
    looksLike && looksLike !== preset
      ? `${opts.file} looks like ${/^[aeiou]/i.test(looksLike.title) ? 'an' : 'a'} ${looksLike.title}: try --preset ${looksLike.name}`
      : undefined;
  let layout: Layout;
  try {
    layout = resolveHeader(csv.header, header);
  } catch (err) {
    if (suggestion && err instanceof ImportError) {
      throw new ImportError(`${err.message}\n${suggestion}`, err.kind);
    }
    throw err;
  }
  if (layout.readOnly) {
    // Once per file, not per row: an export imported again has the column on every row.
    for (const { column, field } of layout.readOnly) {
      hooks.onWarning?.(
        `${opts.file}: column '${safeText(column)}' is read-only and ignored: ${READ_ONLY.get(field)}`,
      );
    }
  }
  if (layout.ignoredStatus) {
    // The one column an HR export must not lose without a word: leavers would be imported.
    const column = layout.ignoredStatus;
    hooks.onWarning?.(
      `${opts.file}: column '${safeText(column)}' looks like who is active and is skipped (--ignore-unknown): leavers are imported like everyone else; read it with --status-column ${shellWord(column)} --active-values <values meaning active>`,
    );
  }
  if (suggestion) {
    const leavers = looksLike!.status.length > 0 && !status ? ' (it also reads who has left)' : '';
    hooks.onWarning?.(`${suggestion}${leavers}`);
  }
  if (preset && !status && preset.status.length > 0 && layout.status.length === 0) {
    hooks.onWarning?.(
      `${opts.file} has no ${preset.status.map((s) => s.column).join(' or ')} column: leavers cannot be told apart and are imported like everyone else (${preset.source})`,
    );
  }
  return layout;
}

export async function importCsv(
  client: ImportClient,
  opts: ImportOptions,
  hooks: ImportHooks = {},
): Promise<ImportResult> {
  const preset = opts.preset ? PRESETS[opts.preset] : undefined;
  if (opts.preset && !preset) {
    throw importUsageError(
      `--preset: unknown preset '${opts.preset}'; use one of ${Object.keys(PRESETS).join(', ')}`,
    );
  }
  if ((opts.statusColumn === undefined) !== (opts.activeValues === undefined)) {
    throw importUsageError(
      '--status-column and --active-values go together: the column, and the values that mean active (e.g. --status-column Status --active-values Active)',
    );
  }
  const match = opts.match ?? preset?.match ?? 'externalId';
  const maps = parseMaps(opts.maps ?? []);
  const done: Map<number, DoneRow> | undefined = opts.resume ? readDone(opts.resume) : undefined;
  const read: ReadOptions = {
    encoding: opts.encoding,
    delimiter: opts.delimiter,
    skipLines: opts.skipLines,
    sheet: opts.sheet,
    headerRow: opts.headerRow,
    preamble: preset?.preamble,
  };
  const csv = await openCsv(opts.file, { ...read, onWarning: hooks.onWarning });
  const columns = layoutOf(csv, opts, preset, maps, hooks);
  const snapshot = await takeSnapshot(client);
  try {
    return await planAndApply(client, opts, hooks, { csv, columns, snapshot, match, done, read });
  } finally {
    snapshot.close();
  }
}

/** What importCsv read and resolved before the plan. */
interface Prepared {
  csv: CsvFile;
  columns: Layout;
  snapshot: Snapshot;
  match: MatchField;
  done: Map<number, DoneRow> | undefined;
  read: ReadOptions;
}

async function planAndApply(
  client: ImportClient,
  opts: ImportOptions,
  hooks: ImportHooks,
  { csv, columns, snapshot, match, done, read }: Prepared,
): Promise<ImportResult> {
  const planOptions: PlanOptions = {
    match,
    emptyClears: opts.emptyClears,
    sync: opts.sync,
    done,
    keepRows: csv.bytes <= KEEP_ROWS_BYTES,
  };
  const plan = await buildPlan(csv, columns, snapshot, planOptions);
  if (plan.rows === 0) hooks.onWarning?.(`${opts.file} has a header but no rows`);
  hooks.onPlan?.(plan);
  const refusal = opts.sync
    ? syncRefusal(plan, opts.maxDeactivate ?? DEFAULT_MAX_DEACTIVATE)
    : undefined;
  if (refusal && !opts.dryRun) throw refusal;

  const summary = plannedSummary(plan, done !== undefined);
  summary.invitations = (opts.sendMail ?? true) ? plan.invitations : 0;
  const report = openReport(opts);
  const run: PlanRun = {
    plan,
    summary,
    report,
    match,
    done,
    replay: async () =>
      replayPlan(
        plan,
        plan.kept ? csv : await reopen(csv, opts, read),
        columns,
        snapshot,
        planOptions,
      ),
    newUserFields: () => columns.fields.filter((f): f is string => f !== null),
  };
  try {
    if (opts.dryRun) return await showPlan(run, hooks, refusal);
    return await applyRun(client, opts, hooks, run);
  } finally {
    report?.close();
  }
}

/** What planAndApply planned, for the dry run and the real run alike. */
interface PlanRun {
  plan: Plan;
  summary: Summary;
  report: ReportWriter | undefined;
  match: MatchField;
  done: Map<number, DoneRow> | undefined;
  /** The plan's rows again in file order (the file read again unless the plan kept them). */
  replay(): Promise<AsyncIterable<Entry>>;
  /** The fields every new user has a column for. */
  newUserFields(): string[];
}

/** A dry run: the plan, row by row, to the report and `onPlannedRow`; nothing is sent. */
async function showPlan(
  { plan, summary, report, match, replay, newUserFields }: PlanRun,
  hooks: ImportHooks,
  refusal: ImportError | undefined,
): Promise<ImportResult> {
  // What the run would refuse (or ask) before its first create, the dry run does too.
  if (plan.counts.create > 0) await hooks.beforeCreates?.(newUserFields());
  if (report || hooks.onPlannedRow) {
    const emit = async (r: PlannedRow, row?: number) => {
      report?.write({ ...r, ...(row ? { row } : {}), status: 'planned' });
      await hooks.onPlannedRow?.(r, row);
    };
    for await (const e of await replay()) await emit(plannedRow(e), e.row);
    for (const u of plan.deactivate) await emit(plannedDeactivation(u, match));
  }
  return { plan, summary, failures: plan.errors.map(planned), refusal };
}

/**
 * A saved plan: the plan made now must be the saved one, row by row, before anything is sent.
 * Returns the check (its held rows are not sent) and the deactivations the saved plan holds.
 */
async function checkSavedPlan(
  { plan, match, replay }: PlanRun,
  opts: ImportOptions,
): Promise<{ check?: PlanCheck; deactivate: Plan['deactivate'] }> {
  if (!opts.plan) return { deactivate: plan.deactivate };
  const check = new PlanCheck(opts.plan);
  for await (const e of await replay()) check.check({ ...plannedRow(e), row: e.row });
  const saved = new Set(opts.plan.rows.filter((r) => r.row === undefined).map((r) => r.id));
  for (const u of plan.deactivate) check.check(plannedDeactivation(u, match));
  check.finish();
  if (check.changed.length > 0 && !opts.partial) {
    throw new ImportError(
      `${check.changed.length} row${check.changed.length === 1 ? '' : 's'} of the plan no longer hold${check.changed.length === 1 ? 's' : ''}, so nothing was applied (make a new plan with --dry-run --save-plan, or apply the rest with --partial):\n${check.changed.map((c) => `  ${c}`).join('\n')}`,
    );
  }
  return { check, deactivate: plan.deactivate.filter((u) => saved.has(u.id)) };
}

const SUMMARY_OF = {
  create: 'created',
  update: 'updated',
  unchanged: 'unchanged',
  deactivate: 'deactivated',
} as const;

/** A real run: the plan's rows sent (and reported) as it walks them, then `--sync`'s leavers. */
async function applyRun(
  client: ImportClient,
  opts: ImportOptions,
  hooks: ImportHooks,
  run: PlanRun,
): Promise<ImportResult> {
  const { plan, summary, report, match, done, replay } = run;
  const { check, deactivate } = await checkSavedPlan(run, opts);
  if (plan.counts.create > 0) await hooks.beforeCreates?.(run.newUserFields());
  await hooks.beforeSending?.();
  // What is sent is counted as it completes; what the plan settled is counted already.
  Object.assign(summary, { created: 0, updated: 0, deactivated: 0, invitations: 0 });
  const failures: Outcome[] = plan.errors.map(planned);
  for (const c of check?.changed ?? [])
    hooks.onWarning?.(`not applied, changed since the plan: ${c}`);
  const appending = report !== undefined && report.path === opts.resume;
  const sends = plan.counts.create + plan.counts.update + plan.counts.deactivate;
  // What the plan settled without a request, counted as each row is reached, and the rows
  // (and --sync deactivations) done: an interrupted run reports only what it got to.
  const reached: Reached = { walked: false, unchanged: 0, errors: 0, leavers: 0, skipped: 0 };
  const settled = { rows: 0, absent: 0 };

  /** Rows to send; the others only go to the report. */
  async function* toSend(): AsyncGenerator<Entry> {
    if (sends === 0 && !report) return;
    reached.walked = true;
    for await (const e of await replay()) {
      const sent = e.action === 'create' || e.action === 'update' || e.action === 'deactivate';
      const held = check?.held.has(e.row) && e.action !== 'error';
      if (!sent || held) settled.rows++;
      // A held row is a failure of its own (counted below), whatever the plan held for it.
      if (!held) {
        if (e.action === 'unchanged') reached.unchanged++;
        else if (e.action === 'error') reached.errors++;
        else if (e.action === 'leaver') reached.leavers++;
        else if (e.action === 'skip') reached.skipped++;
      }
      if (held) {
        const outcome: Outcome = {
          ...planned(e),
          status: 'failed',
          error: 'changed since the plan was made; not applied (--partial)',
        };
        report?.write(outcome);
        summary.failed++;
        failures.push(outcome);
      } else if (e.action === 'create' || e.action === 'update' || e.action === 'deactivate')
        yield e;
      else if (e.action === 'skip') {
        if (!report || appending) continue;
        const before = done!.get(e.row)!;
        report.write({
          row: e.row,
          line: e.line,
          key: e.key,
          action: before.action,
          id: before.id,
          status: 'ok',
        });
      } else report?.write(planned(e));
    }
  }

  const bar = hooks.progress?.(sends + deactivate.length);
  try {
    await applyPlan(client, toSend(), deactivate, {
      match,
      concurrency: opts.concurrency ?? 8,
      sendMail: opts.sendMail ?? true,
      signal: opts.signal,
      onOutcome: (o) => {
        report?.write(o);
        bar?.tick();
        if (o.row === undefined) settled.absent++;
        else {
          settled.rows++;
          if (o.action === 'deactivate') reached.leavers++;
        }
        if (o.status === 'failed') {
          summary.failed++;
          failures.push(o);
        } else if (o.action in SUMMARY_OF)
          summary[SUMMARY_OF[o.action as keyof typeof SUMMARY_OF]]++;
        if (o.invited) summary.invitations!++;
      },
    });
  } finally {
    bar?.end();
  }
  failures.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  const interrupted = opts.signal?.aborted;
  if (interrupted && reached.walked) {
    const remaining = plan.rows - settled.rows + deactivate.length - settled.absent;
    countReached(summary, plan, reached, remaining);
  }
  return { plan, summary, failures, interrupted };
}

/** What an interrupted run got to, counted as it walked the plan. */
interface Reached {
  walked: boolean;
  unchanged: number;
  errors: number;
  leavers: number;
  skipped: number;
}

/**
 * An interrupted run: the plan's counts of rows never reached are not results, only what was
 * applied, and what remains (a --resume of the report, or the same import again, does the rest).
 */
function countReached(summary: Summary, plan: Plan, reached: Reached, remaining: number) {
  summary.unchanged = reached.unchanged;
  summary.failed += reached.errors - plan.counts.error;
  if (summary.leavers !== undefined) summary.leavers = reached.leavers;
  if (summary.skipped !== undefined) summary.skipped = reached.skipped;
  summary.remaining = remaining;
}
