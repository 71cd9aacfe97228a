/**
 * Secrets from stdin (`--token -`, `--secret -`): kept out of argv, where `ps` and the shell's
 * history would show them.
 */
import type { IO } from './context.js';

/** All of stdin, without the surrounding whitespace (a trailing newline from `echo`). */
export async function readSecretFromStdin(io: IO): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += chunk.toString();
  return text.trim();
}
