/** Pieces shared by the local admin commands (tokens, tenants, branches). */
import type { Command } from 'commander';
import type { Deps } from '../context.js';
import { type Format, resolveFormat } from '../output/render.js';

export const dataOption = (cmd: Command) =>
  cmd.option('--data <dir>', 'data dir (default: $ROSTER_DATA_DIR or the platform data dir)');

/** The global -o/--output, resolved against the TTY. */
export const globalFormat = (cmd: Command, deps: Deps): Format =>
  resolveFormat(cmd.optsWithGlobals().output as string | undefined, deps.io);
