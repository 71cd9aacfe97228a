/** `roster … | head`: a reader that stops reading ends the command quietly, not with a stack. */
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { BIN } from '../helpers/e2e.js';

it('help piped into a reader that closes after the first line exits 0 without an EPIPE trace', async () => {
  const child = spawn(process.execPath, [BIN, 'users', 'invite', '--help'], {
    env: { PATH: process.env.PATH, NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  // As `head -1` does: read once, then close the pipe.
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  expect(code).toBe(0);
});
