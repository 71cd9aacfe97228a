/** Exit codes of the CLI contract; `main.ts` is the only place that turns errors into them. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  partial: 5,
  interrupted: 130,
  terminated: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An error whose message is meant for the person at the terminal: what went wrong and what to
 * do. Printed as one line, without a stack.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.error,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);

/** A message's first line: what a per-item result shows (the hints below it are for a whole run). */
export const firstLine = (message: string): string => message.split('\n')[0]!;
