/** `roster check`: the CI smoke check of a service and the token in use. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, print } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { withSpinner } from '../../output/progress.js';
import { type Format, renderList, renderOne, resolveFormat } from '../../output/render.js';
import { paint } from '../../output/style.js';
import { globalsOf } from '../shared/options.js';
import type { Step } from './probe.js';

export interface CheckOptions {
  write?: boolean;
  json?: boolean;
  globals: GlobalOptions;
}

export interface CheckReport {
  ok: boolean;
  baseUrl: string;
  vendor: string;
  write: boolean;
  steps: Step[];
}

export function register(program: Command, deps: Deps, runFn = runCheck) {
  program
    .command('check')
    .description('smoke-check the service: reachability, auth, version negotiation per endpoint')
    .option('--write', 'also create, change and remove throwaway users (and a medium)')
    .option('--json', 'print the report as JSON (same as -o json)')
    .addHelpText(
      'after',
      `
Exit codes: 0 no step failed (skipped and "not offered" steps do not fail), 3 the token was
rejected (401/403), 1 any other failure. "Not offered": the service does not have it (no
GET /api, a version it does not serve, such as the deprecated user.v2 on the real platform);
the media types this client itself sends must be offered. The report goes to stdout: lines of text by default, or
-o json|ndjson|csv|table. The media steps run only when the service answers GET /media.`,
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
} as const;

async function render(report: CheckReport, format: Format | 'text', deps: Deps) {
  const { io } = deps;
  if (format === 'json' || format === 'yaml') return renderOne(io, format, report, []);
  if (format !== 'text') {
    return renderList(io, format, report.steps, [
      { header: 'step', value: (s) => s.name },
      { header: 'result', value: (s) => s.result },
      { header: 'detail', value: (s) => s.detail },
      { header: 'ms', value: (s) => s.ms },
    ]);
  }
  print(io, `roster check of ${report.baseUrl} (vendor ${report.vendor})`);
  for (const s of report.steps) {
    const [mark, colour] = MARK[s.result];
    const time = s.result === 'skip' ? '' : ` (${s.ms} ms)`;
    const label = s.result === 'not offered' ? 'not offered: ' : '';
    print(io, `${paint(io, colour, mark)} ${s.name}: ${label}${s.detail}${time}`);
  }
}

export async function runCheck(opts: CheckOptions, deps: Deps): Promise<CheckReport> {
  const output = opts.json ? 'json' : opts.globals.output;
  const format = output === undefined ? 'text' : resolveFormat(output, deps.io);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const { probeService } = await import('./check-run.js');
  const steps = await withSpinner(deps, `checking ${client.http.baseUrl}…`, () =>
    probeService(client, opts.write ?? false),
  );
  const failed = steps.filter((s) => s.result === 'fail');
  const report: CheckReport = {
    ok: failed.length === 0,
    baseUrl: client.http.baseUrl,
    vendor: client.http.vendor,
    write: opts.write ?? false,
    steps,
  };
  await render(report, format, deps);
  if (failed.length > 0) {
    const auth = failed.some((s) => s.auth);
    throw new CliError(
      `check failed: ${failed.length} of ${steps.length} steps (${failed.map((s) => s.name).join('; ')})`,
      auth ? EXIT.auth : EXIT.error,
    );
  }
  return report;
}
