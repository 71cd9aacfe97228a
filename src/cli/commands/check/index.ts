/** `roster check`: the CI smoke check of a service and the token in use. */
import type { Command } from 'commander';
import { splitList } from '../../../contract/list.js';
import { isScope, SCOPES } from '../../../contract/scopes.js';
import { type Deps, type GlobalOptions, print } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { withSpinner } from '../../output/progress.js';
import { type Column, type Format, listWriter, resolveFormat } from '../../output/render.js';
import { paint } from '../../output/style.js';
import { parsePositiveSeconds } from '../../parse.js';
import { globalsOf } from '../shared/options.js';
import { type StartDeadline, startDeadline, timerDeadline } from './deadline.js';
import type { Step } from './probe.js';

export interface CheckOptions {
  write?: boolean;
  json?: boolean;
  /** Scopes the token must have, comma-separated (`users:read,media:read`). */
  expectScopes?: string;
  /** Seconds the whole run may take, retries included (default 60). */
  deadline?: number;
  globals: GlobalOptions;
}

export interface CheckReport {
  ok: boolean;
  baseUrl: string;
  vendor: string;
  write: boolean;
  steps: Step[];
}

export function register(
  program: Command,
  deps: Deps,
  runFn: (opts: CheckOptions, deps: Deps) => Promise<unknown> = runCheck,
) {
  program
    .command('check')
    .description('smoke-check the service: reachability, auth, version negotiation per endpoint')
    .option('--write', 'also create, change and remove throwaway users (and a medium)')
    .option('--json', 'print the report as JSON (same as -o json)')
    .option(
      '--expect-scopes <list>',
      'scopes the token must have, e.g. users:read,media:read: a step needing a missing one fails',
    )
    .option(
      '--deadline <seconds>',
      'end the whole check after this long, retries included; the step it cuts fails',
      parsePositiveSeconds,
      60,
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 no step failed (skipped, "not offered" and "not permitted" steps do not fail),
3 the token was rejected (401/403) or lacks an expected scope, 1 any other failure. "Not
permitted (needs media:read)": the token works but may not run that step; with
--expect-scopes naming that scope it fails (check --write --expect-scopes users:write,media:write
for a job that needs the writes). "Not offered": the service does not have it (no
GET /api, a version it does not serve, such as the deprecated user.v2 on the real platform);
the media types this client itself sends must be offered. The report goes to stdout: lines of text by default, or
-o json|ndjson|csv|table. The media steps run only when the service answers GET /media.
--deadline bounds the whole run, retries and their waits included (--timeout bounds one
request): the step in flight fails as "cut by --deadline", the rest are skipped, exit 1.
  roster check --deadline 20`,
    )
    .action(async (opts: Omit<CheckOptions, 'globals'>, cmd: Command) => {
      await runFn({ ...opts, globals: globalsOf(cmd) }, deps);
    });
}

const MARK = {
  pass: ['✓', 'green'],
  fail: ['✗', 'red'],
  skip: ['-', 'dim'],
  'not offered': ['○', 'dim'],
  'not permitted': ['⊘', 'yellow'],
} as const;

const STEP_COLUMNS: Column<Step>[] = [
  { header: 'step', value: (s) => s.name },
  { header: 'result', value: (s) => s.result },
  { header: 'detail', value: (s) => s.detail },
  { header: 'ms', value: (s) => s.ms },
];

/**
 * The report: with -o, its steps in an envelope holding the rest (JSON and YAML print the whole
 * report, the tabular formats and NDJSON the steps); without, lines for a person.
 */
async function render(report: CheckReport, format: Format | undefined, deps: Deps) {
  const { io } = deps;
  if (format !== undefined) {
    const { steps, ...head } = report;
    const view = { format, columns: STEP_COLUMNS, json: (s: Step) => s };
    const out = await listWriter(io, view, { key: 'steps', head });
    for (const step of steps) await out.write(step);
    await out.end();
    return;
  }
  print(io, `roster check of ${report.baseUrl} (vendor ${report.vendor})`);
  for (const s of report.steps) {
    const [mark, colour] = MARK[s.result];
    const time = s.result === 'skip' ? '' : ` (${s.ms} ms)`;
    const detail =
      s.result === 'not offered'
        ? `not offered: ${s.detail}`
        : s.result === 'not permitted'
          ? `not permitted (${s.detail})`
          : s.detail;
    print(io, `${paint(io, colour, mark)} ${s.name}: ${detail}${time}`);
  }
}

export async function runCheck(
  opts: CheckOptions,
  deps: Deps,
  clock: StartDeadline = timerDeadline,
): Promise<CheckReport> {
  const output = opts.json ? 'json' : opts.globals.output;
  const format = output === undefined ? undefined : resolveFormat(output, deps.io);
  const expectScopes = scopesOf(opts.expectScopes);
  const deadline = startDeadline(opts.deadline ?? 60, clock);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps, { signal: deadline.signal });
  const { probeService } = await import('./check-run.js');
  const steps = await withSpinner(deps, `checking ${client.http.baseUrl}…`, () =>
    probeService(client, opts.write ?? false, expectScopes),
  ).finally(deadline.cancel);
  const failed = steps.filter((s) => s.result === 'fail');
  const report: CheckReport = {
    ok: failed.length === 0,
    baseUrl: client.http.baseUrl,
    vendor: client.http.vendor,
    write: opts.write ?? false,
    steps,
  };
  await render(report, format, deps);
  const cut = steps.find((s) => s.result === 'fail' && s.detail === deadline.reason.message);
  if (cut) {
    throw new CliError(
      `check stopped by --deadline ${deadline.reason.seconds} s during '${cut.name}'`,
    );
  }
  if (failed.length > 0) {
    const auth = failed.some((s) => s.auth);
    throw new CliError(
      `check failed: ${failed.length} of ${steps.length} steps (${failed.map((s) => s.name).join('; ')})`,
      auth ? EXIT.auth : EXIT.error,
    );
  }
  return report;
}

function scopesOf(list: string | undefined): string[] {
  if (list === undefined) return [];
  const scopes = splitList(list);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw usageError(
      `--expect-scopes: unknown scope ${unknown.join(', ') || '(none given)'}; use ${SCOPES.join(', ')}`,
    );
  }
  return scopes;
}
