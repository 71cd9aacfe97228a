/**
 * The import engine's one error: a message a person can act on ("CSV line 14: …"), and whether
 * it is a mistake in how the import was asked for (`usage`) or a failure of the run. The CLI
 * (cli/main.ts) maps it to an exit code; the engine itself never prints or exits.
 */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    message: string,
    readonly kind: 'failed' | 'usage' = 'failed',
  ) {
    super(message);
  }
}

export const importUsageError = (message: string) => new ImportError(message, 'usage');

/** --resume names a report that is not there (both the record's and the report's reader say so). */
export const noSuchReport = (report: string) =>
  new ImportError(`--resume ${report}: no such file (the --report of the run to continue)`);
