/**
 * The folder sync: match photos to users, then set each avatar a few at a time with a progress
 * line; one photo's failure is its own, a rejected token or an unreachable service stops the
 * run, Ctrl-C starts no more and cancels the uploads in flight (whose media apply.ts deletes).
 */
import { writeFile } from 'node:fs/promises';
import type { UserV3 } from '../../../../contract/user.js';
import { hashPhoto, PhotoError } from '../../../avatar/index.js';
import { type Deps, note } from '../../../context.js';
import { CliError, EXIT, firstLine } from '../../../errors.js';
import { renderList, resolveFormat } from '../../../output/render.js';
import { paintErr } from '../../../output/style.js';
import { exitCodeOf, onInterrupt } from '../../../signals.js';
import { setAvatar } from './apply.js';
import { compilePattern, DEFAULT_PATTERNS, photoFor, readPhotoFolder } from './match.js';
import { avatarHashOf } from './media.js';
import { avatarSession } from './session.js';
import type { SyncOptions } from './sync.js';

export interface SyncRow {
  user: string;
  email: string | null;
  externalId: string | null;
  photo: string;
  result: 'set' | 'unchanged' | 'would set' | 'failed';
  error?: string;
}

const who = (u: UserV3) => ({
  user: u.id,
  email: u.email?.value ?? null,
  externalId: u.externalId,
});

export async function syncAvatars(opts: SyncOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const format = resolveFormat(opts.globals.output, io);
  const patterns = (opts.photoName ?? DEFAULT_PATTERNS).map(compilePattern);
  const folder = await readPhotoFolder(opts.dir).catch((err: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read the folder ${opts.dir} (${err.code ?? err.message})`);
  });
  const session = await avatarSession(opts.globals, deps);
  const { stopsRun } = await import('../../../../client/errors.js');
  const { userMessage } = await import('../../../advice.js');

  const tasks: { user: UserV3; photo: string }[] = [];
  const withoutPhoto: ReturnType<typeof who>[] = [];
  const matched = new Set<string>();
  const statuses = ['activated', 'pending', 'deactivated'] as const;
  for await (const user of session.client.iterateUsers({ status: [...statuses] })) {
    const photo = photoFor(user, patterns, folder);
    if (photo) {
      tasks.push({ user, photo });
      matched.add(photo);
    } else withoutPhoto.push(who(user));
  }
  const unmatched = [
    ...[...folder.byName.values()].filter((p) => !matched.has(p)),
    ...folder.ambiguous,
  ].sort();

  const { transferBars } = await import('../../../output/transfer.js');
  const bars = transferBars(io);
  const controller = new AbortController();
  session.signal = controller.signal;
  let stop: unknown;
  const stopListening = onInterrupt((signal) =>
    controller.abort(new CliError('interrupted: no more photos were started', exitCodeOf(signal))),
  );
  const rows: SyncRow[] = [];
  const progress = () => bars.footer(`${rows.length} of ${tasks.length} photos done`);

  const one = async ({ user, photo }: (typeof tasks)[number]): Promise<SyncRow> => {
    const base = { ...who(user), photo };
    try {
      if (opts.dryRun) {
        const same = avatarHashOf(user.profile.avatar) === (await hashPhoto(photo));
        return { ...base, result: same ? 'unchanged' : 'would set' };
      }
      const change = await setAvatar(session, user.id, photo, { user });
      return { ...base, result: change.result === 'unchanged' ? 'unchanged' : 'set' };
    } catch (err) {
      if (!(err instanceof PhotoError) && stopsRun(err) && !controller.signal.aborted) {
        stop ??= err;
        controller.abort(err);
      }
      const error = err instanceof PhotoError ? err.message : firstLine(userMessage(err));
      return { ...base, result: 'failed', error };
    }
  };
  let next = 0;
  const worker = async () => {
    while (!controller.signal.aborted && next < tasks.length) {
      const row = await one(tasks[next++]!);
      // A photo cut off by Ctrl-C or by a stop is not a result of its own.
      if (row.result === 'failed' && controller.signal.aborted) continue;
      rows.push(row);
      if (row.result === 'failed') bars.log(`${paintErr(io, 'red', 'failed')} ${row.error}`);
      else if (row.result !== 'unchanged') bars.log(`${row.result} ${row.user} ← ${row.photo}`);
      progress();
    }
  };
  progress();
  await Promise.all(
    Array.from({ length: Math.min(opts.concurrency, tasks.length) }, worker),
  ).finally(() => {
    stopListening();
    bars.end();
  });

  await renderList(io, format, rows, [
    { header: 'user', value: (r) => r.user },
    { header: 'email', value: (r) => r.email },
    { header: 'result', value: (r) => r.result },
    { header: 'photo', value: (r) => r.photo },
    { header: 'error', value: (r) => r.error },
  ]);
  for (const photo of unmatched) note(io, `no user for photo ${photo}`);
  if (opts.report) {
    const report = { results: rows, unmatchedPhotos: unmatched, usersWithoutPhoto: withoutPhoto };
    await writeFile(opts.report, `${JSON.stringify(report, null, 2)}\n`);
  }
  const count = (r: SyncRow['result']) => rows.filter((x) => x.result === r).length;
  const failed = count('failed');
  const changed = opts.dryRun ? `${count('would set')} would be set` : `${count('set')} set`;
  const notStarted = tasks.length - rows.length;
  note(
    io,
    [
      `${changed}, ${count('unchanged')} unchanged, ${failed} failed`,
      `${unmatched.length} photos matched nobody`,
      `${withoutPhoto.length} users without a photo`,
      ...(notStarted > 0 ? [`${notStarted} not done`] : []),
    ].join(', '),
  );
  if (stop) throw stop;
  if (controller.signal.aborted) throw controller.signal.reason;
  if (failed === 0) return;
  if (failed < rows.length)
    throw new CliError(`${failed} of ${rows.length} photos failed`, EXIT.partial);
  throw new CliError(`none of the ${rows.length} photos could be set`);
}
