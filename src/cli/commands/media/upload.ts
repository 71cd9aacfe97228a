/**
 * `roster media upload <files or globs…>`: every file streamed from disk (never read into
 * memory), a few at a time, with a progress bar per file on a terminal and a result line per
 * file. JSON: the array of uploaded media, in the order the files were named.
 */
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { MEDIUM_TYPES, type MediumType } from '../../../contract/medium.js';
import { safeText } from '../../../contract/text-safe.js';
import { type Deps, type GlobalOptions, note, onCleanup } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { forPeople, renderList } from '../../output/render.js';
import { paintErr } from '../../output/style.js';
import { exitCodeOf, onInterrupt } from '../../signals.js';
import { fieldsOption, globalsOf } from '../shared/options.js';
import { parseConcurrency } from '../users/import/flags.js';
import { MEDIUM_FIELDS_EXAMPLE, mediumView } from './format.js';
import type { Outcome } from './upload-run.js';

export interface UploadOptions {
  files: string[];
  type?: MediumType;
  concurrency: number;
  fields?: string;
  /** Skip a file already there: same name and size, and the same SHA-256. */
  skipExisting?: boolean;
  globals: GlobalOptions;
}

const UPLOAD_HELP = `
Patterns are expanded by roster itself, the same on every shell: quote them ('photos/*.jpg',
'scans/**/*.pdf', 'img-{1,2}.png'). A pattern that matches nothing stops before any upload
(exit 2). A file that is missing, unreadable or refused is reported by name and the others
still upload (exit 5; exit 1 when none could be uploaded). Ctrl-C cancels the uploads in
flight (the service keeps no partial file) and exits 130.`;

export function register(media: Command, deps: Deps, runFn = runUpload) {
  const upload = media
    .command('upload')
    .description('upload files, streamed from disk, several at once (JSON: an array of media)')
    .argument('<files...>', "files, or quoted glob patterns such as 'photos/**/*.jpg'")
    .addOption(
      new Option(
        '--type <type>',
        "metaData type hint for every file (default: from each file's extension; the service checks the bytes)",
      ).choices(MEDIUM_TYPES),
    )
    .option('--concurrency <n>', 'files uploading at a time, 1-64', parseConcurrency, 4)
    .option(
      '--skip-existing',
      'skip a file already there (a medium of the same name, size and SHA-256): re-runs upload nothing',
    );
  fieldsOption(upload, MEDIUM_FIELDS_EXAMPLE)
    .addHelpText('after', UPLOAD_HELP)
    .action((files: string[], opts: Omit<UploadOptions, 'files' | 'globals'>, cmd: Command) =>
      runFn({ files, ...opts, globals: globalsOf(cmd) }, deps),
    );
}

/** The files the arguments name, each once, in the order given. */
async function filesOf(args: string[]): Promise<string[]> {
  const { expandArgs } = await import('./glob.js');
  const { expansions, unmatched } = await expandArgs(args);
  if (unmatched.length > 0) {
    const list = unmatched.map((p) => `'${safeText(p)}'`).join(', ');
    throw usageError(`no file matches ${list}; nothing was uploaded`);
  }
  const seen = new Set<string>();
  return expansions
    .flatMap((e) => e.paths)
    .filter((path) => {
      const key = resolve(path);
      return !seen.has(key) && Boolean(seen.add(key));
    });
}

export async function runUpload(opts: UploadOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const view = mediumView(opts.globals, opts.fields, deps);
  const files = await filesOf(opts.files);
  const { apiClient } = await import('../../client.js');
  const client = await apiClient(opts.globals, deps);
  const { checkFile } = await import('./files.js');
  const { transferBars } = await import('../../output/transfer.js');
  const { uploadAll } = await import('./upload-run.js');
  const { describeMedium } = await import('./format.js');

  const bars = transferBars(io);
  onCleanup(deps, () => bars.end());
  const failed = (name: string, problem: string) =>
    bars.log(`${paintErr(io, 'red', 'failed')} ${safeText(name)}: ${problem}`);

  const checks = await Promise.all(files.map((name) => checkFile(name)));
  const readable = files.flatMap((name, i) => {
    const check = checks[i]!;
    if (!check.ok) failed(name, check.problem);
    return check.ok ? [{ name, size: check.size }] : [];
  });
  const existing = opts.skipExisting
    ? await (await import('./skip-existing.js')).findExisting(client, readable)
    : new Map();
  let skippedCount = 0;
  for (const [name, { medium, sameAs, problem }] of existing) {
    if (problem !== undefined) {
      failed(name, problem);
      continue;
    }
    skippedCount++;
    const why = medium ? `already there as ${medium.id}` : `the same file as ${sameAs} in this run`;
    bars.log(`${paintErr(io, 'yellow', 'skipped')} ${name}: ${why}`);
  }
  const tasks = readable.filter((t) => !existing.has(t.name));
  let finished = 0;
  const progress = () => bars.footer(`${finished} of ${tasks.length} files done`);
  progress();

  // Ctrl-C cancels the uploads in flight; a second Ctrl-C exits at once (signals.ts).
  const controller = new AbortController();
  const stopListening = onInterrupt((signal) =>
    controller.abort(
      new CliError('interrupted: the uploads in flight were cancelled', exitCodeOf(signal)),
    ),
  );
  const run = await uploadAll(client, tasks, {
    type: opts.type,
    concurrency: opts.concurrency,
    signal: controller.signal,
    bars,
    onOutcome: (o) => {
      finished++;
      progress();
      if ('error' in o) failed(o.name, o.error);
      else
        bars.log(
          `${paintErr(io, 'green', 'uploaded')} ${o.name} → ${o.medium.id} ${describeMedium(o.medium)}${
            o.medium.previewError ? `, no preview (${safeText(o.medium.previewError)})` : ''
          }`,
        );
    },
  }).finally(() => {
    stopListening();
    bars.end();
  });

  const done = run.outcomes.filter((o): o is Outcome => o !== undefined);
  const media = done.flatMap((o) => ('medium' in o ? [o.medium] : []));
  if (!forPeople(view.format) || media.length > 0) {
    await renderList(io, view.format, media, view.columns, view.json);
  }
  const failures = files.length - skippedCount - tasks.length + done.length - media.length;
  const cancelled = run.started - done.length;
  const notStarted = tasks.length - run.started;
  const rest = [
    cancelled > 0 ? `${cancelled} cancelled` : '',
    notStarted > 0 ? `${notStarted} not started` : '',
  ].filter(Boolean);
  const skipped = opts.skipExisting ? `${skippedCount} skipped, ` : '';
  note(io, [`${media.length} uploaded, ${skipped}${failures} failed`, ...rest].join(', '));

  if (controller.signal.aborted) throw controller.signal.reason;
  if (run.stopped) throw run.stopped;
  if (failures === 0) return;
  if (media.length > 0) {
    throw new CliError(`${failures} of ${files.length} files failed`, EXIT.partial);
  }
  throw new CliError(
    files.length === 1
      ? `${safeText(files[0]!)} was not uploaded`
      : `none of the ${files.length} files was uploaded`,
  );
}
