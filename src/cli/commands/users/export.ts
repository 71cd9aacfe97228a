/** `roster users export`: the branch's users as CSV (or an .xlsx workbook) in the import's columns. */
import type { Command } from 'commander';
import type { ListableStatus } from '../../../contract/user.js';
import { type Deps, type GlobalOptions, note } from '../../context.js';
import { CliError, usageError } from '../../errors.js';
import { parseStatuses } from '../../parse.js';
import { exitCodeOf, onInterrupt } from '../../signals.js';
import { globalsOf } from '../shared/options.js';
import { parseDelimiter } from './import/flags.js';

export interface ExportFlags {
  status?: ListableStatus[];
  to?: string;
  force?: boolean;
  delimiter?: string;
  bom?: boolean;
  globals: GlobalOptions;
}

export function register(users: Command, deps: Deps, runFn = runExport) {
  users
    .command('export')
    .description(
      'write users as CSV or .xlsx in the columns `users import` reads (export → import changes nothing)',
    )
    .option(
      '--status <list>',
      'activated, pending, deactivated (comma-separated) or all (default: activated,pending)',
      parseStatuses,
    )
    .option(
      '--to <file>',
      'write to this file, or - for stdout (the default); a name ending .xlsx writes a workbook; an existing file needs --force',
    )
    .option('--force', 'overwrite the --to file if it exists')
    .option('--delimiter <char>', "',' (default), ';' or 'tab'", parseDelimiter)
    .option('--bom', 'start with a UTF-8 BOM (for Excel)')
    .action((opts: Omit<ExportFlags, 'globals'>, cmd: Command) =>
      runFn({ ...opts, globals: globalsOf(cmd) }, deps),
    );
}

export async function runExport(opts: ExportFlags, deps: Deps) {
  const { io } = deps;
  const format = exportFormat(opts);
  const { apiClient } = await import('../../client.js');
  const { exportUsers, exportToFile } = await import('../../../import/export.js');
  // The same rule as `media download`: an existing file is kept unless --force.
  const { targetPath } = await import('../media/save.js');
  (await import('../../memory.js')).bulkMemoryMode();
  const to =
    opts.to === undefined || opts.to === '-'
      ? undefined
      : await targetPath(opts.to, 'users.csv', opts.force);
  const client = await apiClient(opts.globals, deps);
  // Ctrl-C stops the export through its cleanup: a million users' sort runs (hundreds of MB
  // under TMPDIR) and the --to temp file are removed; a second Ctrl-C exits at once.
  const controller = new AbortController();
  const stopListening = onInterrupt((signal) =>
    controller.abort(
      new CliError(
        to ? `interrupted: ${to} was not written` : 'interrupted: the CSV on stdout is incomplete',
        exitCodeOf(signal),
      ),
    ),
  );
  const options = {
    format,
    statuses: opts.status,
    delimiter: opts.delimiter,
    bom: opts.bom,
    signal: controller.signal,
  };
  const result = await (to
    ? exportToFile(client, to, options)
    : exportUsers(client, { ...options, out: io.stdout })
  ).finally(stopListening);
  if (to) note(io, `exported ${result.users} user${result.users === 1 ? '' : 's'} to ${to}`);
  if (result.withoutExternalId > 0) {
    note(
      io,
      `note: ${result.withoutExternalId === 1 ? '1 of them has' : `${result.withoutExternalId} of them have`} no externalId; to import this file again, give them one or use --match email`,
    );
  }
}

/**
 * CSV, or an .xlsx workbook for `-o xlsx` or a `--to` name ending .xlsx; a workbook goes to a
 * file only (it is binary), and the CSV-only flags are refused with it.
 */
function exportFormat(opts: ExportFlags): 'csv' | 'xlsx' {
  const flag = opts.globals.output;
  const named = opts.to !== undefined && /\.xlsx$/i.test(opts.to) ? 'xlsx' : 'csv';
  const format = flag ?? named;
  if (format !== 'csv' && format !== 'xlsx') {
    throw usageError(
      `-o ${format}: users export writes CSV or xlsx, in the columns an import reads; for ${format}, use \`roster users list --all -o ${format}\``,
    );
  }
  if (format === 'xlsx') {
    if (opts.to === undefined || opts.to === '-') {
      throw usageError('-o xlsx writes a workbook, which is a file: give it with --to people.xlsx');
    }
    const csvOnly = opts.delimiter !== undefined ? '--delimiter' : opts.bom ? '--bom' : undefined;
    if (csvOnly) throw usageError(`${csvOnly} is for CSV; an .xlsx workbook has neither`);
  }
  return format;
}
