/**
 * The built CLI in a real pseudo-terminal 60 columns wide (issue #24 item 4): `users list`
 * reads the width from the terminal itself and the table fits it, the id whole. The rules at
 * every width are in test/cli/output/narrow.test.ts, in-process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/output/width.js';
import { type CliServed, startCliServed } from '../helpers/cli-run.js';
import { inPty } from './helpers/pty.js';

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
});

it('users list at 60 columns: no line wider than the terminal, the id whole', async () => {
  const invited = await srv.run([
    ...['users', 'invite', '--no-send-mail', '--role', 'editor', '--external-id', 'E-1001'],
    ...['--email', 'ann.archer@a-very-long-domain.example.com'],
    ...['--first-name', 'Ann', '--last-name', 'Archer'],
  ]);
  expect(invited.exitCode, invited.stderr).toBe(0);
  const { id } = JSON.parse(invited.stdout);
  const run = inPty(['users', 'list'], { ...srv.env, NO_COLOR: '1' }, { columns: 60 });
  const { exitCode, screen } = await run.exited;
  expect(exitCode, screen).toBe(0);
  const lines = screen.replaceAll('\r', '').trimEnd().split('\n');
  expect(lines[0]).toMatch(/^┌/);
  for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(60);
  expect(screen).toContain(`│ ${id} │`);
  expect(screen).toContain('hidden to fit 60 columns');
});
