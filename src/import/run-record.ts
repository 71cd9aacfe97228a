/**
 * The record of a run beside its report (`<report>.run.json`, mode 0600): everything that shapes
 * what the run sends, where it sends it, and which input it reads. `--resume REPORT` continues
 * exactly that run: an option given again with another value is refused, and so is an input
 * that is no longer the same bytes. The report itself keeps its columns (spreadsheets open it).
 *
 * It holds no secrets: no token, and the input only as its size and SHA-256.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { writeWholeSync } from '../files/destination.js';
import { importUsageError, noSuchReport } from './errors.js';
import { readChecked, runRecordSchema } from './file-schemas.js';
import type { PresetName } from './presets.js';
import { checkFile } from './read.js';
import type { DeactivateLimit } from './sync.js';
import type { MatchField } from './types.js';

/** The options that shape the data a run sends (not how fast, nor where it reports). */
export interface Shaping {
  preset?: PresetName;
  match?: MatchField;
  encoding?: string;
  delimiter?: string;
  skipLines?: number;
  sheet?: string;
  headerRow?: number;
  maps?: string[];
  ignoreUnknown?: boolean;
  emptyClears?: boolean;
  statusColumn?: string;
  activeValues?: string[];
  sendMail: boolean;
  sync?: boolean;
  maxDeactivate?: DeactivateLimit;
  /** `--photos DIR` (absolute): the rows' users get their avatars from this folder. */
  photos?: string;
  /** `--photo-name`: how that folder's photos are named. */
  photoName?: string[];
}

/** Role and locale given to new users that have no column for them (profile or prompt). */
export interface Defaults {
  role?: string;
  locale?: string;
}

/** The connection flags given on the command line (environment and profile stay as they are). */
export interface Connection {
  profile?: string;
  baseUrl?: string;
  region?: string;
}

export interface InputPrint {
  size: number;
  sha256: string;
}

export interface RunRecord {
  kind: 'roster-import-run';
  version: 1;
  /** The input's absolute path, or `-` for standard input. */
  input: InputPrint & { path: string };
  /** Where the rows went: the base URL, the tenant (its host) and the token's branch. */
  target: { baseUrl: string; tenant: string; branch?: { id: string; name: string } };
  connection: Connection;
  options: Shaping;
  defaults: Defaults;
  /** A run that applies a saved plan (`--plan`): its path, so a resume applies it too. */
  plan?: string;
  /** The Roster-Run-Id its requests carry: a resume keeps it, so the run stays one in events. */
  runId?: string;
}

export const recordPath = (report: string) => `${report}.run.json`;

/** Size and SHA-256 of a file, read as a stream (an HR export may be large). */
export async function fingerprint(path: string): Promise<InputPrint> {
  await checkFile(path);
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** Written whole or not at all (temp file, then rename), readable by its owner only. */
export function writeJson(path: string, value: unknown) {
  writeWholeSync(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

export function writeRecord(report: string, record: RunRecord) {
  writeJson(recordPath(report), record);
}

/** The record beside a report, or undefined when there is none (a report of an older Roster). */
export function readRecord(report: string): RunRecord | undefined {
  if (!existsSync(report)) throw noSuchReport(report);
  const path = recordPath(report);
  if (!existsSync(path)) return undefined;
  return readChecked(
    path,
    runRecordSchema,
    `--resume ${report}: ${path}`,
    'is not a roster import run record',
  );
}

/** How each option is written on a command line, for messages and the resume hint. */
export const FLAGS: { [K in keyof Shaping]-?: (value: NonNullable<Shaping[K]>) => string[] } = {
  preset: (v) => ['--preset', v],
  match: (v) => ['--match', v],
  encoding: (v) => ['--encoding', v],
  delimiter: (v) => ['--delimiter', v === '\t' ? 'tab' : v],
  skipLines: (v) => ['--skip-lines', String(v)],
  sheet: (v) => ['--sheet', v],
  headerRow: (v) => ['--header-row', String(v)],
  maps: (v) => v.flatMap((m) => ['--map', m]),
  ignoreUnknown: (v) => (v ? ['--ignore-unknown'] : []),
  emptyClears: (v) => (v ? ['--empty-clears'] : []),
  statusColumn: (v) => ['--status-column', v],
  activeValues: (v) => ['--active-values', v.join(',')],
  sendMail: (v) => [v ? '--send-mail' : '--no-send-mail'],
  sync: (v) => (v ? ['--sync'] : []),
  maxDeactivate: (v) => ['--max-deactivate', 'count' in v ? String(v.count) : `${v.percent}%`],
  photos: (v) => ['--photos', v],
  photoName: (v) => v.flatMap((p) => ['--photo-name', p]),
};

/** One option as it would be typed (`--no-send-mail`, `--preset okta`), or "not given". */
export function describeOption<K extends keyof Shaping>(key: K, value: Shaping[K]): string {
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) {
    return key === 'sendMail' ? '--no-send-mail' : 'not given';
  }
  const words = (FLAGS[key] as (v: Shaping[K]) => string[])(value);
  return words.length > 0 ? words.join(' ') : 'not given';
}

/** The flag of an option, for saying it was not given (`--map` for maps). */
const flagName = (key: keyof Shaping) =>
  key === 'maps' ? '--map' : `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** `with --preset okta`, or `without --sync` where the option was not given. */
const withOption = <K extends keyof Shaping>(key: K, value: Shaping[K]) => {
  const given = describeOption(key, value);
  return given === 'not given' ? `without ${flagName(key)}` : `with ${given}`;
};

/** The flags that give these options (those at their default are left out). */
export function flagsOf(options: Shaping): string[] {
  return (Object.keys(FLAGS) as (keyof Shaping)[]).flatMap((key) => {
    const value = options[key];
    if (value === undefined || (key === 'sendMail' && value === true)) return [];
    return (FLAGS[key] as (v: unknown) => string[])(value);
  });
}

/**
 * The options of the run a `--resume` continues: the recorded ones. An option given now with
 * another value is refused, naming both: it would make the rest of the run a different run.
 */
export function resumedOptions(
  record: Pick<RunRecord, 'options'>,
  report: string,
  given: Shaping,
  explicit: ReadonlySet<keyof Shaping>,
  source = `the run in ${report} was started`,
): Shaping {
  for (const key of explicit) {
    const was = record.options[key];
    const now = given[key];
    const same =
      isDeepStrictEqual(was, now) ||
      ((was === undefined || was === false) && (now === undefined || now === false));
    if (!same) {
      throw importUsageError(
        `${describeOption(key, now)}: ${source} ${withOption(key, was)}, and is applied as it was made. Leave the option out, or start anew (without --resume or --plan) to import with other options`,
      );
    }
  }
  return { ...record.options };
}

/** Refuses an input that is not the bytes the run started with, saying what differs. */
export function checkInput(
  record: Pick<RunRecord, 'input'>,
  report: string,
  file: string,
  now: InputPrint,
) {
  const was = record.input;
  if (was.size === now.size && was.sha256 === now.sha256) return;
  const what =
    was.size !== now.size
      ? `its size was ${was.size} bytes and is ${now.size} now`
      : `its content changed (SHA-256 ${was.sha256.slice(0, 12)}… then, ${now.sha256.slice(0, 12)}… now; same size)`;
  throw importUsageError(
    `${file} is not the input of ${report} (${was.path}): ${what}. A resumed run or a saved plan is applied to the same file; to import the new file, start anew (without --resume or --plan)`,
  );
}

/** Refuses to send the rest of a run to another service or branch than its start. */
export function checkTarget(
  record: Pick<RunRecord, 'target'>,
  report: string,
  now: RunRecord['target'],
) {
  const was = record.target;
  const clash =
    was.baseUrl !== now.baseUrl
      ? `the base URL was ${was.baseUrl} and is ${now.baseUrl} now`
      : was.branch && now.branch && was.branch.id !== now.branch.id
        ? `the token's branch was '${was.branch.name}' (${was.branch.id}) and is '${now.branch.name}' (${now.branch.id}) now`
        : undefined;
  if (clash) {
    throw importUsageError(
      `${report} was made for another place: ${clash}. Use the profile or --base-url it was made with`,
    );
  }
}
