/**
 * The import pipeline: read → map → plan → apply → report. Everything the file can be wrong
 * about is found before the first request; a refused `--sync` or a `--dry-run` sends nothing.
 */
import type { CliError } from '../cli/errors.js';
import { applyPlan, type Outcome } from './apply.js';
import { parseMaps, resolveHeader } from './columns.js';
import { buildPlan, type Entry, type Plan } from './plan.js';
import type { Progress } from './progress.js';
import { openCsv } from './read.js';
import { type DoneRow, ReportWriter, readDone } from './report.js';
import { takeSnapshot } from './snapshot.js';
import { DEFAULT_MAX_DEACTIVATE, type DeactivateLimit, syncRefusal } from './sync.js';
import type { ImportClient, MatchField, Summary } from './types.js';

export interface ImportOptions {
  file: string;
  encoding?: string;
  delimiter?: string;
  maps?: string[];
  ignoreUnknown?: boolean;
  emptyClears?: boolean;
  match?: MatchField;
  dryRun?: boolean;
  concurrency?: number;
  sendMail?: boolean;
  report?: string;
  resume?: string;
  sync?: boolean;
  maxDeactivate?: DeactivateLimit;
}

export interface ImportHooks {
  onWarning?: (message: string) => void;
  /** The plan, before anything is sent (also for a dry run or a refused sync). */
  onPlan?: (plan: Plan) => void;
  progress?: (total: number) => Progress;
}

export interface ImportResult {
  plan: Plan;
  summary: Summary;
  /** Rows (and deactivations) that failed, in file order. */
  failures: Outcome[];
  /** A dry run's `--sync` beyond `--max-deactivate` (a real run throws it instead). */
  refusal?: CliError;
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

/** Counts outcomes as they come (a 100,000-row run keeps only its failures). */
function tally(plan: Plan, resumed: boolean) {
  const summary: Summary = {
    created: 0,
    updated: 0,
    unchanged: 0,
    deactivated: 0,
    failed: 0,
    rows: plan.rows,
  };
  if (resumed) summary.skipped = plan.entries.filter((e) => e.action === 'skip').length;
  const key = {
    create: 'created',
    update: 'updated',
    unchanged: 'unchanged',
    deactivate: 'deactivated',
  } as const;
  const failures: Outcome[] = [];
  return {
    summary,
    failures,
    add(o: Outcome) {
      if (o.status === 'failed') {
        summary.failed++;
        failures.push(o);
      } else if (o.action in key) summary[key[o.action as keyof typeof key]]++;
    },
  };
}

/** What the plan would do, counted like a run's summary. */
function plannedSummary(plan: Plan, resumed: boolean): Summary {
  const n = (action: string) => plan.entries.filter((e) => e.action === action).length;
  const summary: Summary = {
    created: n('create'),
    updated: n('update'),
    unchanged: n('unchanged'),
    deactivated: plan.deactivate.length,
    failed: n('error'),
    rows: plan.rows,
  };
  if (resumed) summary.skipped = n('skip');
  return summary;
}

function openReport(opts: ImportOptions): ReportWriter | undefined {
  const path = opts.report ?? (opts.dryRun ? undefined : opts.resume);
  if (!path) return undefined;
  return ReportWriter.open(path, !opts.dryRun && path === opts.resume);
}

export async function importCsv(
  client: ImportClient,
  opts: ImportOptions,
  hooks: ImportHooks = {},
): Promise<ImportResult> {
  const match = opts.match ?? 'externalId';
  const maps = parseMaps(opts.maps ?? []);
  const done: Map<number, DoneRow> | undefined = opts.resume ? readDone(opts.resume) : undefined;
  const csv = await openCsv(opts.file, {
    encoding: opts.encoding,
    delimiter: opts.delimiter,
    onWarning: hooks.onWarning,
  });
  const columns = resolveHeader(csv.header, {
    file: opts.file,
    maps,
    ignoreUnknown: opts.ignoreUnknown,
  });
  const snapshot = await takeSnapshot(client, match);
  const plan = await buildPlan(csv, columns, snapshot, {
    match,
    emptyClears: opts.emptyClears,
    sync: opts.sync,
    done,
  });
  if (plan.rows === 0) hooks.onWarning?.(`${opts.file} has a header but no rows`);
  hooks.onPlan?.(plan);
  const refusal = opts.sync
    ? syncRefusal(plan, opts.maxDeactivate ?? DEFAULT_MAX_DEACTIVATE)
    : undefined;
  if (refusal && !opts.dryRun) throw refusal;

  const report = openReport(opts);
  try {
    if (opts.dryRun) {
      for (const e of plan.entries) report?.write({ ...planned(e), status: 'planned' });
      for (const u of plan.deactivate)
        report?.write({
          key: u.values[match] ?? undefined,
          action: 'deactivate',
          id: u.id,
          status: 'planned',
        });
      return {
        plan,
        summary: plannedSummary(plan, done !== undefined),
        failures: plan.entries.filter((e) => e.action === 'error').map(planned),
        refusal,
      };
    }
    const counts = tally(plan, done !== undefined);
    const record = (o: Outcome) => {
      counts.add(o);
      report?.write(o);
    };
    const appending = report !== undefined && report.path === opts.resume;
    for (const e of plan.entries) {
      if (e.action === 'error' || e.action === 'unchanged') record(planned(e));
      else if (e.action === 'skip' && report && !appending) {
        const before = done!.get(e.row)!;
        report.write({
          row: e.row,
          line: e.line,
          key: e.key,
          action: before.action,
          id: before.id,
          status: 'ok',
        });
      }
    }
    const total =
      plan.entries.filter((e) => e.action === 'create' || e.action === 'update').length +
      plan.deactivate.length;
    const bar = hooks.progress?.(total);
    try {
      await applyPlan(client, plan, {
        match,
        concurrency: opts.concurrency ?? 8,
        sendMail: opts.sendMail ?? true,
        onOutcome: (o) => {
          record(o);
          bar?.tick();
        },
      });
    } finally {
      bar?.end();
    }
    counts.failures.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    return { plan, summary: counts.summary, failures: counts.failures };
  } finally {
    report?.close();
  }
}
