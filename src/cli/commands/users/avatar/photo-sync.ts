/**
 * The folder sync, shared by `avatar sync DIR` and `users import FILE --photos DIR`: match photos
 * to users, then set each avatar a few at a time with a progress line; one photo's failure is its
 * own, a rejected token or an unreachable service stops the run, Ctrl-C starts no more and
 * cancels the uploads in flight (whose media apply.ts deletes). The callers print the results.
 */
import { writeFile } from 'node:fs/promises';
import type { UserV3 } from '../../../../contract/user.js';
import { checkPhoto, hashPhoto, PhotoError } from '../../../avatar/index.js';
import type { Deps } from '../../../context.js';
import { CliError, EXIT, firstLine } from '../../../errors.js';
import { count } from '../../../output/count.js';
import { paintErr } from '../../../output/style.js';
import { exitCodeOf, onInterrupt } from '../../../signals.js';
import { type AvatarDeps, setAvatar } from './apply.js';
import {
  compilePattern,
  DEFAULT_PATTERNS,
  type PhotoFolder,
  photoFor,
  readPhotoFolder,
} from './match.js';
import { avatarHashOf } from './media.js';

/** Whose avatars a sync sets: every user but the removed (a deactivated one may come back). */
export const PHOTO_STATUSES = ['activated', 'pending', 'deactivated'] as const;

/**
 * Photos in flight at a time unless `--concurrency` says otherwise (hashing, uploads, updates);
 * libvips renders one of them at a time whatever this is (avatar/render.ts: memory).
 */
export const PHOTO_CONCURRENCY = 4;

export interface SyncRow {
  user: string;
  email: string | null;
  externalId: string | null;
  photo: string;
  result: 'set' | 'unchanged' | 'would set' | 'failed';
  error?: string;
}

export type Who = Pick<SyncRow, 'user' | 'email' | 'externalId'>;

const who = (u: UserV3): Who => ({
  user: u.id,
  email: u.email?.value ?? null,
  externalId: u.externalId,
});

/** A folder of photos and how its photos are named, checked before anything is sent. */
export interface Photos {
  dir: string;
  patterns: ((u: UserV3) => string | undefined)[];
  folder: PhotoFolder;
}

/** `DIR` and `--photo-name`: a bad pattern is a usage error, an unreadable folder exit 1. */
export async function openPhotos(dir: string, photoName?: string[]): Promise<Photos> {
  const patterns = (photoName ?? DEFAULT_PATTERNS).map(compilePattern);
  const folder = await readPhotoFolder(dir).catch((err: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read the folder ${dir} (${err.code ?? err.message})`);
  });
  return { dir, patterns, folder };
}

export interface PhotoSyncResult {
  /** One per photo done, in the order they finished. */
  rows: SyncRow[];
  /** Photos that matched none of the users. */
  unmatched: string[];
  /** Photos that share a name, by name: which one is meant cannot be told, so none is used. */
  ambiguous: string[][];
  /** Users with no photo in the folder and no avatar. */
  withoutPhoto: Who[];
  /** Users with no photo in the folder who have an avatar: they keep it. */
  keeping: Who[];
  /** Matched photos not started (Ctrl-C, or a stop). */
  notStarted: number;
  /** What ended the run early (a stop, Ctrl-C): to throw once the results are out. */
  stoppedBy?: unknown;
}

/**
 * Sets the avatar of each of `users` that has a photo in the folder (a dry run compares the
 * photo's hash with the one in the avatar's media names, and reads a changed photo's header as
 * the run would, uploading nothing). `users` without an id are users a dry run would create:
 * they can only be named as `would set`.
 */
export async function syncPhotos(
  photos: Photos,
  session: AvatarDeps,
  users: AsyncIterable<UserV3>,
  opts: { concurrency: number; dryRun?: boolean },
  deps: Deps,
): Promise<PhotoSyncResult> {
  const { io } = deps;
  const { stopsRun } = await import('../../../../client/errors.js');
  const { userMessage } = await import('../../../advice.js');

  const tasks: { user: UserV3; photo: string }[] = [];
  const withoutPhoto: Who[] = [];
  const keeping: Who[] = [];
  const matched = new Set<string>();
  for await (const user of users) {
    const photo = photoFor(user, photos.patterns, photos.folder);
    if (photo) {
      tasks.push({ user, photo });
      matched.add(photo);
    } else (user.profile.avatar ? keeping : withoutPhoto).push(who(user));
  }
  const unmatched = [...photos.folder.byName.values()].filter((p) => !matched.has(p)).sort();

  const { transferBars } = await import('../../../output/transfer.js');
  const bars = transferBars(io);
  const controller = new AbortController();
  session.signal = controller.signal;
  let stop: unknown;
  const stopListening = onInterrupt((signal) =>
    controller.abort(new CliError('interrupted: no more photos were started', exitCodeOf(signal))),
  );
  const rows: SyncRow[] = [];
  const progress = () => bars.footer(`${rows.length} of ${count(tasks.length, 'photo')} done`);

  const one = async ({ user, photo }: (typeof tasks)[number]): Promise<SyncRow> => {
    const base = { ...who(user), photo };
    try {
      if (opts.dryRun) {
        const hash = await hashPhoto(photo);
        if (avatarHashOf(user.profile.avatar) === hash) return { ...base, result: 'unchanged' };
        // Read as the run would read it: a photo the run would fail fails here too.
        await checkPhoto(photo, { env: session.env, hash });
        return { ...base, result: 'would set' };
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
      else if (row.result !== 'unchanged') {
        bars.log(`${row.result} ${row.user || row.email || row.externalId} ← ${row.photo}`);
      }
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
  return {
    rows,
    unmatched,
    ambiguous: photos.folder.ambiguous,
    withoutPhoto,
    keeping,
    notStarted: tasks.length - rows.length,
    stoppedBy: stop ?? (controller.signal.aborted ? controller.signal.reason : undefined),
  };
}

/**
 * What to say of the photos no user got: those that matched nobody, and those that share a name.
 * `nobody`: how the command says "no user" (of the folder's users, or of the import file's).
 */
export function notePhotosUnused(r: PhotoSyncResult, say: (line: string) => void, nobody: string) {
  for (const photo of r.unmatched) say(`${nobody} for photo ${photo}`);
  for (const group of r.ambiguous) {
    say(`photos with the same name, none used: ${group.join(', ')} (keep one)`);
  }
}

/**
 * The JSON report: every result, the photos that matched nobody, the users without a photo (no
 * avatar either), and those with no photo here who keep the avatar they have.
 */
export async function writePhotoReport(path: string, r: PhotoSyncResult): Promise<void> {
  const report = {
    results: r.rows,
    unmatchedPhotos: r.unmatched,
    ambiguousPhotos: r.ambiguous,
    usersWithoutPhoto: r.withoutPhoto,
    usersKeepingPhoto: r.keeping,
  };
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}

const countOf = (r: PhotoSyncResult, result: SyncRow['result']) =>
  r.rows.filter((x) => x.result === result).length;

/** `2 set, 1 unchanged, 0 failed, 1 photo matched nobody, …`: the run in one line. */
export function photoSummary(r: PhotoSyncResult, dryRun: boolean | undefined): string {
  const changed = dryRun ? `${countOf(r, 'would set')} would be set` : `${countOf(r, 'set')} set`;
  return [
    `${changed}, ${countOf(r, 'unchanged')} unchanged, ${countOf(r, 'failed')} failed`,
    `${count(r.unmatched.length, 'photo')} matched nobody`,
    ...(r.ambiguous.length > 0
      ? [`${count(r.ambiguous.length, 'name')} with more than one photo`]
      : []),
    `${count(r.withoutPhoto.length, 'user')} without a photo`,
    // Not "without a photo": they have one, and this folder leaves it as it is.
    ...(r.keeping.length > 0
      ? [
          `${count(r.keeping.length, 'user')} with no photo in this folder (they keep their current one)`,
        ]
      : []),
    ...(r.notStarted > 0 ? [`${r.notStarted} not done`] : []),
  ].join(', ');
}

/**
 * How the run ends: what stopped it, else exit 5 when some photos failed (exit 1 when all
 * did), else nothing to throw.
 */
export function photoVerdict(r: PhotoSyncResult): unknown {
  if (r.stoppedBy) return r.stoppedBy;
  const failed = countOf(r, 'failed');
  if (failed === 0) return undefined;
  if (failed < r.rows.length)
    return new CliError(`${failed} of ${count(r.rows.length, 'photo')} failed`, EXIT.partial);
  if (r.rows.length === 1) return new CliError('the photo could not be set');
  return new CliError(`none of the ${r.rows.length} photos could be set`);
}
