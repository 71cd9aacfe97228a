import { type ErrorKind, type FieldIssue, issueText } from '../contract/errors.js';

/**
 * A failure with a known answer: the kind picks status, identifier and type from the contract's
 * table; the message is what a person reads, so it says what was wrong and where.
 */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details?: FieldIssue[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const validationError = (details: FieldIssue[], what = 'request') =>
  new AppError('validation', `invalid ${what}: ${details.map(issueText).join('; ')}`, details);
