/** `roster … | head`: a reader that stops reading ends the command quietly, not with a stack. */
import { expect, it } from 'vitest';
import { start } from '../helpers/e2e.js';

it('help piped into a reader that closes after the first line exits 0 without an EPIPE trace', async () => {
  const run = start(['users', 'invite', '--help']);
  // As `head -1` does: read once, then close the pipe.
  run.child.stdout?.once('data', () => run.child.stdout?.destroy());
  const { exitCode, stderr } = await run.done;
  expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  expect(exitCode).toBe(0);
});
