/** Pieces shared by the local admin commands (tokens, tenants, branches). */
import type { Command } from 'commander';
import type { Deps } from '../../context.js';
import { type Format, resolveFormat } from '../../output/render.js';

export const dataOption = (cmd: Command) =>
  cmd
    .option('--data <dir>', 'data dir (default: $ROSTER_DATA_DIR or the platform data dir)')
    .option(
      '--database <url>',
      "the database instead of the data dir's SQLite: postgres://user:pass@host:5432/db or sqlite:<dir> (default: $ROSTER_DATABASE_URL)",
    );

/** The global -o/--output, resolved against the TTY. */
export const globalFormat = (cmd: Command, deps: Deps): Format =>
  resolveFormat(cmd.optsWithGlobals().output as string | undefined, deps.io);
