/**
 * What commands get from the outside world, made once and passed down, so tests can run a
 * command with fake streams and environment.
 */
import type { Writable } from 'node:stream';

export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Colours on stderr/stdout: only on a TTY and never with NO_COLOR or --no-color. */
  color: boolean;
}

export interface Deps {
  io: IO;
  env: NodeJS.ProcessEnv;
}

export function processIO(env: NodeJS.ProcessEnv = process.env): IO {
  const stdoutIsTTY = Boolean(process.stdout.isTTY);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY,
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    color: stdoutIsTTY && env.NO_COLOR === undefined,
  };
}

/** A line on stderr: progress, notices, hints — never data. */
export const note = (io: IO, line: string) => io.stderr.write(`${line}\n`);
/** A line on stdout: data only. */
export const print = (io: IO, line: string) => io.stdout.write(`${line}\n`);
