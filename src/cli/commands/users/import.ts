/** `roster users import <csv>`: flags → the import engine (src/import) → plan or summary. */
import { type Command, Option } from 'commander';
import { PRESET_NAMES, type PresetName } from '../../../import/presets.js';
import type { DeactivateLimit } from '../../../import/sync.js';
import type { MatchField } from '../../../import/types.js';
import { type Deps, type GlobalOptions, note, onCleanup } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { exitCodeOf, onInterrupt, type StopSignal } from '../../signals.js';
import { collect, globalsOf } from '../shared/options.js';
import {
  parseConcurrency,
  parseDelimiter,
  parseEncoding,
  parseHeaderRow,
  parseMaxDeactivate,
  parseSkipLines,
  parseValues,
} from './import/flags.js';

export interface ImportFlags {
  template?: boolean;
  dryRun?: boolean;
  match?: MatchField;
  preset?: PresetName;
  statusColumn?: string;
  activeValues?: string[];
  skipLines?: number;
  sheet?: string;
  headerRow?: number;
  encoding?: string;
  delimiter?: string;
  map?: string[];
  ignoreUnknown?: boolean;
  emptyClears?: boolean;
  concurrency: number;
  sendMail?: boolean;
  report?: string;
  resume?: string;
  savePlan?: string;
  plan?: string;
  partial?: boolean;
  sync?: boolean;
  maxDeactivate?: DeactivateLimit;
  /** A folder of photos: the rows' users get their avatars from it, as `avatar sync` sets them. */
  photos?: string;
  photoName?: string[];
  /** The options given on the command line, by attribute name (not those at their default). */
  explicit?: ReadonlySet<string>;
  globals: GlobalOptions;
}

const COLUMNS_HELP = `
Columns (names compared without case, spaces, "_" and "-"; aliases such as "First Name",
"E-Mail", "Identifier" work): externalId, email, userName, firstName, lastName, role, locale,
position, department, location, phoneNumber, publicEmailAddress, secret, recoveryCode,
profile.<customFieldId>. secret and recoveryCode are used only when a user is created.
The export's avatar column is read-only: accepted and ignored (avatars come from --photos).
An empty cell leaves the field as it is (--empty-clears clears it). Exit 5 when rows failed.

Exports of HR and identity systems: --preset reads the format's own columns (every other
column is ignored unless --map names it), matches by its key, and reads its status column:
  gam             GAM7 "gam print users allfields"; by email; suspended/archived True = leaver
  entra           Entra ID "Download users"; by email (mail, else userPrincipalName);
                  accountEnabled False = leaver; telephoneNumber before mobilePhone
  entra-template  Entra ID bulk-create template (its version:v1.0 line is skipped); by
                  email (userPrincipalName); "Block sign in" Yes = leaver
  okta            Okta user export; by email; status SUSPENDED/DEPROVISIONED = leaver
  bamboohr        BambooHR report; by Employee #; Status Inactive = leaver
  personio        Personio employee list (German or English UI); by E-Mail; Status inaktiv
A file whose header looks like one of these gets the --preset suggested.
Leavers are never created or invited: an existing user is deactivated with --sync, and
otherwise left as they are and listed. Without a preset, --status-column Status
--active-values Active,Onboarding marks every other value (an empty cell too) as a leaver.
Preambles: an Excel "sep=;" first line sets the delimiter; --skip-lines N skips N more lines
before the header.
Workbooks (.xlsx, told by content, not name): cells read as Excel shows them (00123 stays
00123, dates become 2024-03-01, formulas their saved value); --sheet picks a sheet, --header-row
the header's row. Legacy .xls, encrypted and malformed workbooks are refused (exit 2).
Encodings: a file that is not UTF-8 gets the likely one suggested (windows-1252 from Windows
Excel, macintosh from Mac Excel's "CSV (Macintosh)").`;

export function register(users: Command, deps: Deps, runFn = runImport) {
  users
    .command('import')
    .description(
      'create and update users from a CSV file or an .xlsx workbook (an HR or Excel export)',
    )
    .argument(
      '[csv]',
      'the CSV or .xlsx file (its content decides): a header row of field names, then one user per row',
    )
    .option('--template', 'print the header row with every known column, and exit')
    .option('--dry-run', 'print the plan (create / update / unchanged / error); change nothing')
    .addOption(
      new Option(
        '--match <field>',
        "the column that says which row is which user (default: the preset's, else externalId)",
      ).choices(['externalId', 'email']),
    )
    .addOption(
      new Option(
        '--preset <format>',
        'the export of an HR or identity system: its columns, match key and leavers (below)',
      ).choices(PRESET_NAMES),
    )
    .option(
      '--status-column <column>',
      'a column saying who is active; with --active-values, other values mark leavers',
    )
    .option(
      '--active-values <list>',
      'the --status-column values that mean active, comma-separated (e.g. Active,Onboarding)',
      parseValues,
    )
    .option('--skip-lines <n>', 'lines before the header row to skip', parseSkipLines)
    .option(
      '--sheet <name|n>',
      "an .xlsx workbook's sheet, by name or position (default: the first visible)",
    )
    .option(
      '--header-row <n>',
      "an .xlsx sheet's header row, as Excel numbers it (a report's title block above it)",
      parseHeaderRow,
    )
    .option(
      '--encoding <name>',
      'utf-8 (default), windows-1252, macintosh, latin1, utf-16le',
      parseEncoding,
    )
    .option(
      '--delimiter <char>',
      "',' ';' or 'tab' (default: a \"sep=\" first line, else detected)",
      parseDelimiter,
    )
    .option(
      '--map <header=field>',
      'read a column as a field, e.g. "Personalnummer=externalId"; repeatable',
      collect,
    )
    .option('--ignore-unknown', 'skip columns that are not fields instead of stopping')
    .option('--empty-clears', 'an empty cell clears the field')
    .option('--concurrency <n>', 'requests at a time, 1-64', parseConcurrency, 8)
    .option('--send-mail', 'send new users with an email an invitation (default)')
    .option('--no-send-mail', 'create new users without sending invitations')
    .option('--report <file>', "write every row's outcome to this CSV as it completes")
    .option(
      '--resume <report>',
      'continue the run this report records: its file and options, skipping rows done',
    )
    .option(
      '--save-plan <file>',
      'with --dry-run: save the plan (0600, no secrets) for --plan to apply exactly',
    )
    .option(
      '--plan <file>',
      'apply exactly a saved plan: refused if a planned user changed since (the file is its input)',
    )
    .option('--partial', 'with --plan: apply the rows that still hold, fail the others (exit 5)')
    .option(
      '--sync',
      'the file lists everyone: deactivate users it does not list, reactivate those it does',
    )
    .option(
      '--max-deactivate <n|n%>',
      'with --sync: refuse beyond this (default 10%)',
      parseMaxDeactivate,
    )
    .option(
      '--photos <dir>',
      "then set the rows' users' avatars from this folder of photos, as `users avatar sync` does",
    )
    .option(
      '--photo-name <pattern>',
      "with --photos: how photos are named: '#email#', '#externalId#', '#localpart#' (repeatable; default: #email# then #externalId#)",
      collect,
    )
    .addHelpText('after', COLUMNS_HELP)
    .action(
      (csv: string | undefined, opts: Omit<ImportFlags, 'globals' | 'explicit'>, cmd: Command) => {
        const explicit = new Set(
          Object.keys(opts).filter((k) => cmd.getOptionValueSource(k) === 'cli'),
        );
        return runFn(csv, { ...opts, explicit, globals: globalsOf(cmd) }, deps);
      },
    );
}

export async function runImport(given: string | undefined, flags: ImportFlags, deps: Deps) {
  const { io } = deps;
  if (flags.template) {
    const { templateHeader } = await import('../../../import/export.js');
    io.stdout.write(templateHeader());
    return;
  }
  if (!given && !flags.resume && !flags.plan) {
    throw usageError('users import needs a CSV file (or --template to start one)');
  }
  const resume = await import('./import/resume.js');
  // `--resume REPORT`: the run that report records, with the options it was started with.
  const run = resume.whichRun(given, flags);
  if (run.unrecorded) note(io, `warning: ${run.unrecorded}`);
  if (!run.file) throw usageError('users import needs a CSV file (or --template to start one)');
  const opts = { ...flags, ...run.options, map: run.options.maps, globals: run.globals };
  checkCombinations(opts, run.plan !== undefined);
  // The file is read twice (plan, then apply): stdin is kept in a private temp file meanwhile.
  const csv =
    run.file === '-'
      ? await (await import('../../spool.js')).spoolStdin(deps, 'stdin.csv')
      : run.file;
  // A bad --photo-name or an unreadable folder stops the command before any row is sent.
  const photos = opts.photos
    ? await (await import('./avatar/photo-sync.js')).openPhotos(opts.photos, opts.photoName)
    : undefined;
  (await import('../../memory.js')).bulkMemoryMode();
  const { forPeople, resolveFormat } = await import('../../output/render.js');
  const format = resolveFormat(opts.globals.output, io);
  const { spinner } = await import('../../output/progress.js');
  const { importCsv } = await import('../../../import/run.js');
  const show = await import('./import/format.js');
  const { progress } = await import('../../output/progress-line.js');

  const { client, runId, report, recorded, input, target } = await openRun(
    resume,
    run,
    opts,
    csv,
    deps,
  );
  const spin = await spinner(deps, `reading ${csv} and the branch's users…`);
  const stop = stopOnInterrupt(io);
  const hint = () => resume.continueHint(run, report);
  // A dry run for programs: the whole plan, row by row (a person's table shows the first rows).
  const planOut = opts.dryRun
    ? await (await import('./import/plan-output.js')).planWriter(io, format)
    : undefined;
  const saved: import('../../../import/saved-plan.js').SavedPlan['rows'] = [];
  // A dry run with --photos: the users it would create, for the photos they would get.
  const newUsers: import('../../../contract/user.js').UserV3[] = [];
  const photoRows = photos && opts.dryRun ? await import('./import/photos.js') : undefined;
  const onPlannedRow =
    planOut || opts.savePlan || photoRows
      ? async (planned: import('../../../import/planned.js').PlannedRow, row?: number) => {
          if (opts.savePlan) saved.push(row ? { row, ...planned } : planned);
          const created = photoRows?.plannedUser(planned);
          if (created) newUsers.push(created);
          await planOut?.write(planned);
        }
      : undefined;
  const result = await importCsv(
    client,
    {
      ...opts,
      file: csv,
      maps: opts.map,
      sendMail: opts.sendMail ?? true,
      plan: run.plan?.saved,
      signal: stop.signal,
    },
    {
      onWarning: (w) => note(io, `warning: ${w}`),
      // Where the service requires a role and locale: the columns, else the profile's
      // defaults, else asked once on a terminal (an empty cell then takes the default too).
      beforeCreates: async (fields) => {
        spin.stop();
        const { ensureRequired } = await import('./required.js');
        const has = (f: string) => fields.includes(f);
        await ensureRequired(
          client,
          { role: has('role'), locale: has('locale') },
          deps,
          opts.globals.profile,
        );
      },
      onPlannedRow,
      beforeSending: () => {
        if (recorded) resume.record(report!, run, flags, input!, target!, client, runId);
      },
      onPlan: (plan) => {
        spin.stop();
        if (!opts.dryRun || !forPeople(format)) {
          show.noteLeavers(io, plan);
          show.noteDeactivations(io, plan, plan.match);
        }
      },
      progress: (total) => {
        const bar = progress(io, 'importing', total);
        onCleanup(deps, () => bar.end()); // Ctrl-C: leave a clean line
        stop.listen();
        return bar;
      },
    },
  )
    .catch((err: unknown) => {
      // A lost connection or a revoked token mid-run: say how to carry on from where it stopped.
      if (stop.applying) note(io, hint());
      throw err;
    })
    .finally(() => {
      spin.stop();
      stop.end();
    });

  if (opts.dryRun) {
    if (planOut) await planOut.end(result.summary);
    else await show.renderPlan(io, format, result.plan, result.summary, result.plan.match);
    if (opts.savePlan) {
      resume.savePlan(opts.savePlan, saved, run, flags, input!, target!, client);
      note(
        io,
        `saved the plan to ${opts.savePlan}; apply exactly it with: roster users import --plan ${opts.savePlan}`,
      );
    }
    noteInvitations(io, result.plan.invitations, opts.sendMail);
  }
  if (!opts.dryRun) await show.renderSummary(io, format, result.summary);
  show.noteFailures(io, result.failures, report);
  if (result.interrupted && stop.stoppedBy) {
    throw new CliError(
      `interrupted: no further rows were sent. ${hint()}`,
      exitCodeOf(stop.stoppedBy),
    );
  }
  // The rows are in (or planned): now their users' avatars.
  const photoResult = photos
    ? await (await import('./import/photos.js')).importPhotos(
        photos,
        client,
        result.plan,
        newUsers,
        { dryRun: opts.dryRun, report },
        deps,
      )
    : undefined;
  if (photoResult?.stoppedBy) {
    // Every row is in; the same run again skips the avatars already made from their photos.
    if (!opts.dryRun) note(io, hint());
    throw photoResult.stoppedBy;
  }
  if (result.refusal) throw result.refusal;
  const photosFailed = photoResult?.rows.filter((r) => r.result === 'failed').length ?? 0;
  failIfAnyFailed(
    result.summary,
    { photosFailed, photos: photoResult?.rows.length ?? 0 },
    {
      report,
      dryRun: opts.dryRun,
    },
  );
}

/**
 * The run's session: one Roster-Run-Id for every request (its events list as one: events list
 * --run; a resumed run keeps its record's), the client, and what binds the run to its record
 * or saved plan (the file's fingerprint and the target), checked before the first request.
 */
async function openRun(
  resume: typeof import('./import/resume.js'),
  run: ReturnType<typeof import('./import/resume.js')['whichRun']>,
  opts: Pick<ImportFlags, 'report' | 'dryRun' | 'resume' | 'savePlan'> & { globals: GlobalOptions },
  csv: string,
  deps: Deps,
) {
  const { apiSession } = await import('../../client.js');
  const { newRunId } = await import('../../../contract/events.js');
  const runId = run.record?.runId ?? newRunId();
  const { client, settings } = await apiSession(opts.globals, deps, { runId });
  // A record or a plan naming another service: refused before the first request.
  resume.checkAddress(run, opts.resume, {
    baseUrl: settings.baseUrl,
    from: settings.sources.baseUrl,
  });
  const report = opts.report ?? (opts.dryRun ? undefined : opts.resume);
  // A run with a report is recorded beside it, and a resumed one checked against its record.
  const recorded = report !== undefined && !opts.dryRun;
  // Where the run goes and what it reads, for its record, its saved plan, or the check of both.
  const bound = recorded || run.record || run.plan || opts.savePlan;
  const input = bound ? await resume.fingerprint(csv) : undefined;
  const target = bound ? await resume.targetOf(client, settings.baseUrl) : undefined;
  if (input && target) resume.checkResume(run, opts.resume, input, target);
  // The same run gives new users the role and locale it started with, whatever the profile says now.
  const defaults = run.record?.defaults ?? run.plan?.saved.defaults;
  if (defaults) Object.assign(client.userDefaults, defaults);
  return { client, runId, report, recorded, input, target };
}

/**
 * Ctrl-C while rows are sent: no new rows, the ones in flight finish and reach the report.
 * (While reading and planning nothing has been sent: Ctrl-C ends the command at once, so this
 * listens only from `listen()`, when sending starts.)
 */
function stopOnInterrupt(io: Deps['io']) {
  const controller = new AbortController();
  let stoppedBy: StopSignal | undefined;
  let stopListening = () => {};
  let applying = false;
  return {
    signal: controller.signal,
    /** The signal that stopped the run, if one did. */
    get stoppedBy() {
      return stoppedBy;
    },
    /** Whether rows were being sent (an error then says how to carry on). */
    get applying() {
      return applying;
    },
    listen() {
      applying = true;
      stopListening = onInterrupt((signal) => {
        stoppedBy = signal;
        controller.abort();
        note(io, 'stopping: no further rows are sent; the rows in flight finish first…');
      });
    },
    end: () => stopListening(),
  };
}

/** Flags that work only together, or only with another, as a usage error naming them. */
function checkCombinations(
  opts: Pick<
    ImportFlags,
    | 'maxDeactivate'
    | 'sync'
    | 'savePlan'
    | 'dryRun'
    | 'partial'
    | 'photoName'
    | 'photos'
    | 'statusColumn'
    | 'activeValues'
  >,
  withPlan: boolean,
) {
  if (opts.maxDeactivate && !opts.sync) throw usageError('--max-deactivate works with --sync only');
  if (opts.savePlan && !opts.dryRun) throw usageError('--save-plan works with --dry-run only');
  if (opts.dryRun && withPlan) {
    throw usageError(
      '--plan applies a saved plan, and --dry-run makes one: use one of them (--dry-run --save-plan FILE, then --plan FILE)',
    );
  }
  if (opts.partial && !withPlan) throw usageError('--partial works with --plan only');
  if (opts.photoName && !opts.photos) throw usageError('--photo-name works with --photos only');
  if ((opts.statusColumn === undefined) !== (opts.activeValues === undefined)) {
    throw usageError(
      '--status-column and --active-values go together: the column, and the values that mean active (e.g. --status-column Status --active-values Active)',
    );
  }
}

/** A dry run: the invitations the run would have the service queue (or, with --no-send-mail, not). */
function noteInvitations(io: Deps['io'], n: number, sendMail: boolean | undefined) {
  if (n === 0) return;
  note(
    io,
    sendMail === false
      ? `no invitations would be queued (--no-send-mail; ${n} new users have an email)`
      : `${n} invitation${n === 1 ? '' : 's'} would be queued by the service (one per new user with an email and no secret; --no-send-mail for none)`,
  );
}

/** Exit 5 (partial) when rows or photos failed, naming how many and where each row's outcome is. */
function failIfAnyFailed(
  { failed, rows }: { failed: number; rows: number },
  { photosFailed, photos }: { photosFailed: number; photos: number },
  { report, dryRun }: { report: string | undefined; dryRun: boolean | undefined },
) {
  if (failed === 0 && photosFailed === 0) return;
  const where = report ? `; every row's outcome is in ${report}` : '';
  const what = [
    ...(failed > 0 ? [`${failed} of ${rows} rows failed${dryRun ? ' the checks' : ''}`] : []),
    ...(photosFailed > 0 ? [`${photosFailed} of ${photos} photos failed`] : []),
  ];
  throw new CliError(`${what.join(', ')}${failed > 0 ? where : ''}`, EXIT.partial);
}
