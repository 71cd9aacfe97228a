/**
 * What run an import command is: a new one from its flags, or (`--resume REPORT`) the run
 * recorded beside that report, continued as it was started (import/run-record.ts). Also the
 * hint printed when a run stops part-way: the shortest command that does exactly the rest.
 */
import { isAbsolute, resolve } from 'node:path';
import type { ApiClient } from '../../../../client/index.js';
import {
  type Connection,
  checkInput,
  checkTarget,
  fingerprint,
  flagsOf,
  type InputPrint,
  type RunRecord,
  readRecord,
  recordPath,
  resumedOptions,
  type Shaping,
  writeRecord,
} from '../../../../import/run-record.js';
import { readPlan, type SavedPlan, writePlan } from '../../../../import/saved-plan.js';
import { shellWord } from '../../../../import/shell-word.js';
import type { GlobalOptions } from '../../../context.js';
import { usageError } from '../../../errors.js';

/** The import's flags that this module reads. */
export interface RunFlags extends Omit<Shaping, 'sendMail' | 'maps'> {
  map?: string[];
  sendMail?: boolean;
  resume?: string;
  plan?: string;
  /** The options given on the command line (commander's attribute names). */
  explicit?: ReadonlySet<string>;
  globals: GlobalOptions;
}

const SHAPING_OF_FLAG: Record<string, keyof Shaping> = {
  preset: 'preset',
  match: 'match',
  encoding: 'encoding',
  delimiter: 'delimiter',
  skipLines: 'skipLines',
  sheet: 'sheet',
  headerRow: 'headerRow',
  map: 'maps',
  ignoreUnknown: 'ignoreUnknown',
  emptyClears: 'emptyClears',
  statusColumn: 'statusColumn',
  activeValues: 'activeValues',
  sendMail: 'sendMail',
  sync: 'sync',
  maxDeactivate: 'maxDeactivate',
  photos: 'photos',
  photoName: 'photoName',
};

export const shapingOf = (f: RunFlags): Shaping => ({
  preset: f.preset,
  match: f.match,
  encoding: f.encoding,
  delimiter: f.delimiter,
  skipLines: f.skipLines,
  sheet: f.sheet,
  headerRow: f.headerRow,
  maps: f.map,
  ignoreUnknown: f.ignoreUnknown,
  emptyClears: f.emptyClears,
  statusColumn: f.statusColumn,
  activeValues: f.activeValues,
  sendMail: f.sendMail ?? true,
  sync: f.sync,
  maxDeactivate: f.maxDeactivate,
  // Absolute, as the input's path is: a resumed run may start in another directory.
  photos: f.photos === undefined ? undefined : resolve(f.photos),
  photoName: f.photoName,
});

const connectionOf = (g: GlobalOptions): Connection => ({
  ...(g.profile !== undefined ? { profile: g.profile } : {}),
  ...(g.baseUrl !== undefined ? { baseUrl: g.baseUrl } : {}),
  ...(g.region !== undefined ? { region: g.region } : {}),
});

export interface TheRun {
  /** The input as given (`-` for standard input), or the recorded one on a resume. */
  file?: string;
  options: Shaping;
  globals: GlobalOptions;
  /** The record this run continues (a `--resume` whose report has one). */
  record?: RunRecord;
  /** A --resume report without a record (an older Roster): what to warn about. */
  unrecorded?: string;
  /** A saved plan this run applies (`--plan`, or the one a resumed run applied). */
  plan?: { path: string; saved: SavedPlan };
}

/** The flags' shaping options that were given on the command line. */
const explicitOf = (flags: RunFlags) =>
  new Set(
    [...(flags.explicit ?? [])].flatMap((f) => (SHAPING_OF_FLAG[f] ? [SHAPING_OF_FLAG[f]] : [])),
  );

const definedGlobals = (g: GlobalOptions) =>
  Object.fromEntries(Object.entries(g).filter(([, v]) => v !== undefined)) as GlobalOptions;

/**
 * The connection flags a record or a plan brings along: the profile and the region, which name
 * entries of this person's own config. Never its base URL: these files travel, and an address
 * taken from one would get the profile's token (checkAddress compares it instead).
 */
const recorded = ({ profile, region }: Connection): GlobalOptions => ({
  ...(profile !== undefined ? { profile } : {}),
  ...(region !== undefined ? { region } : {}),
});

/** `--plan FILE` (no resume): the plan's file, options and connection flags. */
function planRun(given: string | undefined, flags: RunFlags, path: string): TheRun {
  const saved = readPlan(path);
  const options = resumedOptions(
    saved,
    path,
    shapingOf(flags),
    explicitOf(flags),
    `the plan ${path} was made`,
  );
  if (saved.input.path === '-' && given !== '-') {
    throw usageError(`the plan ${path} was made from standard input: pipe the same input again`);
  }
  return {
    file: given ?? saved.input.path,
    options,
    globals: { ...recorded(saved.connection), ...definedGlobals(flags.globals) },
    plan: { path: resolve(path), saved },
  };
}

/**
 * The run these flags ask for. On `--resume`, the recorded options and connection flags, unless
 * given again (the same value: fine; another one: refused, exit 2).
 */
export function whichRun(given: string | undefined, flags: RunFlags): TheRun {
  const options = shapingOf(flags);
  const record = flags.resume ? readRecord(flags.resume) : undefined;
  if (flags.plan && !record) return planRun(given, flags, flags.plan);
  if (!flags.resume || !record) {
    const unrecorded = flags.resume
      ? `${flags.resume} has no run record beside it (${flags.resume}.run.json; reports of Roster before 0.2 have none): the rest of the run uses the options of this command, so give the ones the run started with`
      : undefined;
    return { file: given, options, globals: flags.globals, unrecorded };
  }
  const resumed = resumedOptions(record, flags.resume, options, explicitOf(flags));
  const planPath = record.plan ?? flags.plan;
  const plan = planPath ? { path: resolve(planPath), saved: readPlan(planPath) } : undefined;
  const stdin = record.input.path === '-';
  if (stdin && given !== '-') {
    throw usageError(
      `the run in ${flags.resume} read standard input: pipe the same input again, as \`roster users import - --resume ${flags.resume}\``,
    );
  }
  return {
    file: given ?? record.input.path,
    options: resumed,
    globals: { ...recorded(record.connection), ...definedGlobals(flags.globals) },
    record,
    ...(plan ? { plan } : {}),
  };
}

/** Where a run's rows go, as recorded: the base URL, its host (the tenant) and the branch. */
export async function targetOf(client: ApiClient, baseUrl: string): Promise<RunRecord['target']> {
  // A service without GET /api/branch (or a token that may not read it): the URL still tells.
  const branch = await client.getBranch().then(
    (b) => ({ id: b.id, name: b.name }),
    () => undefined,
  );
  return { baseUrl, tenant: new URL(baseUrl).host, ...(branch ? { branch } : {}) };
}

/**
 * Refuses, before any request, a record or a plan that names another service than the one this
 * command goes to (the command line's, the environment's or the profile's), naming both: sent
 * on, the rows (and the token) would go where the file says, or the file is not this run's.
 */
export function checkAddress(
  run: TheRun,
  report: string | undefined,
  now: { baseUrl: string; from: string },
) {
  const files = [
    ...(run.record && report ? [{ path: recordPath(report), names: run.record }] : []),
    ...(run.plan ? [{ path: run.plan.path, names: run.plan.saved }] : []),
  ];
  for (const { path, names } of files) {
    const theirs = [names.connection.baseUrl, names.target.baseUrl].find(
      (url) => url !== undefined && url !== now.baseUrl,
    );
    if (theirs === undefined) continue;
    throw usageError(
      `${path} names the service ${theirs}, and this command goes to ${now.baseUrl} (${now.from}): refused before sending anything. A run or a plan is applied only where the command line or the profile points: to apply it at ${theirs}, give --base-url ${theirs} (with a token for that service, or its profile)`,
    );
  }
}

/** Checks a resumed run, and a saved plan, against the input and the target of this run. */
export function checkResume(
  run: TheRun,
  report: string | undefined,
  input: InputPrint,
  target: RunRecord['target'],
) {
  if (run.record && report) {
    checkInput(run.record, report, run.file ?? '-', input);
    checkTarget(run.record, report, target);
  }
  if (run.plan) {
    checkInput(run.plan.saved, `the plan ${run.plan.path}`, run.file ?? '-', input);
    checkTarget(run.plan.saved, `the plan ${run.plan.path}`, target);
  }
}

/** What a run record and a saved plan keep of where the run comes from and goes to. */
function origin(
  run: TheRun,
  flags: RunFlags,
  input: InputPrint,
  target: RunRecord['target'],
  client: ApiClient,
) {
  const file = run.file ?? '-';
  const { role, locale } = client.userDefaults;
  return {
    input: { path: file === '-' || isAbsolute(file) ? file : resolve(file), ...input },
    target,
    connection: { ...run.record?.connection, ...connectionOf(flags.globals) },
    options: run.options,
    defaults: { ...(role ? { role } : {}), ...(locale ? { locale } : {}) },
  };
}

/** Writes the record beside `report` (a real run, right before its first row is sent). */
export function record(
  report: string,
  run: TheRun,
  flags: RunFlags,
  input: InputPrint,
  target: RunRecord['target'],
  client: ApiClient,
  runId?: string,
) {
  writeRecord(report, {
    kind: 'roster-import-run',
    version: 1,
    ...origin(run, flags, input, target, client),
    ...(run.plan ? { plan: run.plan.path } : {}),
    ...(runId ? { runId } : {}),
  });
}

/** `--save-plan FILE`: a dry run's rows, bound to the input and the target (no secrets). */
export function savePlan(
  path: string,
  rows: SavedPlan['rows'],
  run: TheRun,
  flags: RunFlags,
  input: InputPrint,
  target: RunRecord['target'],
  client: ApiClient,
) {
  const plan: SavedPlan = {
    kind: 'roster-import-plan',
    version: 1,
    ...origin(run, flags, input, target, client),
    rows,
  };
  writePlan(path, plan);
}

export { fingerprint };

/**
 * The shortest command that does exactly the rest of a run that stopped part-way: with a report
 * (which has its record beside it), `--resume` alone; without one, the same import again, every
 * option that shapes it spelled out (rows already applied then come out unchanged).
 */
export function continueHint(run: TheRun, report: string | undefined): string {
  const file = run.file ?? '-';
  if (report) {
    // The address is never taken from the record: the hint gives the one given on this command.
    const address = run.globals.baseUrl !== undefined ? ['--base-url', run.globals.baseUrl] : [];
    const words = [
      'roster',
      'users',
      'import',
      ...(file === '-' ? ['-'] : []),
      '--resume',
      report,
      ...address,
    ];
    const pipe = file === '-' ? ' (with the same input on standard input)' : '';
    return `The report ${report} has every row done so far; continue with: ${words.map(shellWord).join(' ')}${pipe}`;
  }
  const connection = Object.entries(connectionOf(run.globals)).flatMap(([k, v]) => [
    `--${k === 'baseUrl' ? 'base-url' : k}`,
    String(v),
  ]);
  const words = ['roster', 'users', 'import', file, ...flagsOf(run.options), ...connection];
  return `Rows already applied come out unchanged when you run the same import again: ${words.map(shellWord).join(' ')} (--report FILE lets a later run --resume)`;
}
