/**
 * The closed-pipe rule (`roster … | head -1`), in-process: a stream whose reader went away fails
 * its writes with EPIPE, as process.stdout does; the handler main() installs decides the exit.
 * test/e2e/closed-pipe.test.ts proves the wiring in a real process.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { closedPipeHandler } from '../../src/cli/main.js';

/** A stdout whose reader has gone: every write fails with `code`. */
const closedStdout = (code = 'EPIPE') =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error(`write ${code}`), { code, syscall: 'write' }));
    },
  });

/** Writes to a closed stdout carrying the handler; resolves with the exit code it chose. */
function exitOnWrite(
  decided: () => number | undefined,
  code?: string,
  report: (line: string) => void = () => {},
) {
  return new Promise<number>((resolve, reject) => {
    const stdout = closedStdout(code);
    const handler = closedPipeHandler(resolve, decided, report);
    stdout.on('error', (err) => {
      try {
        handler(err);
      } catch (thrown) {
        reject(thrown);
      }
    });
    stdout.write('first line\n');
  });
}

describe('a closed stdout', () => {
  it('ends quietly with 0 while the command has not decided an exit code', async () => {
    expect(await exitOnWrite(() => undefined)).toBe(0);
  });

  it("keeps the command's own exit code once it has one (a failed command stays failed)", async () => {
    expect(await exitOnWrite(() => 5)).toBe(5);
    expect(await exitOnWrite(() => 0)).toBe(0);
  });

  it('any other failure (a full disk, an I/O error) is one line naming it and exit 1', async () => {
    const lines: string[] = [];
    expect(
      await exitOnWrite(
        () => 0,
        'ENOSPC',
        (l) => void lines.push(l),
      ),
    ).toBe(1);
    expect(
      await exitOnWrite(
        () => undefined,
        'EIO',
        (l) => void lines.push(l),
      ),
    ).toBe(1);
    expect(lines).toEqual([
      'error: cannot write standard output: no space left on the device\n',
      'error: cannot write standard output: write EIO\n',
    ]);
  });
});
