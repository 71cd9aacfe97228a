/** `roster users avatar set <user> <photo>`: makes a photo the user's avatar. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../../context.js';
import { note } from '../../../context.js';
import { usageError } from '../../../errors.js';
import { renderRecord, resolveFormat, viewOf } from '../../../output/render.js';
import { safeText } from '../../../output/text-safe.js';
import { globalsOf } from '../../shared/options.js';

export interface SetOptions {
  user: string;
  photo: string;
  globals: GlobalOptions;
}

export function register(avatar: Command, deps: Deps, runFn = runSet) {
  avatar
    .command('set')
    .description("make a photo the user's avatar (JPEG, PNG, GIF, WebP, TIFF, BMP, HEIC)")
    .argument('<user>', 'the user id, an externalId or an email')
    .argument('<photo>', 'the photo file')
    .addHelpText(
      'after',
      `
The photo is turned upright (EXIF orientation), converted to sRGB and stripped of all metadata
(GPS, camera serial…); then an original (long edge at most 2048 px, never enlarged), a 200×200
thumb and a 48×48 icon (cropped to the most salient part) are uploaded as media named
avatar.<photo hash>.<image>.jpg (.png when the photo has transparency), the user is updated,
and only then are the old avatar's media deleted. The same photo again changes nothing.`,
    )
    .action((user: string, photo: string, _opts: unknown, cmd: Command) =>
      runFn({ user, photo, globals: globalsOf(cmd) }, deps),
    );
}

export async function runSet(opts: SetOptions, deps: Deps): Promise<void> {
  const format = resolveFormat(opts.globals.output, deps.io);
  // A photo that is not there is the caller's mistake (exit 2), said before the service is asked.
  const { checkFile } = await import('../../media/files.js');
  const file = await checkFile(opts.photo);
  if (!file.ok) throw usageError(`${safeText(opts.photo)}: ${file.problem}`);
  const { avatarSession, noteLeftOver, asCliError } = await import('./session.js');
  const { setAvatar } = await import('./apply.js');
  const { CHANGE_COLUMNS, changeJson } = await import('./format.js');
  const session = await avatarSession(opts.globals, deps);
  const change = await setAvatar(session, opts.user, opts.photo).catch(async (err) => {
    throw await asCliError(err);
  });
  noteLeftOver(deps, change);
  note(
    deps.io,
    change.result === 'unchanged'
      ? `${change.user.id}: avatar unchanged (already made from this photo)`
      : `${change.user.id}: avatar set`,
  );
  await renderRecord(deps.io, viewOf(format, CHANGE_COLUMNS, undefined, changeJson), change);
}
