/**
 * How a plan and a run's summary print: counts and the first changes as tables on a terminal,
 * the summary object for programs; failed rows with their line on stderr.
 */

import type { Outcome } from '../../../../import/apply.js';
import { CREATE_ONLY } from '../../../../import/columns.js';
import type { Change, Values } from '../../../../import/fields.js';
import type { Entry, Plan } from '../../../../import/plan.js';
import { valuesOf } from '../../../../import/snapshot.js';
import type { MatchField, Summary } from '../../../../import/types.js';
import { type IO, note, print } from '../../../context.js';
import { quoted } from '../../../output/quoted.js';
import {
  type Column,
  type Format,
  forPeople,
  renderList,
  renderOne,
} from '../../../output/render.js';

/** Rows of the "first changes" table, and of listed failures, before "… and N more". */
export const SHOWN = 20;
export const FAILURES_SHOWN = 100;

const SUMMARY_KEYS = [
  'created',
  'updated',
  'unchanged',
  'deactivated',
  'failed',
  'rows',
  'remaining',
  'leavers',
  'skipped',
  'invitations',
] as const;

/** A new user's fields (the match key is in its own column; secrets are masked). */
export function describeCreate(values: Values, match: MatchField): string {
  const set = Object.entries(values).filter(([f, v]) => v !== null && f !== match);
  return set.map(([f, v]) => `${f}=${CREATE_ONLY.has(f) ? '***' : quoted(v!)}`).join(', ');
}

const shown = (v: string | null) => (v === null ? '(empty)' : quoted(v));

export const describeChanges = (changes: Change[]) =>
  changes.map((c) => `${c.field}: ${shown(c.from)} → ${shown(c.to)}`).join(', ');

/** The summary: a one-row table for a person, else the scripting shape. */
export async function renderSummary(io: IO, format: Format, summary: Summary) {
  const keys = SUMMARY_KEYS.filter((k) => summary[k] !== undefined);
  const columns: Column<Summary>[] = keys.map((k) => ({ header: k, value: (s) => s[k] }));
  await renderOne(io, format, summary, columns);
}

/** A dry run's plan: summary counts, then (for a person) the first changes and deactivations. */
export async function renderPlan(
  io: IO,
  format: Format,
  plan: Plan,
  summary: Summary,
  match: MatchField,
) {
  if (!forPeople(format)) return renderSummary(io, format, summary);
  print(io, `Plan for ${plan.file} (${plan.rows} rows; nothing has been changed):`);
  const counts: [string, number | undefined][] = [
    ['create', summary.created],
    ['update', summary.updated],
    ['unchanged', summary.unchanged],
    ['deactivate', summary.deactivated],
    ['error', summary.failed],
    ['leaver', summary.leavers],
    ['skip (--resume)', summary.skipped],
  ];
  const shown = counts.filter(([, n]) => n !== undefined);
  await renderList(
    io,
    format,
    [summary],
    shown.map(([header], i) => ({ header, value: () => shown[i]![1] })),
  );
  const changes = plan.counts.create + plan.counts.update;
  if (changes > 0) {
    print(
      io,
      `First changes${changes > plan.preview.length ? ` (${plan.preview.length} of ${changes})` : ''}:`,
    );
    await renderList(io, format, plan.preview, [
      { header: 'line', value: (e: Entry) => e.line },
      { header: 'action', value: (e) => e.action },
      { header: match, value: (e) => e.key },
      {
        header: 'changes',
        // Wrapped, never cut: what a person reviews is every change the run will make.
        wrap: true,
        value: (e) =>
          e.action === 'create' ? describeCreate(e.values!, match) : describeChanges(e.changes!),
      },
    ]);
  }
  const leavers = (summary.leavers ?? 0) > 0;
  if (leavers) {
    const n = summary.leavers!;
    print(
      io,
      `Leavers (${plan.statusColumns.join(', ')}; never created or invited)${n > plan.leavers.length ? `, ${plan.leavers.length} of ${n}` : ''}:`,
    );
    await renderList(io, format, plan.leavers, [
      { header: 'line', value: (e: Entry) => e.line },
      { header: match, value: (e) => e.key },
      { header: 'status', value: (e) => e.leaver },
      { header: 'outcome', value: (e) => leaverOutcome(e) },
    ]);
  }
  if (plan.deactivate.length > 0) {
    print(
      io,
      `Deactivate (absent from the file)${plan.deactivate.length > SHOWN ? `, ${SHOWN} of ${plan.deactivate.length}` : ''}:`,
    );
    const shown = plan.deactivate.slice(0, SHOWN).map((u) => ({ ...u, values: valuesOf(u) }));
    await renderList(io, format, shown, [
      { header: 'id', value: (u) => u.id },
      { header: match, value: (u) => u.values[match] },
      ...(match === 'email'
        ? []
        : [{ header: 'email', value: (u: (typeof shown)[number]) => u.values.email }]),
      { header: 'status', value: (u) => u.status },
    ]);
  }
}

/** What happens to a leaver's row. */
export function leaverOutcome(e: Entry): string {
  if (e.action === 'deactivate') return 'deactivate (--sync)';
  if (e.deactivated) return 'deactivated already';
  return e.id ? 'left as is (--sync deactivates)' : 'not created';
}

/** Before a run: the rows marked as leavers, on stderr. */
export function noteLeavers(io: IO, plan: Plan) {
  const n = plan.counts.leaver + plan.counts.deactivate;
  if (n === 0) return;
  const by = plan.statusColumns.join(', ');
  note(
    io,
    `${n} row${n === 1 ? ' is a leaver' : 's are leavers'} (${by}): never created or invited${plan.counts.deactivate > 0 ? `; ${plan.counts.deactivate} to deactivate (--sync)` : ''}:`,
  );
  for (const e of plan.leavers.slice(0, SHOWN)) {
    note(io, `  line ${e.line} ${e.key} ${e.leaver}: ${leaverOutcome(e)}`);
  }
  if (n > SHOWN) note(io, `  … and ${n - SHOWN} more`);
}

/** Before a `--sync` run (or its refusal): who would be deactivated, on stderr. */
export function noteDeactivations(io: IO, plan: Plan, match: MatchField) {
  const n = plan.deactivate.length;
  if (n === 0) return;
  note(
    io,
    `--sync: ${n} user${n === 1 ? '' : 's'} of the branch ${n === 1 ? 'is' : 'are'} absent from ${plan.file}:`,
  );
  for (const u of plan.deactivate.slice(0, SHOWN)) {
    const values = valuesOf(u);
    const email = match === 'email' ? '' : (values.email ?? '');
    note(io, `  ${u.id} ${values[match] ?? `(no ${match})`} ${email}`.trimEnd());
  }
  if (n > SHOWN) note(io, `  … and ${n - SHOWN} more`);
}

/** Failed rows, with line and reason, on stderr. */
export function noteFailures(io: IO, failures: Outcome[], report?: string) {
  for (const f of failures.slice(0, FAILURES_SHOWN)) {
    const where = f.line !== undefined ? `line ${f.line}` : `${f.action} ${f.id}`;
    note(io, `${where}${f.key ? ` (${f.key})` : ''}: ${f.error}`);
  }
  if (failures.length > FAILURES_SHOWN) {
    const more = failures.length - FAILURES_SHOWN;
    note(
      io,
      `… and ${more} more failed rows${report ? `: see ${report}` : ' (--report out.csv lists every row)'}`,
    );
  }
}
