/** Pieces every API command shares: the global options, `--fields`, confirmations. */
import type { Command } from 'commander';
import { type Deps, type GlobalOptions, interactive } from '../../context.js';
import { usageError } from '../../errors.js';
import { prompterOf } from '../../prompt.js';

/** The program's global options as seen from `cmd` (flags may come before or after the verb). */
export const globalsOf = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;

/** `--fields`; `example`: names and paths of the command's own objects. */
export const fieldsOption = (cmd: Command, example = 'id,email,lastName,profile.department') =>
  cmd.option(
    '--fields <names>',
    `comma-separated fields to print: the table's column names or dotted paths into the object (e.g. ${example})`,
  );

/**
 * Asks before a destructive step: `--yes` skips the question; without a terminal to ask on,
 * refuses with a usage error (exit 2) so a script never deletes by accident.
 */
export async function confirmOrRefuse(
  deps: Deps,
  globals: GlobalOptions,
  question: string,
  refusal: string,
): Promise<boolean> {
  if (globals.yes) return true;
  if (!interactive(deps.io)) {
    throw usageError(`${refusal}: not on a terminal, so nothing was done; pass --yes to confirm`);
  }
  return prompterOf(deps).confirm({ message: question, default: false });
}

/** Collects a repeatable option's values: `--set a=1 --set b=2`. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
