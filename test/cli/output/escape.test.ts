/**
 * Errors and notices show control characters from data escaped (issue #24): a raw newline in a
 * value the server echoes must not split one error over two lines, an escape sequence must not
 * clear the screen. One rule (output/text-safe.ts) for every printer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paintErr } from '../../../src/cli/output/style.js';
import { safeLines } from '../../../src/cli/output/text-safe.js';
import { type CliServed, startCliServed } from '../../helpers/cli-run.js';
import { fakeIO } from '../helpers.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

let srv: CliServed;
beforeAll(async () => {
  srv = await startCliServed();
});
afterAll(async () => {
  await srv?.close();
});

describe('errors and notices escape what data carries', () => {
  it('an id the server echoes in a 404: one error line, then the hint', async () => {
    const r = await srv.run(['users', 'show', 'a\nb\u001b[2J']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).not.toMatch(RAW);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: user 'a\\x0ab\\x1b\[2J' does not exist/);
    expect(lines[1]).toMatch(/^Check the id or externalId/);
  });

  it('a flag value the CLI quotes back: one line', async () => {
    const r = await srv.run([
      ...['users', 'invite', '--no-send-mail', '--role', 'editor'],
      ...['--email', 'eve@example.com', '--first-name', 'Eve\nroot\u001b[2J'],
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      "error: --first-name 'Eve\\x0aroot\\x1b[2J': must not contain control characters\n",
    );
  });

  it("a user's name in a notice", async () => {
    const r = await srv.run([
      ...['users', 'invite', '--no-send-mail', '--role', 'editor'],
      ...['--email', 'eve@example.com', '--first-name', 'Eve\u202eroot'],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('created Eve\\u202eroot <eve@example.com>');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('safeLines', () => {
  it("keeps a message's own line breaks and the CLI's colours, escapes the rest", () => {
    const fake = fakeIO({ tty: true });
    fake.io.stderrColor = true;
    const red = paintErr(fake.io, 'red', 'error:');
    expect(safeLines(`${red} a\u001b]0;x\u0007b\u009b\nhint\r`)).toBe(
      `${red} a\\x1b]0;x\\x07b\\x9b\nhint\\x0d`,
    );
  });
});
