/** `roster users avatar remove <user>`: clears the avatar and deletes its media. */
import type { Command } from 'commander';
import type { Deps, GlobalOptions } from '../../../context.js';
import { note } from '../../../context.js';
import { CliError } from '../../../errors.js';
import { renderRecord, resolveFormat, viewOf } from '../../../output/render.js';
import { confirmOrRefuse, globalsOf } from '../../shared/options.js';

export interface RemoveOptions {
  user: string;
  globals: GlobalOptions;
}

export function register(avatar: Command, deps: Deps, runFn = runRemove) {
  avatar
    .command('remove')
    .aliases(['delete', 'rm'])
    .description("clear a user's avatar and delete the media it was made of")
    .argument('<user>', 'the user id, an externalId or an email')
    .addHelpText(
      'after',
      '\nAsks for confirmation on a terminal; elsewhere it refuses (exit 2) unless -y/--yes is given.',
    )
    .action((user: string, _opts: unknown, cmd: Command) =>
      runFn({ user, globals: globalsOf(cmd) }, deps),
    );
}

export async function runRemove(opts: RemoveOptions, deps: Deps): Promise<void> {
  const format = resolveFormat(opts.globals.output, deps.io);
  const what = `the avatar of user ${opts.user}`;
  if (!(await confirmOrRefuse(deps, opts.globals, `Remove ${what}?`, `not removing ${what}`))) {
    throw new CliError('nothing removed: not confirmed');
  }
  const { avatarSession, noteLeftOver } = await import('./session.js');
  const { removeAvatar } = await import('./apply.js');
  const { CHANGE_COLUMNS, changeJson } = await import('./format.js');
  const change = await removeAvatar(await avatarSession(opts.globals, deps), opts.user);
  noteLeftOver(deps, change);
  note(
    deps.io,
    change.result === 'removed'
      ? `${change.user.id}: avatar removed`
      : `${change.user.id}: had no avatar`,
  );
  await renderRecord(deps.io, viewOf(format, CHANGE_COLUMNS, undefined, changeJson), change);
}
