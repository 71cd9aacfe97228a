/**
 * What commands get from the outside world, made once and passed down, so tests can run a
 * command with fake streams, environment, API client and prompter.
 */

import type { Writable } from 'node:stream';
import { isatty } from 'node:tty';
import type { ApiClient, ApiClientOptions } from '../client/index.js';
import { safeLines } from './output/text-safe.js';
import type { Prompter } from './prompt.js';

export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  /** Width of the terminal on stdout, to fit tables; undefined: no limit (a pipe, `-o wide`). */
  columns?: number;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Colours on stdout: only on a TTY and never with NO_COLOR or --no-color. */
  color: boolean;
  /** The same for stderr (notices, errors, spinners). */
  stderrColor?: boolean;
  /** False: tables and CSV without their header row (`--no-headers`). */
  headers?: boolean;
}

export interface Deps {
  io: IO;
  env: NodeJS.ProcessEnv;
  /** Test seam: builds the API client from resolved settings (default: the undici client). */
  connect?: (options: ApiClientOptions) => ApiClient | Promise<ApiClient>;
  /** Test seam: answers prompts (default: @inquirer/prompts on stdin/stderr). */
  prompter?: Prompter;
  /** Test seam: the wait before a retry (default: a timer), so retry matrices run at once. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Run once the command ends, failed or not: closing pools, stopping spinners. */
  cleanups?: (() => unknown)[];
}

/** The program's global options, as commander hands them to every command. */
export interface GlobalOptions {
  output?: string;
  profile?: string;
  baseUrl?: string;
  region?: string;
  verbose?: boolean;
  color?: boolean;
  yes?: boolean;
  /** Seconds a request may wait for the service (headers, or the next body bytes). */
  timeout?: number;
}

/** NO_COLOR counts when set to anything but the empty string (no-color.org). */
export const noColorEnv = (env: NodeJS.ProcessEnv) => Boolean(env.NO_COLOR);

/**
 * How many cells a table may take on stdout: what the terminal reports, else `COLUMNS` (a pty
 * that reports no size, as CI runners' and `docker exec -t`'s do), else unfitted. Piped: never.
 */
export function terminalColumns(
  isTTY: boolean,
  reported: number | undefined,
  env: NodeJS.ProcessEnv,
): number | undefined {
  if (!isTTY) return undefined;
  if (reported) return reported;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
}

export function processIO(env: NodeJS.ProcessEnv = process.env): IO {
  const stdoutIsTTY = Boolean(process.stdout.isTTY);
  const stderrIsTTY = Boolean(process.stderr.isTTY);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // process.stdin builds a stream when first read: only commands that read stdin pay for it.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY,
    columns: terminalColumns(stdoutIsTTY, process.stdout.columns, env),
    stderrIsTTY,
    stdinIsTTY: isatty(0),
    color: stdoutIsTTY && !noColorEnv(env),
    stderrColor: stderrIsTTY && !noColorEnv(env),
  };
}

/** Whether we may ask the person at the terminal (prompts read stdin and draw on stderr). */
export const interactive = (io: IO) => io.stdinIsTTY && io.stderrIsTTY;

/** Registers work to do when the command ends. */
export function onCleanup(deps: Deps, fn: () => unknown) {
  deps.cleanups ??= [];
  deps.cleanups.push(fn);
}

/** A line on stderr: progress, notices, hints — never data. Controls from data are escaped. */
export const note = (io: IO, line: string) => io.stderr.write(`${safeLines(line)}\n`);
/** A line on stdout: data only. */
export const print = (io: IO, line: string) => io.stdout.write(`${line}\n`);
