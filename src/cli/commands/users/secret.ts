/** `--secret` of invite and update: never from the command line unless given there. */
import { type Deps, interactive } from '../../context.js';
import { usageError } from '../../errors.js';
import { prompterOf } from '../../prompt.js';
import { readSecretFromStdin } from '../../stdin.js';

/** The flag's help: the same words wherever a secret is taken. */
export const SECRET_HELP =
  "'-' reads it from stdin, the flag alone asks (a value on the command line shows in ps and history)";

/** `--secret -` from stdin, `--secret` alone asked for (masked) on a terminal. */
export async function secretOf(
  secret: string | true | undefined,
  deps: Deps,
): Promise<string | undefined> {
  if (secret === '-') return readSecretFromStdin(deps.io);
  if (secret !== true) return secret;
  if (!interactive(deps.io)) {
    throw usageError('--secret without a value asks on a terminal; not on one, use --secret -');
  }
  return prompterOf(deps).password({ message: 'Initial password', required: true });
}
